package dashboard

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/archive/store"
	"speedmatrix/schema"
)

// TestTableChangesUnderneath serves a shared table (SQLite catalog, local
// warehouse) while another host appends a run: with Recheck 0 the next
// page lists it; with a long Recheck the page keeps the state it checked.
func TestTableChangesUnderneath(t *testing.T) {
	ctx := context.Background()
	ta := newTestArchive(t)
	tmp := filepath.ToSlash(t.TempDir())
	ref := "iceberg+sqlite://" + tmp + "/c.db?warehouse=file://" + tmp + "/wh#bench"
	tbl, err := store.Open(ctx, ref, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	if _, err := store.Table(tbl).Push(ctx, ta.arc); err != nil {
		t.Fatal(err)
	}
	every := New(tbl, Options{})
	lazy := New(tbl, Options{Recheck: time.Hour})
	for _, h := range []http.Handler{every, lazy} {
		if _, body, _ := get(t, h, "/runs"); len(rowsOf(body)) != ta.n {
			t.Fatalf("%d rows, want %d", len(rowsOf(body)), ta.n)
		}
	}
	other, err := store.Open(ctx, ref, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ms, err := ta.arc.Load(ctx, ta.bf16)
	if err != nil {
		t.Fatal(err)
	}
	m := *ms[0]
	m.Run.Title = "appended by another host"
	m.Run.RunID = schema.ComputeRunID(&m)
	m.Measurements = append([]schema.Measurement(nil), m.Measurements...)
	for i := range m.Measurements {
		m.Measurements[i].RunID = m.Run.RunID
	}
	m.Samples = nil
	if _, err := other.Append(ctx, []*schema.Matrix{&m}); err != nil {
		t.Fatal(err)
	}
	if _, body, _ := get(t, every, "/runs"); len(rowsOf(body)) != ta.n+1 || !strings.Contains(body, "appended by another host") {
		t.Errorf("Recheck 0: %d rows after another host's append, want %d", len(rowsOf(body)), ta.n+1)
	}
	if code, body, _ := get(t, every, "/run?id="+m.Run.RunID); code != 200 || !strings.Contains(body, "appended by another host") {
		t.Errorf("Recheck 0: the appended run's page: %d %.300s", code, body)
	}
	if _, body, _ := get(t, lazy, "/runs"); len(rowsOf(body)) != ta.n {
		t.Errorf("Recheck 1h: %d rows, want the %d checked before", len(rowsOf(body)), ta.n)
	}
}

// TestRunsFillFromMetadata: a run whose GPU and engine columns are blank
// and whose metadata names them is listed, filtered and sorted with
// them, as compare -list fills them (report.RunListing.Complete).
func TestRunsFillFromMetadata(t *testing.T) {
	ctx := context.Background()
	ta := newTestArchive(t)
	ms, err := ta.arc.Load(ctx, ta.int4)
	if err != nil {
		t.Fatal(err)
	}
	m := *ms[0]
	m.Run.GPU, m.Run.Engine, m.Run.Title = "", "", "blank columns"
	m.Run.Metadata = []schema.Field{{Key: "GPU", Value: "B200-from-metadata"}, {Key: "backend", Value: "sglang"}}
	m.Run.RunID = schema.ComputeRunID(&m)
	m.Measurements = append([]schema.Measurement(nil), m.Measurements...)
	for i := range m.Measurements {
		m.Measurements[i].RunID = m.Run.RunID
	}
	m.Samples = nil
	if _, err := ta.arc.Append(ctx, []*schema.Matrix{&m}); err != nil {
		t.Fatal(err)
	}
	h := newServer(ta.arc, Options{})
	code, body, _ := get(t, h, "/runs?gpu=b200-from&engine=sglang")
	if rows := rowsOf(body); code != 200 || len(rows) != 1 || rows[0] != m.Run.RunID {
		t.Errorf("status %d, rows %v, want the run whose metadata names the GPU and engine", code, rows)
	}
	if !strings.Contains(body, "<td>B200-from-metadata</td>") {
		t.Errorf("the GPU column does not show the metadata's GPU")
	}
}
