package runcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"speedmatrix/archive"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

const secret = "sk-test-0123456789abcdef0123"

// runCmd runs the command with args and returns its exit code and output.
func runCmd(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// readDocument reads the document run wrote to path back into a matrix.
func readDocument(t *testing.T, path string) *schema.Matrix {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.ParseBytes(b, path, "")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// noSecret fails when the API key appears in any file under dir.
func noSecret(t *testing.T, dir string, outputs ...string) {
	t.Helper()
	noSecrets(t, dir, []string{secret}, outputs...)
}

// noSecrets fails when one of secrets appears in an output or in any
// file under dir.
func noSecrets(t *testing.T, dir string, secrets []string, outputs ...string) {
	t.Helper()
	for _, s := range secrets {
		for _, o := range outputs {
			if strings.Contains(o, s) {
				t.Fatalf("%q printed: %s", s, o)
			}
		}
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(s)) {
				t.Fatalf("%q stored in %s", s, p)
			}
			return nil
		})
	}
}

// TestSimulateArchiveAndDocument measures the default simulator, archives
// the run and writes its document; the document ingests to the archived
// run's id and rows, and the API key is nowhere.
func TestSimulateArchiveAndDocument(t *testing.T) {
	t.Setenv("SPEEDMATRIX_TEST_KEY", secret)
	dir := t.TempDir()
	arch := filepath.Join(dir, "archive")
	out := filepath.Join(dir, "run.md")
	code, stdout, stderr := runCmd(t, context.Background(), "-simulate", "default", "-contexts", "1K,2K", "-concurrency", "1,2",
		"-duration", "500ms", "-max-tokens", "100", "-archive", arch, "-out", out, "-api-key-env", "SPEEDMATRIX_TEST_KEY",
		"-launch-command", "vllm serve org/model --api-key "+secret+" --max-model-len 32768 --tensor-parallel-size 1")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	noSecret(t, dir, stdout, stderr)
	if _, err := os.Stat(out + ".checkpoint.json"); !os.IsNotExist(err) {
		t.Fatal("checkpoint left behind after a finished run")
	}
	a, err := archive.Open(arch)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := a.Runs(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("archive runs %v, %v", runs, err)
	}
	got, err := a.Load(context.Background(), runs[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	m := got[0]
	if m.Run.SourceFormat != schema.FormatRun || len(m.Measurements) != 6 || len(m.Samples) == 0 {
		t.Fatalf("archived run: format %q, %d cells, %d samples", m.Run.SourceFormat, len(m.Measurements), len(m.Samples))
	}
	if !strings.Contains(m.Run.LaunchCommand, "--api-key <redacted>") || m.Run.TensorParallel == nil {
		t.Fatalf("launch command %q", m.Run.LaunchCommand)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := parse.Parse(f, out, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Measurements) != len(m.Measurements) {
		t.Fatalf("document has %d cells, archive %d", len(doc.Measurements), len(m.Measurements))
	}
	// Every figure of every row comes back as the same column.
	for i := range m.Measurements {
		g, w := columns(&doc.Measurements[i]), columns(&m.Measurements[i])
		if fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("row %d:\ndocument %v\narchived %v", i, g, w)
		}
	}
	if doc.Run.Model != m.Run.Model || doc.Run.GPU != m.Run.GPU || doc.Run.BenchTool != m.Run.BenchTool ||
		doc.Run.BenchVersion != m.Run.BenchVersion || doc.Run.LaunchCommand != m.Run.LaunchCommand {
		t.Errorf("run facts differ: document %+v", doc.Run)
	}
	if doc.Run.RunID != m.Run.RunID {
		t.Errorf("document run id %s, archived %s", doc.Run.RunID, m.Run.RunID)
	}
	for i := range m.Samples {
		if m.Samples[i].RunID != m.Run.RunID {
			t.Fatalf("sample %d has run id %q, run %q", i, m.Samples[i].RunID, m.Run.RunID)
		}
	}
	// Ingesting the document into the archive is a duplicate.
	f2, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	again, err := parse.Parse(f2, out, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Append(context.Background(), []*schema.Matrix{again})
	if err != nil {
		t.Fatal(err)
	}
	if res.Added() != 0 {
		t.Errorf("ingesting the run's own document added a run: %+v", res.Items)
	}
}

// columns flattens a measurement to column → value.
func columns(x *schema.Measurement) map[string]string {
	b, _ := json.Marshal(x)
	var raw map[string]any
	json.Unmarshal(b, &raw)
	out := map[string]string{}
	for k, v := range raw {
		switch k {
		case "extra", "printed", "source_line", "run_id":
			continue
		}
		if v != nil {
			out[k] = fmt.Sprint(v)
		}
	}
	for _, e := range x.Extra {
		out["extra."+e.Name] = fmt.Sprint(e.Value)
	}
	return out
}

// TestInterruptResume stops a run once its first cell is checkpointed
// (as Ctrl-C does) and continues it with -resume.
func TestInterruptResume(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run.txt")
	args := []string{"-simulate", "default", "-contexts", "1K", "-concurrency", "1,2,4", "-duration", "400ms", "-max-tokens", "100", "-out", out,
		"-archive", filepath.Join(dir, "archive")}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(out + ".checkpoint.json"); err == nil {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	code, _, stderr := runCmd(t, ctx, args...)
	cancel()
	if code != exitInterrupted || !strings.Contains(stderr, "-resume") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = runCmd(t, context.Background(), append(args, "-resume")...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "resuming") {
		t.Errorf("stderr %q", stderr)
	}
	doc := readDocument(t, out)
	if len(doc.Measurements) != 4 {
		t.Fatalf("resumed run has %d cells, want 4", len(doc.Measurements))
	}
	if m := onlyRun(t, filepath.Join(dir, "archive")); m.Run.RunID != doc.Run.RunID {
		t.Errorf("archived run %s, document %s", m.Run.RunID, doc.Run.RunID)
	}
}

func TestUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no url", []string{"-model", "m", "-contexts", "8K"}, "-url is required"},
		{"no model", []string{"-url", "http://127.0.0.1:1", "-contexts", "8K"}, "-model is required"},
		{"no contexts", []string{"-url", "http://127.0.0.1:1", "-model", "m"}, "-contexts is required"},
		{"bad contexts", []string{"-url", "http://127.0.0.1:1", "-model", "m", "-contexts", "8X"}, "context"},
		{"bad concurrency", []string{"-url", "http://127.0.0.1:1", "-model", "m", "-contexts", "8K", "-concurrency", "0"}, "concurrency"},
		{"bad out", []string{"-url", "http://127.0.0.1:1", "-model", "m", "-contexts", "8K", "-out", filepath.Join(dir, "x.pdf")}, "extension"},
		{"bad endpoint", []string{"-url", "http://127.0.0.1:1", "-model", "m", "-contexts", "8K", "-endpoint", "embeddings"}, "endpoint"},
		{"resume without checkpoint", []string{"-url", "http://127.0.0.1:1", "-model", "m", "-contexts", "8K", "-out", filepath.Join(dir, "y.md"), "-resume"}, "no checkpoint"},
		{"unknown flag", []string{"-bogus"}, "bogus"},
		{"zero duration", []string{"-url", "http://127.0.0.1:1", "-model", "m", "-contexts", "8K", "-duration", "0s"}, "-duration 0s"},
		{"zero max tokens", []string{"-url", "http://127.0.0.1:1", "-model", "m", "-contexts", "8K", "-max-tokens", "0"}, "-max-tokens 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, context.Background(), tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}

// TestServerDown: a server that is not there fails the run with exit 1.
func TestServerDown(t *testing.T) {
	code, _, stderr := runCmd(t, context.Background(), "-url", "http://127.0.0.1:1", "-model", "m", "-contexts", "1K")
	if code != exitFail || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// TestServerHangs: a server that accepts connections and never answers
// ends the run at startup with the bound in the message (before, GET
// /v1/models waited for ever).
func TestServerHangs(t *testing.T) {
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) })
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := runCmd(t, context.Background(), "-url", srv.URL, "-model", "m", "-contexts", "1K", "-request-timeout", "300ms")
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		if r.code != exitFail || !strings.Contains(r.stderr, "GET /v1/models: no answer within 300ms") {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run still waiting after 20s: it hangs")
	}
}

// TestTimeoutFlags rejects a timeout that is not positive.
func TestTimeoutFlags(t *testing.T) {
	for _, f := range []string{"-connect-timeout", "-request-timeout", "-metrics-timeout", "-header-timeout", "-idle-timeout", "-idle-conn-timeout", "-start-timeout", "-drain-timeout"} {
		code, _, stderr := runCmd(t, context.Background(), "-simulate", "default", f, "0s")
		if code != exitUsage || !strings.Contains(stderr, f+" 0s: want a positive duration") {
			t.Errorf("%s 0s: exit %d, stderr %q", f, code, stderr)
		}
	}
}

// TestSimulateFromDocument calibrates the simulator from the H200 seed
// and measures one of its cells.
func TestSimulateFromDocument(t *testing.T) {
	seed := filepath.Join("..", "..", "testdata", "seeds", "001_03cf9c936d246394.txt")
	dir := t.TempDir()
	out := filepath.Join(dir, "sim.txt")
	code, stdout, stderr := runCmd(t, context.Background(), "-simulate", seed, "-contexts", "8K", "-concurrency", "2",
		"-prefill-contexts", "8K", "-duration", "500ms", "-max-tokens", "200", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	doc := readDocument(t, out)
	if len(doc.Measurements) != 2 {
		t.Fatalf("%d cells, want prefill and decode at 8K", len(doc.Measurements))
	}
	for _, x := range doc.Measurements {
		if x.Status != schema.StatusValid || x.TotalTokS == nil || *x.TotalTokS <= 0 {
			t.Fatalf("cell %s %s: %s", x.Phase, x.ContextLabel, x.Status)
		}
	}
	t.Logf("%s", stderr)
}

// lockedBuffer is a bytes.Buffer safe to read while the command writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeSim serves the simulator to a client in the test (as vLLM's
// bench serve would be) until interrupted: the URL on stdout answers
// /v1/models and a streamed chat completion, and an interrupt ends the
// command with status 0.
func TestServeSim(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-simulate", "default", "-serve-sim", "127.0.0.1:0"}, strings.NewReader(""), &stdout, &stderr)
	}()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if s := stdout.String(); strings.HasSuffix(s, "\n") {
			url = strings.TrimSpace(s)
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if err != nil || len(models.Data) != 1 {
		t.Fatalf("models %+v, %v", models, err)
	}
	body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"hello there"}],"max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`, models.Data[0].ID)
	resp, err = http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sse, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(sse, []byte(`"completion_tokens":5`)) || !bytes.HasSuffix(bytes.TrimSpace(sse), []byte("data: [DONE]")) {
		t.Fatalf("HTTP %d:\n%s", resp.StatusCode, sse)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK || !strings.Contains(stderr.String(), "simulator stopped") {
			t.Fatalf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still serving 10 s after the interrupt")
	}
	if _, err := http.Get(url + "/v1/models"); err == nil {
		t.Error("still answering after the interrupt")
	}
	// -serve-sim without -simulate is a usage error.
	if code, _, errOut := runCmd(t, context.Background(), "-serve-sim", "127.0.0.1:0"); code != exitUsage || !strings.Contains(errOut, "needs -simulate") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
