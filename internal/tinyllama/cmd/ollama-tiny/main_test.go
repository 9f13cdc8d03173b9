package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
)

func TestWriteAndUsage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-write", path, "-seed", "3"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 2<<20 || string(b[:4]) != "GGUF" {
		t.Fatalf("wrote %d bytes (%q…), err %v", len(b), b[:min(4, len(b))], err)
	}
	if code := run(context.Background(), []string{"extra"}, &out, &errb); code != 2 {
		t.Errorf("extra argument: exit %d, want 2", code)
	}
}

// TestServe serves the model with a real Ollama until the context ends:
// the URL goes to stdout, the OpenAI API answers with the model, and the
// server is gone when run returns.
func TestServe(t *testing.T) {
	bin := testtool.Ollama(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	// stdout is a file, read while the command writes it.
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-ollama", bin, "-addr", freeAddr(t), "-dir", dir, "-parallel", "1", "-ctx", "256"}, stdout, io.Discard)
	}()
	var url string
	for url == "" {
		select {
		case code := <-done:
			t.Fatalf("exit %d before serving; log:\n%s", code, readLog(dir))
		case <-time.After(50 * time.Millisecond):
			b, _ := os.ReadFile(stdout.Name())
			url = strings.TrimSpace(string(b))
		}
	}
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"tiny:latest"`) {
		t.Errorf("/v1/models: %s", b)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after interrupt", code)
	}
	if _, err := http.Get(url + "/api/version"); err == nil {
		t.Error("server still answers after run returned")
	}
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func readLog(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "ollama.log"))
	return string(b)
}
