package sim

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Version is what GET /version reports as the simulator's version.
const Version = "speedmatrix-sim 1"

// Server is the simulated OpenAI-compatible server. It is an http.Handler;
// Start also serves it on a loopback port.
type Server struct {
	p      Profile
	tok    Tokenizer
	eng    *engine
	m      counters
	epoch  time.Time
	model  []byte // JSON-encoded model name
	seqNum atomic.Uint64
	// inflight counts requests between arrival and end, for LoopCells.
	inflight atomic.Int64
	loops    map[LoopCell]bool

	mu      sync.Mutex
	records []*record
	// ledger is the record of the energy attributed (energy.go).
	ledger energyLedger

	httpSrv *http.Server
	closeMu sync.Once
}

// counters are the server-side figures /metrics reports.
type counters struct {
	promptTokens, generationTokens, preemptions atomic.Int64
	prefixQueries, prefixHits                   atomic.Int64
	running, waiting, kvUsed                    atomic.Int64
	successStop, successLength                  atomic.Int64
	specDrafts, specDraftTokens, specAccepted   atomic.Int64
}

// New returns a server for profile p (zero fields take DefaultProfile's
// values) with its engine running. Close stops it.
func New(p Profile) *Server {
	p = p.withDefaults()
	s := &Server{p: p, tok: Tokenizer{CharsPerToken: p.CharsPerToken}, epoch: time.Now()}
	s.model, _ = json.Marshal(p.ModelName)
	if len(p.LoopCells) > 0 {
		s.loops = make(map[LoopCell]bool)
		for _, c := range p.LoopCells {
			s.loops[c] = true
		}
	}
	s.eng = newEngine(&s.p, &s.m)
	s.ledger.epoch = s.epoch
	if p.Energy.GPUs > 0 {
		s.eng.ledger = &s.ledger
	}
	go s.eng.run()
	return s
}

// Start creates a server for p and serves it on 127.0.0.1 at a free port.
// It returns the server and its base URL ("http://127.0.0.1:port", without
// /v1).
func Start(p Profile) (*Server, string, error) {
	return Listen(p, "127.0.0.1:0")
}

// Listen is Start on a given address ("127.0.0.1:8000", ":0"), for
// clients in other processes (run -serve-sim).
func Listen(p Profile, addr string) (*Server, string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("sim: listen: %w", err)
	}
	s := New(p)
	s.httpSrv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.httpSrv.Serve(ln) }()
	return s, "http://" + ln.Addr().String(), nil
}

// Close stops serving (closing open connections when Start served it) and
// stops the engine; requests in flight end with an error.
func (s *Server) Close() {
	s.closeMu.Do(func() {
		if s.httpSrv != nil {
			_ = s.httpSrv.Close()
		}
		s.eng.close()
	})
}

// Stats reports the engine's pacing so far.
func (s *Server) Stats() EngineStats {
	st := &s.eng.stats
	n := st.steps.Load()
	out := EngineStats{Steps: n, MaxOvershoot: time.Duration(st.lateMax.Load()), Resets: st.resets.Load(), Lost: time.Duration(st.lost.Load())}
	if n > 0 {
		out.MeanOvershoot = time.Duration(st.lateSum.Load() / n)
	}
	return out
}

// Profile returns the profile the server runs, defaults filled in.
func (s *Server) Profile() Profile { return s.p }

// ServeHTTP routes the OpenAI-compatible and vLLM endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.p.APIKey != "" && strings.HasPrefix(r.URL.Path, "/v1/") &&
		subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+s.p.APIKey)) != 1 {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Unauthorized"})
		return
	}
	switch r.URL.Path {
	case "/v1/chat/completions":
		s.handleGenerate(w, r, true)
	case "/v1/completions":
		s.handleGenerate(w, r, false)
	case "/tokenize":
		if s.p.NoTokenize {
			http.NotFound(w, r)
			return
		}
		s.handleTokenize(w, r)
	case "/v1/models":
		s.handleModels(w, r)
	case "/version":
		writeJSON(w, http.StatusOK, map[string]any{"version": Version, "profile": s.p.Name, "speedup": s.p.Speedup})
	case "/health":
		w.WriteHeader(http.StatusOK)
	case "/metrics":
		if s.p.NoMetrics {
			http.NotFound(w, r)
			return
		}
		s.handleMetrics(w, r)
	case "/get_server_info":
		if !s.p.SGLangServerInfo {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"max_total_num_tokens": s.p.KVTokens,
			"model_path":           s.p.ModelName,
			"context_length":       s.p.MaxModelLen,
			"version":              Version,
		})
	default:
		writeError(w, http.StatusNotFound, "NotFoundError", "no route "+r.URL.Path)
	}
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	type model struct {
		ID          string `json:"id"`
		Object      string `json:"object"`
		Created     int64  `json:"created"`
		OwnedBy     string `json:"owned_by"`
		Root        string `json:"root"`
		MaxModelLen int64  `json:"max_model_len"`
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []model{{
			ID: s.p.ModelName, Object: "model", Created: s.epoch.Unix(), OwnedBy: "speedmatrix-sim",
			Root: s.p.ModelName, MaxModelLen: s.p.MaxModelLen,
		}},
	})
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"message":"encode"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// apiError is the OpenAI error object.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

// writeError answers with an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]apiError{"error": {Message: msg, Type: typ, Code: status}})
}

// sleepCtx sleeps for d or until ctx ends, reporting whether it slept
// fully.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
