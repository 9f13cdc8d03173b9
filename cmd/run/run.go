package runcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"speedmatrix/archive"
	"speedmatrix/docspec"
	"speedmatrix/internal/cliflag"
	"speedmatrix/parse"
	"speedmatrix/redact"
	"speedmatrix/render"
	"speedmatrix/runner"
	"speedmatrix/runner/sim"
	"speedmatrix/schema"
)

// Exit codes.
const (
	exitOK          = 0
	exitFail        = 1
	exitUsage       = 2
	exitInterrupted = 130
)

type options struct {
	url, model, contexts, concurrency, prefillContexts string
	duration                                           time.Duration
	maxTokens                                          int
	endpoint, prefill, archive, out                    string
	kvTokens                                           int64
	gpu, quantization, engine, engineVersion, launch   string
	vramGB                                             float64
	apiKeyEnv                                          string
	resume                                             bool
	simulate, serveSim                                 string
	terminal                                           bool // stderr is a terminal (not a flag)
	timeouts                                           runner.Timeouts
	startTimeout, drainTimeout                         time.Duration
	serve                                              serveFlags
	power                                              string // -power (power.go)
	// set holds the names of the flags given on the command line.
	set map[string]bool
}

func parseFlags(args []string, stdout, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.url, "url", "", "server base URL (http://host:port, with or without /v1)")
	fs.StringVar(&o.model, "model", "", "served model name")
	fs.StringVar(&o.contexts, "contexts", "", "decode context lengths, e.g. 8K,16K,32K")
	fs.StringVar(&o.concurrency, "concurrency", "1", "simultaneous requests per decode cell, e.g. 1,2,4,8")
	fs.StringVar(&o.prefillContexts, "prefill-contexts", "", "prefill context lengths (default: -contexts)")
	fs.DurationVar(&o.duration, "duration", 30*time.Second, "measurement window of a decode cell")
	fs.IntVar(&o.maxTokens, "max-tokens", 4096, "max_tokens of every decode request")
	fs.StringVar(&o.endpoint, "endpoint", runner.EndpointChat, "chat or completions")
	fs.StringVar(&o.prefill, "prefill", runner.PrefillWarmup, "prefill measurement: warmup (the cell's first scout) or standalone (median of unique prompts)")
	fs.StringVar(&o.archive, "archive", "", "archive directory to append the run to (default $SPEEDMATRIX_ARCHIVE, else ./archive when it exists; created when missing, never its parent)")
	fs.StringVar(&o.out, "out", "", "write the matrix as a document (.md, .html or .txt)")
	fs.Int64Var(&o.kvTokens, "kv-tokens", 0, "KV cache budget in tokens (default: asked from the server)")
	fs.StringVar(&o.gpu, "gpu", "", "GPU label, e.g. \"H200 NVL\"")
	fs.Float64Var(&o.vramGB, "vram-gb", 0, "GPU memory in GB")
	fs.StringVar(&o.quantization, "quantization", "", "quantization label, e.g. BF16")
	fs.StringVar(&o.engine, "engine", "", "engine label, e.g. vllm")
	fs.StringVar(&o.engineVersion, "engine-version", "", "engine version (default: the server's /version)")
	fs.StringVar(&o.launch, "launch-command", "", "the server's launch command (stored with secrets redacted)")
	fs.StringVar(&o.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the API key (never stored or printed)")
	fs.BoolVar(&o.resume, "resume", false, "continue an interrupted run from its checkpoint")
	fs.StringVar(&o.simulate, "simulate", "", "measure the built-in simulator: \"default\", or a document or archive directory to calibrate it from")
	def := runner.DefaultTimeouts()
	fs.DurationVar(&o.timeouts.Connect, "connect-timeout", def.Connect, "bound on connecting to the server")
	fs.DurationVar(&o.timeouts.Request, "request-timeout", def.Request, "bound on each small request and its answer (/v1/models, /version, /props, /info, /tokenize)")
	fs.DurationVar(&o.timeouts.Metrics, "metrics-timeout", def.Metrics, "bound on each /metrics scrape; a scrape past it is skipped and the cell says so")
	fs.DurationVar(&o.timeouts.Header, "header-timeout", def.Header, "bound on a one-token probe's wait for its response headers, then for its first event (a cold prefill of the longest context)")
	fs.DurationVar(&o.timeouts.Idle, "idle-timeout", def.Idle, "a streaming request that receives nothing for this long fails as stalled")
	fs.DurationVar(&o.timeouts.IdleConn, "idle-conn-timeout", def.IdleConn, "how long an unused connection is kept for reuse; keep it below the server's keep-alive (llama.cpp: 5s)")
	fs.DurationVar(&o.startTimeout, "start-timeout", 10*time.Minute, "bound on a decode cell's ramp-up: every stream's first token")
	fs.DurationVar(&o.drainTimeout, "drain-timeout", time.Minute, "bound on the wait, after the ramp-up, for /metrics to show the server's queue drained; past it the window opens and the cell says so")
	fs.StringVar(&o.serveSim, "serve-sim", "", "with -simulate: serve the simulator on this `address` (e.g. 127.0.0.1:8000) for other clients until interrupted, instead of measuring; its URL goes to stdout")
	o.serve.define(fs)
	definePower(fs, o)
	if err := cliflag.Parse(fs, args, help, stdout); err != nil {
		return nil, err
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"connect-timeout", o.timeouts.Connect}, {"request-timeout", o.timeouts.Request}, {"metrics-timeout", o.timeouts.Metrics},
		{"header-timeout", o.timeouts.Header}, {"idle-timeout", o.timeouts.Idle}, {"idle-conn-timeout", o.timeouts.IdleConn},
		{"start-timeout", o.startTimeout}, {"drain-timeout", o.drainTimeout}} {
		if d.v <= 0 {
			return nil, fmt.Errorf("-%s %v: want a positive duration", d.name, d.v)
		}
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stdout, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		if errors.Is(err, cliflag.ErrReported) {
			return exitUsage
		}
		fmt.Fprintln(stderr, "run:", err)
		return exitUsage
	}
	// Note: everything the command prints passes one scrubber, which
	// knows the API key and the -url password; the runner scrubs what it
	// stores the same way.
	o.terminal = isTerminal(stderr)
	sc := redact.NewScrubber(append([]string{os.Getenv(o.apiKeyEnv)}, redact.URLSecrets(o.url)...)...)
	stdout, stderr = sc.Writer(stdout), sc.Writer(stderr)
	do := measure
	if o.serveSim != "" {
		do = serveSimulator
	}
	if err := do(ctx, o, stdout, stderr); err != nil {
		if errors.Is(err, errInterrupted) {
			fmt.Fprintln(stderr, "run:", err)
			return exitInterrupted
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(stderr, "run:", err)
			return exitUsage
		}
		fmt.Fprintln(stderr, "run:", err)
		return exitFail
	}
	return exitOK
}

type usageError struct{ error }

var errInterrupted = errors.New("interrupted")

// serveSimulator serves the -simulate simulator on -serve-sim's address
// until ctx ends, so that other clients (vLLM's bench serve, guidellm,
// AIPerf) can be measured against the same server and the same truth
// (its /metrics count what it sent). The base URL is printed on stdout.
func serveSimulator(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	if o.simulate == "" {
		return usageError{errors.New("-serve-sim needs -simulate PROFILE")}
	}
	if o.url != "" || o.archive != "" || o.out != "" || o.resume {
		return usageError{errors.New("-serve-sim only serves: -url, -archive, -out and -resume do not apply")}
	}
	srv, url, _, p, err := simulator(o.simulate, o.serveSim)
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintln(stdout, url)
	fmt.Fprintf(stderr, "simulator %q serving model %q at %s/v1 (metrics at %s/metrics); interrupt to stop\n", p.Name, p.ModelName, url, url)
	<-ctx.Done()
	st := srv.Stats()
	fmt.Fprintf(stderr, "simulator stopped: %d engine steps, mean lateness %v, max %v\n", st.Steps, st.MeanOvershoot, st.MaxOvershoot)
	return nil
}

// simulator starts the in-process simulator for -simulate on addr (a free
// loopback port when empty) and returns its URL, the profile's model, and
// the matrix it was calibrated from (nil for "default").
func simulator(spec, addr string) (*sim.Server, string, *schema.Matrix, sim.Profile, error) {
	var p sim.Profile
	var from *schema.Matrix
	if spec == "default" {
		p = sim.DefaultProfile()
	} else {
		m, err := loadMatrix(spec)
		if err != nil {
			return nil, "", nil, p, err
		}
		if p, err = sim.ProfileFromMatrix(m); err != nil {
			return nil, "", nil, p, fmt.Errorf("-simulate %s: %w", spec, err)
		}
		from = m
	}
	// The command never reads the simulator's truth records: keep only a
	// few so an hour-long simulated run does not grow without bound.
	p.MaxRecords = 1024
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	srv, url, err := sim.Listen(p, addr)
	if err != nil {
		return nil, "", nil, p, err
	}
	return srv, url, from, p, nil
}

// loadMatrix reads a document, or the latest run of an archive directory.
func loadMatrix(path string) (*schema.Matrix, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return parse.Parse(f, path, "")
	}
	a, err := archive.Open(path)
	if err != nil {
		return nil, err
	}
	runs, err := a.Runs(context.Background())
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("archive %s holds no runs", path)
	}
	ms, err := a.Load(context.Background(), runs[len(runs)-1].RunID)
	if err != nil {
		return nil, err
	}
	return ms[0], nil
}

// matrixAxes returns the decode contexts, concurrency levels and prefill
// contexts of a matrix, as flag strings.
func matrixAxes(m *schema.Matrix) (contexts, concurrency, prefill string) {
	var cs, cc, ps []string
	seen := map[string]bool{}
	for _, x := range m.Measurements {
		if x.ContextTokens == nil {
			continue
		}
		t := fmt.Sprint(*x.ContextTokens)
		switch x.Phase {
		case schema.PhaseDecode:
			if !seen["c"+t] {
				seen["c"+t] = true
				cs = append(cs, t)
			}
			if x.Concurrency != nil {
				k := fmt.Sprint(*x.Concurrency)
				if !seen["n"+k] {
					seen["n"+k] = true
					cc = append(cc, k)
				}
			}
		case schema.PhasePrefill:
			if !seen["p"+t] {
				seen["p"+t] = true
				ps = append(ps, t)
			}
		}
	}
	return strings.Join(cs, ","), strings.Join(cc, ","), strings.Join(ps, ",")
}

func measure(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	var simProfile sim.Profile
	if o.simulate != "" {
		srv, url, from, p, err := simulator(o.simulate, "")
		if err != nil {
			return err
		}
		defer srv.Close()
		simProfile = p
		if o.url != "" {
			return usageError{errors.New("-simulate and -url are exclusive")}
		}
		o.url = url
		if o.model == "" {
			o.model = p.ModelName
		}
		if from != nil && o.serve.rates == "" {
			c, n, pf := matrixAxes(from)
			if o.contexts == "" {
				o.contexts = c
			}
			if o.concurrency == "1" && n != "" {
				o.concurrency = n
			}
			if o.prefillContexts == "" {
				o.prefillContexts = pf
			}
		}
		if o.engine == "" {
			o.engine = "speedmatrix-sim"
		}
		if o.gpu == "" {
			o.gpu = "simulated (" + p.Name + ")"
		}
	}
	if o.url == "" {
		return usageError{errors.New("-url is required (or -simulate)")}
	}
	if o.model == "" {
		return usageError{errors.New("-model is required")}
	}
	serve, err := o.serveConfig()
	if err != nil {
		return usageError{err}
	}
	if serve != nil {
		fmt.Fprintf(stderr, "run: open-loop rates %s, %s arrivals, seed %d (-seed %d repeats them)\n", o.serve.rates, serve.Arrival, serve.Seed, serve.Seed)
	}
	var contexts, prefill []int64
	var conc []int
	if serve == nil {
		if contexts, conc, prefill, err = matrixFlags(o); err != nil {
			return err
		}
	}
	if o.out != "" {
		if _, err := render.ByExtension(o.out); err != nil {
			return usageError{err}
		}
	}
	maxC := 1
	for _, c := range conc {
		maxC = max(maxC, c)
	}
	if serve != nil {
		maxC = max(serve.MaxInFlight, serve.ProbeConcurrency)
	}
	client, err := runner.NewClient(runner.ClientConfig{
		URL: o.url, Model: o.model, Endpoint: o.endpoint,
		APIKey: os.Getenv(o.apiKeyEnv), MaxConns: maxC, Timeouts: o.timeouts,
	})
	if err != nil {
		return usageError{err}
	}
	defer client.Close()

	labels := runner.Labels{GPU: o.gpu, Quantization: o.quantization, Engine: o.engine, EngineVersion: o.engineVersion}
	if o.vramGB > 0 {
		labels.VRAMGB = schema.F64(o.vramGB)
	}
	if o.launch != "" {
		l := docspec.ParseLaunch(o.launch)
		labels.LaunchCommand = l.Command
		labels.Extra = func(r *schema.Run) {
			r.TensorParallel = l.TensorParallel
			// The GPU count the document's launch command implies, as
			// parse reads it back (docspec's Launch.GPUs), so the run's
			// document ingests to the run's own id.
			if n, _ := l.GPUs(); r.GPUCount == nil && n >= 1 && n <= math.MaxInt32 {
				r.GPUCount = schema.I32(int32(n))
			}
			if r.MaxModelLen == nil {
				r.MaxModelLen = l.MaxModelLen
			}
			r.GPUMemoryUtilization = l.GPUMemoryUtilization
			r.LaunchQuantization = l.Quantization
			r.LaunchDType = l.DType
			r.LaunchFlags = l.Flags
			if r.ModelID == r.Model && l.ModelID != "" {
				r.ModelID = l.ModelID
			}
		}
	}

	if o.simulate != "" {
		markSimulated(&labels, simProfile.Name)
	}
	if err := resolveArchive(o, stderr); err != nil {
		return usageError{err}
	}
	key := checkpointKey(o)
	cpPath := checkpointPath(o, key)
	if err := writable(o, cpPath); err != nil {
		return usageError{err}
	}
	if !o.resume {
		if err := checkpointFree(cpPath, key); err != nil {
			return usageError{err}
		}
	}
	cfg := runner.Config{
		Contexts: contexts, PrefillContexts: prefill, Concurrency: conc,
		Duration: o.duration, MaxTokens: o.maxTokens, PrefillMode: o.prefill,
		KVTokens: o.kvTokens, Labels: labels,
		IdleTimeout: o.timeouts.Idle, StartTimeout: o.startTimeout, DrainTimeout: o.drainTimeout,
		Warn:  func(msg string) { fmt.Fprintln(stderr, "run: warning:", msg) },
		Serve: serve,
	}
	if serve == nil {
		if cfg.Power, err = powerSource(ctx, o, stderr); err != nil {
			return usageError{err}
		}
	}
	if o.simulate != "" && simProfile.Speedup > 1 {
		fmt.Fprintf(stderr, "run: simulator %q runs %.0f× faster than the run it was calibrated from\n", simProfile.Name, simProfile.Speedup)
	}
	unit := "cells" // what a checkpoint holds
	if serve != nil {
		unit = "rates"
	}
	if o.resume {
		cp, err := runner.LoadCheckpoint(cpPath)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return usageError{fmt.Errorf("-resume: no checkpoint at %s", cpPath)}
		case err != nil:
			return err
		case cp.Key != key:
			return usageError{fmt.Errorf("-resume: checkpoint %s is of a run with other settings: give that run's flags, or delete the file to discard it", cpPath)}
		case cp.Complete:
			fmt.Fprintf(stderr, "run: the run in %s is finished (%d cells); writing its document and archive\n", cpPath, len(cp.Matrix.Measurements))
			return commit(o, cpPath, cp.Matrix, stdout, stderr)
		}
		cfg.Tag, cfg.Done = cp.Tag, cp.Matrix
		if serve != nil && !o.set["seed"] {
			// The arrivals and lengths of the rates still to run are
			// those the interrupted run drew.
			serve.Seed = cp.Seed
			fmt.Fprintf(stderr, "run: the interrupted run's seed is %d\n", cp.Seed)
		}
		fmt.Fprintf(stderr, "run: resuming %d finished %s from %s\n", len(cp.Matrix.Measurements), unit, cpPath)
	}
	if cfg.Tag == "" {
		cfg.Tag = runner.NewTag()
	}
	pp := &runner.ProgressPrinter{W: stderr, Terminal: o.terminal}
	cfg.Progress = pp.Print
	cfg.Plan = func(s runner.Schedule) { printPlan(stderr, pp, s) }
	cfg.Note = func(n string) { fmt.Fprintln(stderr, "run: note:", n) }
	saved := o.resume // a checkpoint of this run exists
	var seed uint64
	if serve != nil {
		seed = serve.Seed
	}
	cfg.Checkpoint = func(m *schema.Matrix) error {
		err := runner.SaveCheckpoint(cpPath, &runner.Checkpoint{Key: key, Tag: cfg.Tag, Seed: seed, Matrix: m})
		saved = saved || err == nil
		return err
	}
	r, err := runner.New(client, cfg)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintf(stderr, "run: every request carries %s %s… (grep the engine's log for it)\n", runner.RequestIDHeader, client.RequestIDPrefix())
	m, err := r.Run(ctx)
	if err != nil {
		if ctx.Err() != nil {
			if !saved {
				return fmt.Errorf("%w before any %s finished: nothing was saved", errInterrupted, strings.TrimSuffix(unit, "s"))
			}
			n := 0
			if m != nil {
				n = len(m.Measurements)
			}
			return fmt.Errorf("%w: %d %s finished and saved in %s; continue with the same flags and -resume", errInterrupted, n, unit, cpPath)
		}
		return err
	}
	// The finished run is saved before anything is written from it, so
	// that a failure or a kill in any later step leaves a checkpoint
	// that -resume completes with this very matrix (and run id).
	if err := runner.SaveCheckpoint(cpPath, &runner.Checkpoint{Key: key, Tag: cfg.Tag, Seed: seed, Matrix: m, Complete: true}); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := failpoint("checkpoint"); err != nil {
		return err
	}
	return commit(o, cpPath, m, stdout, stderr)
}

// matrixFlags reads the closed-loop matrix's axes (-contexts,
// -concurrency, -prefill-contexts) and checks -duration and -max-tokens.
func matrixFlags(o *options) (contexts []int64, conc []int, prefill []int64, err error) {
	if o.contexts == "" {
		if o.simulate == "" {
			return nil, nil, nil, usageError{errors.New("-contexts is required, e.g. -contexts 8K,16K")}
		}
		o.contexts = "1K,4K"
	}
	// Note: runner.New would silently replace a zero duration or
	// max_tokens by its default; a person who typed 0 meant something
	// else, so it is refused.
	if o.duration <= 0 {
		return nil, nil, nil, usageError{fmt.Errorf("-duration %v: want a measurement window above 0 (e.g. 30s)", o.duration)}
	}
	if o.maxTokens <= 0 {
		return nil, nil, nil, usageError{fmt.Errorf("-max-tokens %d: want at least 1", o.maxTokens)}
	}
	contexts, err = runner.ParseContexts(o.contexts)
	if err != nil {
		return nil, nil, nil, usageError{err}
	}
	conc, err = runner.ParseConcurrency(o.concurrency)
	if err != nil {
		return nil, nil, nil, usageError{err}
	}
	if o.prefillContexts != "" {
		if prefill, err = runner.ParseContexts(o.prefillContexts); err != nil {
			return nil, nil, nil, usageError{err}
		}
	}
	return contexts, conc, prefill, nil
}

// isTerminal reports whether w is a terminal (progress lines go there
// only).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
