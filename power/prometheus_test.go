package power

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParsePromQuery(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		value   float64
		series  int
		wantErr string
	}{
		{name: "vector of two GPUs", in: `{"status":"success","data":{"resultType":"vector","result":[
{"metric":{"__name__":"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION","gpu":"0"},"value":[1765087200.123,"1000"]},
{"metric":{"__name__":"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION","gpu":"1"},"value":[1765087200.123,"2500.5"]}]}}`, value: 3500.5, series: 2},
		{name: "scalar", in: `{"status":"success","data":{"resultType":"scalar","result":[1765087200,"42"]}}`, value: 42, series: 1},
		{name: "error answer", in: `{"status":"error","errorType":"bad_data","error":"parse error at char 4"}`, wantErr: "p:1: query failed: bad_data: parse error"},
		{name: "empty vector", in: "{\"status\":\"success\",\"data\":{\n\"resultType\":\"vector\",\"result\":[]}}", wantErr: "p:2: the query matched no series"},
		{name: "matrix", in: `{"status":"success","data":{"resultType":"matrix","result":[]}}`, wantErr: "p:1: result type \"matrix\""},
		{name: "NaN", in: `{"status":"success","data":{"resultType":"scalar","result":[1,"NaN"]}}`, wantErr: "p:1: scalar result: value \"NaN\""},
		{name: "syntax", in: "{\n\"status\":}", wantErr: "p:2: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParsePromQuery([]byte(tt.in), "p")
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Value != tt.value || r.Series != tt.series || len(r.Texts) != tt.series {
				t.Errorf("%+v, want %v over %d", r, tt.value, tt.series)
			}
		})
	}
}

// TestPrometheusLive serves a counter that rose at 200 W (in mJ) since
// an origin, evaluated at each query's time; the window's energy is then
// exact.
func TestPrometheusLive(t *testing.T) {
	origin := float64(time.Now().Add(-time.Hour).Unix())
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/query" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		queries = append(queries, q.Get("query")+"|"+q.Get("unit"))
		ts, err := strconv.ParseFloat(q.Get("time"), 64)
		if err != nil {
			http.Error(w, "no time", 400)
			return
		}
		mj := (ts - origin) * 200 * 1000
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[%.3f,"%f"]}]}}`, ts, mj)
	}))
	defer srv.Close()
	p := &Prometheus{URL: srv.URL}
	m, err := p.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	from := time.Now().Add(-10 * time.Second).Truncate(time.Millisecond)
	to := from.Add(5 * time.Second)
	e, err := m.Window(context.Background(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.J-1000) > 1e-3 || math.Abs(e.AvgW-200) > 1e-3 {
		t.Errorf("%+v, want 1000 J at 200 W", e)
	}
	if queries[0] != DefaultPromQuery+"|" {
		t.Errorf("query %q, want the default without unit", queries[0])
	}
	p.URL = srv.URL + "/api/v1/query?query=sum(x)&unit=J"
	e, err = m.Window(context.Background(), from, to)
	if err != nil || math.Abs(e.J-1e6) > 1 {
		t.Errorf("unit=J: %+v %v, want 1e6 J", e, err)
	}
	if got := queries[len(queries)-1]; got != "sum(x)|" {
		t.Errorf("query %q", got)
	}
}

func TestPrometheusHangs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer srv.Close()
	p := &Prometheus{URL: srv.URL, Timeouts: Timeouts{Request: 100 * time.Millisecond}}
	start := time.Now()
	if _, err := p.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("Start = %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Start took %v, bound 100 ms", d)
	}
}
