package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"speedmatrix/internal/cliflag"
	"speedmatrix/internal/testtool"
)

// shell returns the path of a shell, skipping t (failing it under
// SPEEDMATRIX_REQUIRE_TOOLS) when it is not installed.
func shell(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv(testtool.RequireEnv) != "" {
			t.Fatalf("%s is missing and %s is set", name, testtool.RequireEnv)
		}
		t.Skipf("%s is missing (apt-get install %s)", name, name)
	}
	return p
}

// script writes `speedmatrix completion sh` to a file and checks its
// syntax with sh -n.
func script(t *testing.T, sh string) string {
	t.Helper()
	code, out, errs := call(t, "completion", sh)
	if code != exitOK || errs != "" {
		t.Fatalf("completion %s: exit %d, stderr %q", sh, code, errs)
	}
	path := filepath.Join(t.TempDir(), sh)
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(shell(t, sh), "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("%s -n: %v\n%s", sh, err, b)
	}
	return path
}

// listed returns the flags of command c as its flag set lists them.
func listed(t *testing.T, c command) []string {
	t.Helper()
	var out bytes.Buffer
	if code := c.main(context.Background(), []string{cliflag.ListArg}, strings.NewReader(""), &out, new(bytes.Buffer)); code != exitOK {
		t.Fatalf("%s %s: exit %d", c.name, cliflag.ListArg, code)
	}
	fl, err := cliflag.ParseList(out.String())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fl {
		names = append(names, "-"+f.Name)
	}
	return names
}

// TestBashCompletion sources the bash script, sets COMP_WORDS as bash
// does on TAB, and checks what _speedmatrix offers: the commands, a
// command's flags (all of its flag set's, from one -), a prefix's flag,
// completion's shells, and nothing (bash's file names) for an argument.
func TestBashCompletion(t *testing.T) {
	path := script(t, "bash")
	complete := func(words ...string) []string {
		t.Helper()
		var b strings.Builder
		b.WriteString("source " + path + "\nCOMP_WORDS=(")
		for _, w := range words {
			b.WriteString("'" + w + "' ")
		}
		b.WriteString(")\nCOMP_CWORD=" + string(rune('0'+len(words)-1)) + "\n_speedmatrix\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
		out, err := exec.Command(shell(t, "bash"), "--norc", "--noprofile", "-c", b.String()).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.Fields(string(out))
	}
	for _, tt := range []struct {
		words []string
		want  []string
	}{
		{[]string{"speedmatrix", "comp"}, []string{"compare", "completion"}},
		{[]string{"speedmatrix", "ingest", "-arch"}, []string{"-archive"}},
		{[]string{"speedmatrix", "run", "-dur"}, []string{"-duration"}},
		{[]string{"speedmatrix", "compare", "-archive", "a", "-ht"}, []string{"-html"}},
		{[]string{"speedmatrix", "completion", ""}, []string{"bash", "zsh"}},
		{[]string{"speedmatrix", "help", "se"}, []string{"serve"}},
		{[]string{"speedmatrix", "ingest", "test"}, nil},
	} {
		if got := complete(tt.words...); !slices.Equal(got, tt.want) {
			t.Errorf("%q: completes %q, want %q", tt.words, got, tt.want)
		}
	}
	for _, c := range all() {
		if c.name == "help" {
			continue
		}
		want := append(listed(t, c), "-h")
		got := complete("speedmatrix", c.name, "-")
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("speedmatrix %s -: completes %q, want its flag set %q", c.name, got, want)
		}
	}
}

// TestZshCompletion checks the zsh script's syntax, then runs
// _speedmatrix with zsh's completion functions (_describe, _arguments)
// replaced by ones that print their arguments: the command list, and
// each command's _arguments specs, one per flag of its flag set. (Real
// interactive completion through zle is not exercised.)
func TestZshCompletion(t *testing.T) {
	path := script(t, "zsh")
	zsh := shell(t, "zsh")
	run := func(current int, words ...string) []string {
		t.Helper()
		prog := "compdef() { :; }\n_describe() { print -rl -- \"$@\" $commands }\n_arguments() { print -rl -- \"$@\" }\n" +
			"source " + path + "\nwords=(" + strings.Join(words, " ") + ")\nCURRENT=" + string(rune('0'+current)) + "\n_speedmatrix\n"
		out, err := exec.Command(zsh, "-f", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("zsh: %v\n%s", err, out)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	got := run(2, "speedmatrix", "in")
	for _, name := range names() {
		if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, name+":") }) {
			t.Errorf("the command list lacks %s: %q", name, got)
		}
	}
	for _, c := range all() {
		if c.name == "help" {
			continue
		}
		got := run(3, "speedmatrix", c.name, "-")
		for _, f := range append(listed(t, c), "-h") {
			if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, f+"[") }) {
				t.Errorf("%s: no _arguments spec for %s in %q", c.name, f, got)
			}
		}
	}
	if got := run(3, "speedmatrix", "ingest", "-"); !slices.Contains(got, "-archive[archive directory (default $SPEEDMATRIX_ARCHIVE, else ./archive)]:value:_files") || !slices.Contains(got, "*:file:_files") {
		t.Errorf("ingest's specs: %q", got)
	}
}

// TestCompletionWithoutListing adds a command that does not parse with
// cliflag: the script still completes its name and every other
// command's flags, and stderr names it.
func TestCompletionWithoutListing(t *testing.T) {
	defer func(c []command) { commands = c }(commands)
	commands = append(commands[:len(commands):len(commands)], command{"plain", "a command without cliflag",
		func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			fmt.Fprintf(stderr, "plain: unknown argument %q\n", args[0])
			return exitUsage
		}})
	code, out, errs := call(t, "completion", "bash")
	if code != exitOK || !strings.Contains(errs, `completion: plain lists no flags (exit 2, "plain: unknown argument \"`+cliflag.ListArg+`\"")`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, `plain) flags="-h"`) || !strings.Contains(out, " -archive ") || !strings.Contains(out, `"ingest run compare serve show plain version completion help"`) {
		t.Errorf("script:\n%s", out)
	}
}
