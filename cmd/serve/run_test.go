package servecmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"speedmatrix/internal/archivepath"
)

// TestArchiveFromEnv: without -archive, serve serves $SPEEDMATRIX_ARCHIVE.
func TestArchiveFromEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(archivepath.EnvVar, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var out, errs bytes.Buffer
	if code := run(ctx, []string{"-addr", "127.0.0.1:0"}, nil, &out, &errs); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if want := "serve: archive " + dir + " on "; !strings.HasPrefix(out.String(), want) {
		t.Errorf("stdout %q, want it to start %q", out.String(), want)
	}
}

// TestStartRules: a non-loopback address without -token or -open is
// refused at start; -open and -token say what they do; the token is
// never printed.
func TestStartRules(t *testing.T) {
	dir := t.TempDir()
	const token = "never-print-me"
	cases := []struct {
		name   string
		args   []string
		code   int
		out    string // in stdout (serving) or stderr (refused)
		serves bool
	}{
		{"all interfaces without token", []string{"-archive", dir, "-addr", "0.0.0.0:0"}, exitUsage, "not a loopback address: give -token T", false},
		{"empty host without token", []string{"-archive", dir, "-addr", ":0"}, exitUsage, "not a loopback address", false},
		{"ipv6 any without token", []string{"-archive", dir, "-addr", "[::]:0"}, exitUsage, "not a loopback address", false},
		{"token and open", []string{"-archive", dir, "-addr", "0.0.0.0:0", "-open", "-token", token}, exitUsage, "do not go together", false},
		{"no archive", []string{"-addr", "127.0.0.1:0"}, exitUsage, "no archive: tried -archive (not given), $SPEEDMATRIX_ARCHIVE (not set), ./archive (does not exist)", false},
		{"missing archive", []string{"-archive", dir + "/nope", "-addr", "127.0.0.1:0"}, exitUsage, "no archive at " + dir + "/nope: tried -archive " + dir + "/nope (does not exist)", false},
		{"bad addr", []string{"-archive", dir, "-addr", "nowhere"}, exitUsage, "-addr", false},
		{"loopback", []string{"-archive", dir, "-addr", "127.0.0.1:0"}, exitOK, "(loopback only)", true},
		{"open", []string{"-archive", dir, "-addr", "0.0.0.0:0", "-open"}, exitOK, "OPEN: no token", true},
		{"token", []string{"-archive", dir, "-addr", "0.0.0.0:0", "-token", token}, exitOK, "a token is required on every request", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(archivepath.EnvVar, "")
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			var out, errs bytes.Buffer
			code := run(ctx, c.args, nil, &out, &errs)
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, errs.String())
			}
			got := errs.String()
			if c.serves {
				got = out.String()
			}
			if !strings.Contains(got, c.out) {
				t.Errorf("output %q lacks %q", got, c.out)
			}
			if strings.Contains(out.String()+errs.String(), token) {
				t.Errorf("the token was printed")
			}
		})
	}
}
