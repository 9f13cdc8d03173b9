package power

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"
)

// Spec is the user's choice of power source (the -power flag).
type Spec struct {
	// Kind is "off", "auto", "dcgm", "nvidia-smi", "amd-smi" or
	// "prometheus".
	Kind string
	// URL is the DCGM exporter's metrics URL or the Prometheus query URL.
	URL string
}

// ParseSpec reads off | auto | dcgm=URL | nvidia-smi | amd-smi |
// prometheus=URL ("" is auto).
func ParseSpec(s string) (Spec, error) {
	kind, u, hasURL := strings.Cut(strings.TrimSpace(s), "=")
	switch kind {
	case "":
		if hasURL {
			break
		}
		return Spec{Kind: "auto"}, nil
	case "off", "auto", "nvidia-smi", "amd-smi":
		if !hasURL {
			return Spec{Kind: kind}, nil
		}
		return Spec{}, fmt.Errorf("power source %q takes no URL", kind)
	case "dcgm", "prometheus":
		if !hasURL || u == "" {
			return Spec{}, fmt.Errorf("power source %s needs a URL: %s=http://host:port/…", kind, kind)
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return Spec{}, fmt.Errorf("power source %s: %q is not an http(s) URL", kind, displayURL(u))
		}
		return Spec{Kind: kind, URL: u}, nil
	}
	return Spec{}, fmt.Errorf("power source %q: want off, auto, dcgm=URL, nvidia-smi, amd-smi or prometheus=URL", s)
}

// Options are what sources are built with.
type Options struct {
	// Client makes the HTTP requests (nil: http.DefaultClient).
	Client *http.Client
	// Interval is the sampling interval of the DCGM and nvidia-smi
	// sources (default 100 ms; amd-smi samples every second at least).
	Interval time.Duration
	Timeouts Timeouts
	// LookPath finds a command (nil: exec.LookPath).
	LookPath func(string) (string, error)
}

// Source returns the source a non-auto spec names (nil for off).
func (s Spec) Source(o Options) (Source, error) {
	switch s.Kind {
	case "off":
		return nil, nil
	case "dcgm":
		return &DCGM{URL: s.URL, Client: o.Client, Interval: o.Interval, Timeouts: o.Timeouts}, nil
	case "prometheus":
		return &Prometheus{URL: s.URL, Client: o.Client, Timeouts: o.Timeouts}, nil
	case "nvidia-smi":
		return &NvidiaSMI{Interval: o.Interval, Timeouts: o.Timeouts}, nil
	case "amd-smi":
		return &AMDSMI{Interval: max(o.Interval, time.Second), Timeouts: o.Timeouts}, nil
	}
	return nil, fmt.Errorf("power source %q is found with Auto", s.Kind)
}

// Auto finds a source for the server at serverURL, trying in order the
// server's own /metrics and a DCGM exporter on the server's host at port
// 9400 (one scrape each that must show DCGM energy or power, bounded by
// probe; runner/sim serves DCGM's names on its own /metrics), then, when
// the server is on
// this machine (a loopback address), nvidia-smi and amd-smi in PATH. It
// returns nil and what it tried when none is found.
func Auto(ctx context.Context, serverURL string, probe time.Duration, o Options) (Source, []string) {
	var tried []string
	u, err := url.Parse(serverURL)
	if err != nil || u.Hostname() == "" {
		return nil, []string{fmt.Sprintf("server URL %q has no host", displayURL(serverURL))}
	}
	host := u.Hostname()
	own := *u
	own.Path, own.RawQuery, own.Fragment = "/metrics", "", ""
	for _, m := range []string{own.String(), "http://" + net.JoinHostPort(host, "9400") + "/metrics"} {
		d := &DCGM{URL: m, Client: o.Client, Interval: o.Interval, Timeouts: o.Timeouts}
		pctx, cancel := context.WithTimeout(ctx, probe)
		s, at, err := d.Scrape(pctx)
		cancel()
		if err == nil {
			_, err = s.Reading(at)
		}
		if err == nil {
			return d, tried
		}
		tried = append(tried, fmt.Sprintf("%s: %v", d.Name(), shortErr(err)))
	}
	if !isLoopback(host) {
		tried = append(tried, fmt.Sprintf("nvidia-smi and amd-smi not tried: the server (%s) is not on this machine", host))
		return nil, tried
	}
	look := o.LookPath
	if look == nil {
		look = exec.LookPath
	}
	if path, err := look("nvidia-smi"); err == nil {
		return &NvidiaSMI{Path: path, Interval: o.Interval, Timeouts: o.Timeouts}, tried
	}
	tried = append(tried, "nvidia-smi: not in PATH")
	if path, err := look("amd-smi"); err == nil {
		return &AMDSMI{Path: path, Interval: max(o.Interval, time.Second), Timeouts: o.Timeouts}, tried
	}
	tried = append(tried, "amd-smi: not in PATH")
	return nil, tried
}

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// shortErr strips the URL from a url.Error (the caller names it).
func shortErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
