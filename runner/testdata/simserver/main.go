// Command simserver serves the simulator in its own process for the
// runner's client-cost benchmark, so that the client's CPU time is
// measured apart from the server's. It prints its base URL on stdout,
// serves GET /_truth (every request's chunks with wall-clock times) and
// exits when stdin closes.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"speedmatrix/runner/sim"
)

type truthReq struct {
	StartNs int64      `json:"start_ns"`
	FirstNs int64      `json:"first_ns"`
	Fault   string     `json:"fault,omitempty"`
	Max     int64      `json:"max_tokens"`
	Chunks  [][2]int64 `json:"chunks"` // unix ns, tokens
}

func main() {
	step := flag.Duration("step", 2*time.Millisecond, "decode step base time")
	perSeq := flag.Duration("per-seq", 0, "decode step time per running request")
	chunk := flag.Int("chunk", 1, "tokens per chunk")
	strict := flag.Bool("strict", false, "never merge steps: one step's tokens per SSE event, each its own write and flush")
	flag.Parse()
	p := sim.DefaultProfile()
	p.StepBase, p.StepPerSeq, p.StepPerKToken, p.ChunkTokens = *step, *perSeq, 0, *chunk
	p.MaxRunning = 8192
	p.StrictChunks = *strict
	s := sim.New(p)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/", s)
	mux.HandleFunc("/_truth", func(w http.ResponseWriter, r *http.Request) {
		var out []truthReq
		for _, q := range s.Requests() {
			t := truthReq{StartNs: q.Start.UnixNano(), Fault: q.Fault, Max: q.MaxTokens}
			if !q.FirstToken.IsZero() {
				t.FirstNs = q.FirstToken.UnixNano()
			}
			for _, c := range q.Chunks {
				t.Chunks = append(t.Chunks, [2]int64{c.At.UnixNano(), int64(c.Tokens)})
			}
			out = append(out, t)
		}
		s.Reset()
		json.NewEncoder(w).Encode(out)
	})
	go http.Serve(ln, mux)
	fmt.Printf("http://%s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	s.Close()
}
