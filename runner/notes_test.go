package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"speedmatrix/schema"
)

func TestContextNotes(t *testing.T) {
	r := &Runner{
		cfg:  Config{Contexts: []int64{8192, 131072}, PrefillContexts: []int64{131072, 140000}, MaxTokens: 4096},
		info: ServerInfo{MaxModelLen: 131072},
	}
	got := r.contextNotes()
	want := []string{
		"128K (131072 tokens) measured as 123K (126912 tokens): max_model_len 131072 − max_tokens 4096 − 64",
		"136K (140000 tokens) measured as 127K (131007 tokens): max_model_len 131072 − max_tokens 1 − 64",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r.info.MaxModelLen = 0 // unknown: nothing is capped
	if n := r.contextNotes(); len(n) != 0 {
		t.Errorf("notes without a limit: %q", n)
	}
}

// TestContextChangedIsSaid runs against a server whose context limit
// makes a requested context shorter (by less than half: a larger cut is
// refused before any load, see TestUnservableContexts): the runner says so
// before any load and keeps the note on the run.
func TestContextChangedIsSaid(t *testing.T) {
	p := fastProfile()
	p.MaxModelLen = 4096 + 200 + 64 + 1500
	_, c := startSim(t, p, ClientConfig{})
	cfg := testConfig()
	cfg.Contexts, cfg.Concurrency, cfg.Duration = []int64{8192}, []int{1}, 300*time.Millisecond
	var notes []string
	cfg.Note = func(s string) { notes = append(notes, s) }
	r, err := New(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "8K (8192 tokens) measured as 5K") {
		t.Errorf("notes %q", notes)
	}
	var kept string
	for _, f := range m.Run.Metadata {
		if f.Key == NoteContextsChanged {
			kept = f.Value
		}
	}
	if len(notes) == 1 && kept != notes[0] {
		t.Errorf("run metadata %q, want the note", kept)
	}
	if m.Measurements[0].Phase != schema.PhasePrefill {
		t.Errorf("first cell %s", m.Measurements[0].Phase)
	}
}

// TestEngineNameNotInVersion: a /version that repeats the engine label
// ("speedmatrix-sim 1" for engine speedmatrix-sim) is stored as the
// version alone, so titles do not print the name twice.
func TestEngineNameNotInVersion(t *testing.T) {
	for _, tt := range []struct{ engine, reported, want string }{
		{"speedmatrix-sim", "speedmatrix-sim 1", "1"},
		{"vllm", "0.6.3", "0.6.3"},
		{"", "speedmatrix-sim 1", "speedmatrix-sim 1"},
		{"llama.cpp", "b1-80fb11a", "b1-80fb11a"},
	} {
		r := &Runner{c: &Client{model: "m"}, cfg: Config{Labels: Labels{Engine: tt.engine}}}
		var m schema.Matrix
		r.fillRun(&m, ServerInfo{Version: tt.reported}, time.Now())
		if m.Run.EngineVersion != tt.want {
			t.Errorf("engine %q reporting %q: version %q, want %q", tt.engine, tt.reported, m.Run.EngineVersion, tt.want)
		}
	}
}
