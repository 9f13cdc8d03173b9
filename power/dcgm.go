package power

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"speedmatrix/internal/source"
)

// DCGM's metric names (dcgm-exporter's default counters).
const (
	// DCGMEnergy is the energy counter per GPU, in millijoules since the
	// driver was loaded.
	DCGMEnergy = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
	// DCGMPower is the power gauge per GPU, in watts.
	DCGMPower = "DCGM_FI_DEV_POWER_USAGE"
)

// GPUValue is one GPU's series of a DCGM metric.
type GPUValue struct {
	// GPU is the exporter's gpu label ("0"), UUID its UUID label, Model
	// its modelName label (empty when absent).
	GPU, UUID, Model string
	// Value is the sample as exported (mJ for the energy counter, W for
	// the power gauge), Text the same number as the exposition wrote it
	// (formatted back by strconv: expfmt keeps no text).
	Value float64
	Text  string
	// At is the sample's timestamp when the exposition gives one (a real
	// dcgm-exporter does not; runner/sim does), else zero.
	At time.Time
}

// DCGMScrape is what one /metrics answer of a DCGM exporter says about
// energy and power, one value per GPU in the order of their gpu labels.
type DCGMScrape struct {
	Energy []GPUValue // DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, mJ
	Power  []GPUValue // DCGM_FI_DEV_POWER_USAGE, W
}

// Reading sums the scrape over GPUs: the energy counter in joules when
// every GPU with a power figure has one, and the power in watts. It is
// taken at the samples' timestamp when every energy sample (or, without
// them, every power sample) carries the same one, else at arrived.
func (s DCGMScrape) Reading(arrived time.Time) (Reading, error) {
	at := arrived
	stamped := s.Energy
	if len(stamped) == 0 {
		stamped = s.Power
	}
	if len(stamped) > 0 && !stamped[0].At.IsZero() {
		same := true
		for _, g := range stamped {
			same = same && g.At.Equal(stamped[0].At)
		}
		if same {
			at = stamped[0].At
		}
	}
	r := Reading{At: at, GPUs: max(len(s.Energy), len(s.Power))}
	for _, g := range s.Energy {
		r.EnergyJ += g.Value / 1000
	}
	for _, g := range s.Power {
		r.PowerW += g.Value
	}
	r.HasEnergy = len(s.Energy) > 0 && len(s.Energy) >= len(s.Power)
	r.HasPower = len(s.Power) > 0 && len(s.Power) >= len(s.Energy)
	if !r.HasEnergy && !r.HasPower {
		return Reading{}, fmt.Errorf("no %s or %s series", DCGMEnergy, DCGMPower)
	}
	return r, nil
}

// ParseDCGM reads a Prometheus text exposition (a DCGM exporter's
// /metrics) and returns its energy and power series. A GPU exported more
// than once under one gpu label (MIG instances, a pod label per
// container) counts once: the first series. Bad input is an error at its
// line ("name:line: message").
//
// Note: parsed with prometheus/common/expfmt, the parser Prometheus
// itself uses, rather than by hand: label escapes, timestamps, HELP and
// TYPE lines and the exposition's many small rules come with it.
func ParseDCGM(r io.Reader, name string) (DCGMScrape, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return DCGMScrape{}, source.Errorf(name, 0, "%v", err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(dcgmLines(b)))
	if err != nil {
		var pe expfmt.ParseError
		if errors.As(err, &pe) {
			return DCGMScrape{}, source.Errorf(name, pe.Line, "%s", pe.Msg)
		}
		return DCGMScrape{}, source.Errorf(name, 0, "%v", err)
	}
	var s DCGMScrape
	s.Energy = gpuValues(fams[DCGMEnergy])
	s.Power = gpuValues(fams[DCGMPower])
	return s, nil
}

// dcgmLines keeps the lines of b that belong to the two families read
// (samples, HELP and TYPE) and blanks the others, so that the parser's
// line numbers stay those of b.
//
// Note: an exporter with profiling metrics on 8 GPUs writes tens of
// kilobytes every scrape, of which two families are read; expfmt builds
// every family. Blanking the rest first made a parse of the recorded T4
// answer (16 families) 1.8–5.2× faster in three interleaved rounds of
// BenchmarkParse on a loaded 2-core machine (median 4.8×; 1,306 → 280
// allocations); the meter parses ten answers a second while the client
// measures. Lines of other families are then not checked.
func dcgmLines(b []byte) []byte {
	out := make([]byte, 0, 1024)
	for len(b) > 0 {
		line, rest, found := bytes.Cut(b, []byte("\n"))
		b = rest
		t := bytes.TrimLeft(line, " \t")
		if bytes.HasPrefix(t, []byte("#")) {
			t = bytes.TrimLeft(t[1:], " \t")
			if f := bytes.Fields(t); len(f) >= 2 && (string(f[0]) == "HELP" || string(f[0]) == "TYPE") {
				t = f[1]
			}
		}
		if bytes.HasPrefix(t, []byte(DCGMEnergy)) || bytes.HasPrefix(t, []byte(DCGMPower)) {
			out = append(out, line...)
		}
		if found {
			out = append(out, '\n')
		}
	}
	return out
}

func gpuValues(f *dto.MetricFamily) []GPUValue {
	if f == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []GPUValue
	for _, m := range f.GetMetric() {
		var g GPUValue
		var all []string
		for _, l := range m.GetLabel() {
			all = append(all, l.GetName()+"="+l.GetValue())
			switch l.GetName() {
			case "gpu":
				g.GPU = l.GetValue()
			case "UUID":
				g.UUID = l.GetValue()
			case "modelName":
				g.Model = l.GetValue()
			}
		}
		key := g.GPU
		if key == "" {
			key = g.UUID
		}
		if key == "" {
			sort.Strings(all)
			key = fmt.Sprint(all)
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		switch {
		case m.Counter != nil:
			g.Value = m.GetCounter().GetValue()
		case m.Gauge != nil:
			g.Value = m.GetGauge().GetValue()
		case m.Untyped != nil:
			g.Value = m.GetUntyped().GetValue()
		default:
			continue
		}
		g.Text = strconv.FormatFloat(g.Value, 'g', -1, 64)
		if m.TimestampMs != nil {
			g.At = time.UnixMilli(m.GetTimestampMs())
		}
		out = append(out, g)
	}
	sort.SliceStable(out, func(i, j int) bool { return lessGPU(out[i].GPU, out[j].GPU) })
	return out
}

// lessGPU orders gpu labels numerically when both are numbers.
func lessGPU(a, b string) bool {
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 == nil && err2 == nil {
		return x < y
	}
	return a < b
}

// DCGM is a DCGM exporter's /metrics, scraped every Interval.
type DCGM struct {
	// URL is the exporter's metrics URL (http://host:9400/metrics).
	URL string
	// Client makes the requests (default: a client of its own).
	Client *http.Client
	// Interval is the time between scrapes (default 100 ms).
	Interval time.Duration
	Timeouts Timeouts
}

// Name returns "dcgm URL" (the URL without user information).
func (d *DCGM) Name() string { return "dcgm " + displayURL(d.URL) }

// Scrape fetches and parses the exporter's /metrics once, bounded by
// ctx.
func (d *DCGM) Scrape(ctx context.Context) (DCGMScrape, time.Time, error) {
	client := d.Client
	if client == nil {
		client = http.DefaultClient
	}
	b, err := getBody(ctx, client, d.URL)
	at := time.Now()
	if err != nil {
		return DCGMScrape{}, at, err
	}
	s, err := ParseDCGM(bytes.NewReader(b), displayURL(d.URL))
	return s, at, err
}

// Start scrapes once (failing when the exporter does not answer or
// exports neither metric) and then every Interval.
func (d *DCGM) Start(ctx context.Context) (Meter, error) {
	interval := d.Interval
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	m, err := startPoll(ctx, interval, d.Timeouts, func(ctx context.Context) (Reading, error) {
		s, at, err := d.Scrape(ctx)
		if err != nil {
			return Reading{}, err
		}
		return s.Reading(at)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name(), err)
	}
	return m, nil
}
