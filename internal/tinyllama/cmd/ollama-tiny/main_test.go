package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
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
