package sim

import (
	"bytes"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"speedmatrix/power"
)

// TestEnergyCounter: the DCGM counter /metrics serves is, at each
// sample's timestamp, the energy the model attributes since the server
// started, split over its GPUs, and it rises by JoulesPerToken per
// generated token besides the idle power.
func TestEnergyCounter(t *testing.T) {
	s := New(Profile{Energy: EnergyModel{GPUs: 2, IdleW: 50, JoulesPerToken: 0.5}})
	defer s.Close()
	scrape := func() power.Reading {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		sc, err := power.ParseDCGM(bytes.NewReader(w.Body.Bytes()), "sim /metrics")
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Energy) != 2 || len(sc.Power) != 2 || sc.Energy[0].At.IsZero() {
			t.Fatalf("scrape %+v", sc)
		}
		r, err := sc.Reading(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := scrape()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("POST", "/v1/completions", strings.NewReader(`{"prompt":"energy","max_tokens":200,"ignore_eos":true}`)))
	if w.Code != 200 {
		t.Fatalf("completion: %d %s", w.Code, w.Body)
	}
	time.Sleep(5 * time.Millisecond)
	b := scrape()
	j, tokens := s.EnergyBetween(a.At, b.At)
	if tokens != 200 {
		t.Errorf("%d tokens generated between the scrapes, want 200", tokens)
	}
	if want := 2*50*b.At.Sub(a.At).Seconds() + 0.5*200; math.Abs(j-want) > 1e-9*want {
		t.Errorf("record %v J, want %v", j, want)
	}
	if got := b.EnergyJ - a.EnergyJ; math.Abs(got-j) > 1e-9*j {
		t.Errorf("counter rose %v J, the record says %v", got, j)
	}
	since, _ := s.EnergyBetween(s.epoch, b.At)
	if math.Abs(b.EnergyJ-since) > 1e-9*since {
		t.Errorf("counter %v J, want the energy since start %v", b.EnergyJ, since)
	}
	s.Reset()
	if n := len(s.ledger.at); n != 1 {
		t.Errorf("%d steps kept after Reset, want the latest only", n)
	}
	if _, tok := s.EnergyBetween(s.epoch, b.At); tok != 200 {
		t.Errorf("after Reset %d tokens by the last scrape, want 200 (counted at the latest step)", tok)
	}
}

// TestEnergyOff: the zero model serves no DCGM series and keeps no
// record.
func TestEnergyOff(t *testing.T) {
	s := New(Profile{})
	defer s.Close()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if strings.Contains(w.Body.String(), "DCGM_") {
		t.Error("DCGM series served with the energy model off")
	}
	if s.eng.ledger != nil {
		t.Error("a ledger kept with the energy model off")
	}
}
