package runcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"speedmatrix/power"
)

// powerProbe bounds each look of -power auto (a DCGM exporter's
// /metrics).
const powerProbe = 2 * time.Second

// definePower registers -power.
func definePower(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.power, "power", "auto", "GPU power source for each cell's energy: off, auto (the server's /metrics or a DCGM exporter at its host's :9400, then nvidia-smi or amd-smi when the server is on this machine), dcgm=URL, nvidia-smi, amd-smi or prometheus=URL")
}

// powerSource turns -power into the runner's source: nil when off, or
// when auto finds none (said on stderr; the cells then carry no note).
func powerSource(ctx context.Context, o *options, stderr io.Writer) (power.Source, error) {
	spec, err := power.ParseSpec(o.power)
	if err != nil {
		return nil, err
	}
	opts := power.Options{Timeouts: power.Timeouts{Request: o.timeouts.Metrics}}
	if spec.Kind != "auto" {
		return spec.Source(opts)
	}
	src, tried := power.Auto(ctx, o.url, powerProbe, opts)
	if src == nil {
		fmt.Fprintf(stderr, "run: energy not measured: no power source found (%s); -power names one\n", strings.Join(tried, "; "))
		return nil, nil
	}
	fmt.Fprintf(stderr, "run: energy from %s\n", src.Name())
	return src, nil
}
