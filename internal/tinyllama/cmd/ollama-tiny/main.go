// Command ollama-tiny writes the tiny random-weight llama model
// (internal/tinyllama) and serves it with Ollama until interrupted, so
// that `run` can be tried against a real engine on any machine:
//
//	go run ./internal/tinyllama/cmd/ollama-tiny -addr 127.0.0.1:11434
//	run -url http://127.0.0.1:11434 -model tiny -contexts 256,1K -concurrency 1,4 -max-tokens 128 -duration 5s
//
// With -write FILE it only writes the GGUF file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"speedmatrix/internal/tinyllama"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ollama-tiny", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := tinyllama.OllamaConfig{Weights: tinyllama.DefaultConfig()}
	fs.StringVar(&cfg.Bin, "ollama", "", "the ollama binary (default: on PATH, else $GOBIN or $GOPATH/bin)")
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:11434", "address to serve on")
	fs.StringVar(&cfg.Dir, "dir", "", "directory for the model, OLLAMA_MODELS and the log (default: a temporary one, removed at exit)")
	fs.StringVar(&cfg.Model, "model", "tiny", "model name to create")
	fs.IntVar(&cfg.Parallel, "parallel", 4, "OLLAMA_NUM_PARALLEL: requests served at once")
	fs.IntVar(&cfg.Context, "ctx", 2048, "num_ctx: context of each request in tokens")
	fs.IntVar(&cfg.Threads, "threads", 1, "num_thread: llama.cpp compute threads (more than one spins on a busy machine)")
	fs.Uint64Var(&cfg.Weights.Seed, "seed", cfg.Weights.Seed, "seed of the random weights")
	write := fs.String("write", "", "only write the GGUF model to this `file`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ollama-tiny: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if *write != "" {
		if err := tinyllama.WriteFile(*write, cfg.Weights); err != nil {
			fmt.Fprintln(stderr, "ollama-tiny:", err)
			return 1
		}
		return 0
	}
	if err := serve(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "ollama-tiny:", err)
		return 1
	}
	return 0
}

// serve starts Ollama with the model and waits for ctx or the server's end.
func serve(ctx context.Context, cfg tinyllama.OllamaConfig, stdout, stderr io.Writer) error {
	if cfg.Bin == "" {
		bin, err := tinyllama.FindOllama()
		if err != nil {
			return fmt.Errorf("%w: go install github.com/ollama/ollama@v0.6.5", err)
		}
		cfg.Bin = bin
	}
	if cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "ollama-tiny-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.Dir = dir
	}
	start, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	o, err := tinyllama.StartOllama(start, cfg)
	if err != nil {
		return err
	}
	defer o.Close()
	fmt.Fprintln(stdout, o.URL)
	fmt.Fprintf(stderr, "ollama serving model %q at %s/v1 (%d parallel, num_ctx %d; log %s); interrupt to stop\n",
		o.Model, o.URL, cfg.Parallel, cfg.Context, o.LogPath)
	select {
	case <-ctx.Done():
		return nil
	case <-o.Exited():
		return fmt.Errorf("ollama serve exited (log %s)", o.LogPath)
	}
}
