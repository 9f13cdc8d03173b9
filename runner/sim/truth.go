package sim

import (
	"sync"
	"time"
)

// ChunkRecord is one SSE event that carried tokens: when the server's
// write and flush of it returned, and how many tokens it carried.
type ChunkRecord struct {
	At     time.Time
	Tokens int
}

// RequestRecord is the simulator's truth about one request: what it
// actually sent and when, not what its profile asked for. Times carry the
// monotonic clock, so they compare exactly with a client's time.Now in the
// same process.
type RequestRecord struct {
	// ID is the response id ("chatcmpl-…", "cmpl-…"); N the 1-based
	// arrival number that fault schedules count.
	ID       string
	N        uint64
	Endpoint string // "chat" or "completions"
	Stream   bool
	// Status is the HTTP status sent (200 for streams that later fail).
	Status int
	// Fault describes the injected fault, "" when none.
	Fault string

	// Start is when the request arrived: when its handler began, after the
	// request headers and before the body was read.
	Start time.Time
	// FirstChunk is when the role-only chunk was written; FirstToken when
	// the first chunk carrying tokens (reasoning or content) was;
	// FirstContent when the first content token was. Zero when not sent.
	FirstChunk   time.Time
	FirstToken   time.Time
	FirstContent time.Time
	// Finished is when the response ended (after [DONE] or the last byte),
	// zero while it is in flight.
	Finished time.Time

	PromptTokens int64
	// CachedTokens is the prompt prefix served from the prefix cache.
	CachedTokens int64
	// MaxTokens is the request's limit; OutputTokens the tokens actually
	// sent (the sum of Chunks' Tokens); ReasoningTokens those of them sent
	// as reasoning.
	MaxTokens       int64
	OutputTokens    int64
	ReasoningTokens int64
	Chunks          []ChunkRecord
	// Preemptions counts how often the engine preempted the request.
	Preemptions int
	// FinishReason is "stop" or "length" for completed requests.
	FinishReason string
	// Err says why a request failed ("" when it completed).
	Err string
}

// Duration returns Finished − Start, or 0 while in flight.
func (r *RequestRecord) Duration() time.Duration {
	if r.Finished.IsZero() {
		return 0
	}
	return r.Finished.Sub(r.Start)
}

// chunkRec is the compact form of a ChunkRecord kept while serving.
type chunkRec struct {
	at     int64 // ns since the server's epoch
	tokens int32
}

// record is the live, mutable truth of one request. The handler goroutine
// writes it; Requests copies it under mu.
type record struct {
	mu     sync.Mutex
	r      RequestRecord // Chunks stays nil here
	chunks []chunkRec
}

// addChunk appends one written chunk (at is ns since epoch) and sets the
// first-token times.
func (rec *record) addChunk(at int64, tokens int, reasoning bool, epoch time.Time) {
	rec.mu.Lock()
	rec.chunks = append(rec.chunks, chunkRec{at: at, tokens: int32(tokens)})
	rec.r.OutputTokens += int64(tokens)
	if rec.r.FirstChunk.IsZero() {
		rec.r.FirstChunk = epoch.Add(time.Duration(at))
	}
	if rec.r.FirstToken.IsZero() {
		rec.r.FirstToken = epoch.Add(time.Duration(at))
	}
	if reasoning {
		rec.r.ReasoningTokens += int64(tokens)
	} else if rec.r.FirstContent.IsZero() {
		rec.r.FirstContent = epoch.Add(time.Duration(at))
	}
	rec.mu.Unlock()
}

// update runs f on the record under its lock.
func (rec *record) update(f func(r *RequestRecord)) {
	rec.mu.Lock()
	f(&rec.r)
	rec.mu.Unlock()
}

// snapshot returns a copy with Chunks filled from the compact form.
func (rec *record) snapshot(epoch time.Time) RequestRecord {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	r := rec.r
	r.Chunks = make([]ChunkRecord, len(rec.chunks))
	for i, c := range rec.chunks {
		r.Chunks[i] = ChunkRecord{At: epoch.Add(time.Duration(c.at)), Tokens: int(c.tokens)}
	}
	return r
}

// Requests returns a copy of the truth about every request since New or
// the last Reset, in arrival order. Requests still in flight are included
// as they stand.
func (s *Server) Requests() []RequestRecord {
	s.mu.Lock()
	recs := s.records
	if k := s.p.MaxRecords; k > 0 && len(recs) > k {
		recs = recs[len(recs)-k:]
	}
	recs = append([]*record(nil), recs...)
	s.mu.Unlock()
	out := make([]RequestRecord, len(recs))
	for i, rec := range recs {
		out[i] = rec.snapshot(s.epoch)
	}
	return out
}

// Reset forgets the recorded requests (requests in flight keep recording
// into records no longer returned). Counters in /metrics and the prefix
// cache are kept, as a real server's are. Long runs call it between cells
// to bound memory (16 bytes per chunk).
func (s *Server) Reset() {
	s.mu.Lock()
	clear(s.records)
	s.records = s.records[:0]
	s.mu.Unlock()
	s.ledger.forget()
}

// addRecord keeps rec, dropping the oldest records beyond MaxRecords (in
// batches, so the cost per request stays constant).
func (s *Server) addRecord(rec *record) {
	s.mu.Lock()
	s.records = append(s.records, rec)
	if k := s.p.MaxRecords; k > 0 && len(s.records) >= 2*k {
		n := copy(s.records, s.records[len(s.records)-k:])
		clear(s.records[n:])
		s.records = s.records[:n]
	}
	s.mu.Unlock()
}
