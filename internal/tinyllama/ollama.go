package tinyllama

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/build"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// OllamaConfig says how to serve the model with Ollama.
type OllamaConfig struct {
	Bin      string // the ollama binary
	Dir      string // holds the GGUF, the Modelfile, OLLAMA_MODELS, HOME and the server log
	Addr     string // host:port to serve on; empty picks a free loopback port
	Model    string // the name to create; empty means "tiny"
	Parallel int    // OLLAMA_NUM_PARALLEL: requests served at once; 0 means 4
	Context  int    // num_ctx: each request's context in tokens; 0 means 2048
	// Threads is num_thread, llama.cpp's compute threads; 0 means 1.
	// Note: llama.cpp's threads spin while they wait for each other; on a
	// busy 2-core machine its default (one per core) made a token take
	// 150 ms instead of 1.6 ms, so one thread is the default here.
	Threads int
	Weights Config // the model written
	// Log receives the server's output as well as the log file; may be nil.
	Log io.Writer
}

// Ollama is a running `ollama serve` with the tiny model created.
type Ollama struct {
	URL     string // http://host:port, the OpenAI API under /v1
	Model   string
	LogPath string
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

// Modelfile returns the Modelfile that creates the model from gguf with a
// context of numCtx tokens and threads compute threads. The template is
// the bare prompt, so a chat request's prompt tokens are <s> plus the
// message's tokens.
func Modelfile(gguf string, numCtx, threads int) string {
	return fmt.Sprintf("FROM %s\nTEMPLATE \"{{ .Prompt }}\"\nPARAMETER num_ctx %d\nPARAMETER num_thread %d\n", gguf, numCtx, threads)
}

// StartOllama writes the model into cfg.Dir, starts `ollama serve` in its
// own process group (so Close stops it and the llama.cpp runner it
// spawns), waits for it to answer, creates the model and loads it. ctx
// bounds the start; on any error the server is already stopped.
func StartOllama(ctx context.Context, cfg OllamaConfig) (*Ollama, error) {
	cfg.Model = cmp.Or(cfg.Model, "tiny")
	cfg.Parallel = cmp.Or(cfg.Parallel, 4)
	cfg.Context = cmp.Or(cfg.Context, 2048)
	cfg.Threads = cmp.Or(cfg.Threads, 1)
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	if cfg.Addr == "" {
		addr, err := freeLoopback()
		if err != nil {
			return nil, err
		}
		cfg.Addr = addr
	}
	gguf := filepath.Join(cfg.Dir, cfg.Model+".gguf")
	if err := WriteFile(gguf, cfg.Weights); err != nil {
		return nil, err
	}
	modelfile := filepath.Join(cfg.Dir, "Modelfile")
	if err := os.WriteFile(modelfile, []byte(Modelfile(gguf, cfg.Context, cfg.Threads)), 0o644); err != nil {
		return nil, err
	}
	logPath := filepath.Join(cfg.Dir, "ollama.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	var log io.Writer = logFile
	if cfg.Log != nil {
		log = io.MultiWriter(logFile, cfg.Log)
	}
	env := append(os.Environ(),
		"OLLAMA_HOST="+cfg.Addr,
		"OLLAMA_MODELS="+filepath.Join(cfg.Dir, "models"),
		"OLLAMA_NUM_PARALLEL="+strconv.Itoa(cfg.Parallel),
		"OLLAMA_CONTEXT_LENGTH="+strconv.Itoa(cfg.Context),
		"OLLAMA_KEEP_ALIVE=-1", // never unload the model mid-run
		"HOME="+cfg.Dir,        // its key pair goes here, not in the user's home
	)
	cmd := exec.Command(cfg.Bin, "serve")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = groupAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start ollama: %w", err)
	}
	o := &Ollama{URL: "http://" + cfg.Addr, Model: cfg.Model, LogPath: logPath, cmd: cmd, exited: make(chan struct{})}
	go func() {
		o.waitErr = cmd.Wait()
		logFile.Close()
		close(o.exited)
	}()
	if err := o.setUp(ctx, cfg, env, modelfile); err != nil {
		o.Close()
		return nil, fmt.Errorf("%w (server log: %s)", err, logPath)
	}
	return o, nil
}

// setUp waits for the server, creates the model and loads it.
func (o *Ollama) setUp(ctx context.Context, cfg OllamaConfig, env []string, modelfile string) error {
	for {
		if err := o.get(ctx, "/api/version"); err == nil {
			break
		}
		select {
		case <-o.exited:
			return fmt.Errorf("ollama serve exited: %v", o.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("ollama serve did not answer: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	create := exec.CommandContext(ctx, cfg.Bin, "create", cfg.Model, "-f", modelfile)
	create.Env = env
	create.Dir = cfg.Dir
	if out, err := create.CombinedOutput(); err != nil {
		return fmt.Errorf("ollama create: %w: %s", err, lastLine(out))
	}
	// An empty generate request loads the model, so the first measured
	// request does not pay for it.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.URL+"/api/generate", strings.NewReader(`{"model":"`+cfg.Model+`"}`))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("load model: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("load model: HTTP %d: %s", resp.StatusCode, b)
	}
	return nil
}

func (o *Ollama) get(ctx context.Context, path string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.URL+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

// Close stops the server's process group: SIGTERM, then SIGKILL after
// five seconds. It is safe to call more than once.
func (o *Ollama) Close() error {
	pid := o.cmd.Process.Pid
	select {
	case <-o.exited:
	default:
		signalGroup(pid, false)
		select {
		case <-o.exited:
		case <-time.After(5 * time.Second):
			signalGroup(pid, true)
			<-o.exited
		}
	}
	// The runner child may outlive the server's exit: end the group.
	return signalGroup(pid, true)
}

// FindOllama returns the path of the ollama binary: on PATH, else where
// go install puts it ($GOBIN, else each $GOPATH's bin).
func FindOllama() (string, error) {
	if p, err := exec.LookPath("ollama"); err == nil {
		return p, nil
	}
	dirs := []string{os.Getenv("GOBIN")}
	for _, gp := range filepath.SplitList(build.Default.GOPATH) {
		dirs = append(dirs, filepath.Join(gp, "bin"))
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, "ollama")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("ollama is neither on PATH nor in $GOBIN or $GOPATH/bin")
}

// PID returns the server's process id, which is also its process group.
func (o *Ollama) PID() int { return o.cmd.Process.Pid }

// Exited is closed when the server process has ended.
func (o *Ollama) Exited() <-chan struct{} { return o.exited }

// WriteFile writes the model cfg describes to path.
func WriteFile(path string, cfg Config) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, cfg); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func freeLoopback() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// lastLine returns the last line of a command's output (ollama create
// draws progress with carriage returns).
func lastLine(b []byte) string {
	s := strings.TrimRight(string(b), "\r\n")
	if i := strings.LastIndexAny(s, "\r\n"); i >= 0 {
		return s[i+1:]
	}
	return s
}
