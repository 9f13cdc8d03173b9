package power

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in, kind, url, wantErr string
	}{
		{in: "", kind: "auto"},
		{in: "off", kind: "off"},
		{in: "nvidia-smi", kind: "nvidia-smi"},
		{in: "amd-smi", kind: "amd-smi"},
		{in: "dcgm=http://gpu1:9400/metrics", kind: "dcgm", url: "http://gpu1:9400/metrics"},
		{in: "prometheus=https://prom:9090/api/v1/query?query=sum(x)", kind: "prometheus", url: "https://prom:9090/api/v1/query?query=sum(x)"},
		{in: "dcgm", wantErr: "needs a URL"},
		{in: "dcgm=gpu1:9400", wantErr: "not an http(s) URL"},
		{in: "nvidia-smi=x", wantErr: "takes no URL"},
		{in: "watts", wantErr: "want off, auto"},
		{in: "dcgm=http://user:secret@gpu1/metrics", kind: "dcgm", url: "http://user:secret@gpu1/metrics"},
	}
	for _, tt := range tests {
		s, err := ParseSpec(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || s.Kind != tt.kind || s.URL != tt.url {
			t.Errorf("%q: %+v %v", tt.in, s, err)
		}
	}
	s, _ := ParseSpec("dcgm=http://user:secret@gpu1/metrics")
	src, _ := s.Source(Options{})
	if strings.Contains(src.Name(), "secret") || strings.Contains(src.Name(), "user") {
		t.Errorf("name %q keeps the URL's user information", src.Name())
	}
}

// TestAuto: the server's own /metrics with DCGM's names, then a DCGM
// exporter on the server's host at :9400; without them, nvidia-smi in
// PATH for a loopback server only.
func TestAuto(t *testing.T) {
	none := func(string) (string, error) { return "", errors.New("not found") }
	smi := func(name string) (string, error) {
		if name == "nvidia-smi" {
			return "/usr/bin/nvidia-smi", nil
		}
		return "", errors.New("not found")
	}
	o := Options{LookPath: smi}
	// Port 9400 on 127.0.0.1 may be taken on a test machine; the
	// exporter is served there only when it is free.
	ln, err := net.Listen("tcp", "127.0.0.1:9400")
	if err == nil {
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintln(w, `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0"} 5`)
		})}
		go srv.Serve(ln)
		src, tried := Auto(context.Background(), "http://127.0.0.1:8000/v1", time.Second, o)
		if src == nil || src.Name() != "dcgm http://127.0.0.1:9400/metrics" || len(tried) != 1 {
			t.Errorf("with an exporter: %v", src)
		}
		srv.Close()
	} else {
		t.Logf("port 9400 taken (%v): the exporter case is not tried", err)
	}
	src, tried := Auto(context.Background(), "http://localhost:8000", 200*time.Millisecond, o)
	if src == nil || src.Name() != "nvidia-smi" || len(tried) != 2 {
		t.Errorf("loopback server: %v, tried %q", src, tried)
	}
	src, tried = Auto(context.Background(), "http://192.0.2.1:8000", 200*time.Millisecond, o)
	if src != nil || len(tried) != 3 || !strings.Contains(tried[2], "not on this machine") {
		t.Errorf("remote server: %v, tried %q", src, tried)
	}
	src, tried = Auto(context.Background(), "http://[::1]:8000", 200*time.Millisecond, Options{LookPath: none})
	if src != nil || len(tried) != 4 {
		t.Errorf("nothing found: %v, tried %q", src, tried)
	}
}

// TestAutoOwnMetrics: a server whose own /metrics carries DCGM's names
// (runner/sim with its energy model) is its own source.
func TestAutoOwnMetrics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0"} 5`)
	}))
	defer srv.Close()
	src, tried := Auto(context.Background(), srv.URL+"/v1?x=1", time.Second, Options{})
	if src == nil || src.Name() != "dcgm "+srv.URL+"/metrics" || len(tried) != 0 {
		t.Errorf("%v, tried %q", src, tried)
	}
}
