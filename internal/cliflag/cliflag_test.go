package cliflag

import (
	"errors"
	"flag"
	"strings"
	"testing"
	"time"
)

var testHelp = Help{
	Name:     "ingest",
	Synopsis: []string{"speedmatrix ingest [-archive DIR] [-json] FILE...", "speedmatrix ingest -check"},
	Example:  []string{"speedmatrix ingest -archive archive doc.txt"},
	Exit:     []string{"0  ok", "2  usage"},
	Notes:    []string{"FILE - reads standard input."},
	Args:     "the file arguments",
}

func newSet() (*flag.FlagSet, *strings.Builder) {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	var errs strings.Builder
	fs.SetOutput(&errs)
	fs.String("archive", "archive", "archive `DIR`")
	fs.Bool("json", false, "print JSON")
	fs.Duration("duration", 30*time.Second, "window")
	fs.Bool("html", false, "HTML")
	return fs, &errs
}

// TestParse checks each answer Parse gives: what it prints, whether it
// parsed, and the error's kind.
func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		err    error    // nil, ErrReported or flag.ErrHelp
		stderr []string // lines, in order, exactly
		rest   []string
	}{
		{"flags then files", []string{"-archive", "A", "-json", "f1", "f2"}, nil, nil, []string{"f1", "f2"}},
		{"= forms and --name", []string{"--archive=A", "-json=true", "-duration=2s", "f"}, nil, nil, []string{"f"}},
		{"stdin dash", []string{"-json", "-"}, nil, nil, []string{"-"}},
		{"-- before a dash file", []string{"-json", "--", "f", "-odd"}, nil, nil, []string{"f", "-odd"}},
		{"flag after files", []string{"-archive", "A", "f", "-json"}, ErrReported, []string{
			"ingest: flag -json after the file arguments; put flags first",
			"speedmatrix ingest -h prints every flag"}, nil},
		{"unknown after files", []string{"f", "-jsno"}, ErrReported, []string{
			"ingest: -jsno after the file arguments: flags go first, and -jsno is no flag (an argument that starts with - goes after --)",
			"did you mean -json?",
			"speedmatrix ingest -h prints every flag"}, nil},
		{"typo", []string{"-archiv", "A", "f"}, ErrReported, []string{
			"ingest: unknown flag -archiv",
			"usage: speedmatrix ingest [-archive DIR] [-json] FILE...",
			"did you mean -archive?",
			"speedmatrix ingest -h prints every flag"}, nil},
		{"typo with =", []string{"--htm=x"}, ErrReported, []string{
			"ingest: unknown flag -htm",
			"usage: speedmatrix ingest [-archive DIR] [-json] FILE...",
			"did you mean -html?",
			"speedmatrix ingest -h prints every flag"}, nil},
		{"nothing near", []string{"-zzzzzz"}, ErrReported, []string{
			"ingest: unknown flag -zzzzzz",
			"usage: speedmatrix ingest [-archive DIR] [-json] FILE...",
			"speedmatrix ingest -h prints every flag"}, nil},
		{"duration without unit", []string{"-duration", "2"}, ErrReported, []string{
			"ingest: -duration 2: a duration needs a unit, e.g. 2s",
			"speedmatrix ingest -h prints every flag"}, nil},
		{"duration 1.5 without unit", []string{"-duration=1.5"}, ErrReported, []string{
			"ingest: -duration 1.5: a duration needs a unit, e.g. 1.5s",
			"speedmatrix ingest -h prints every flag"}, nil},
		{"no duration", []string{"-duration", "soon"}, ErrReported, []string{
			`ingest: invalid value "soon" for flag -duration: parse error`,
			"usage: speedmatrix ingest [-archive DIR] [-json] FILE...",
			"speedmatrix ingest -h prints every flag"}, nil},
		{"missing value", []string{"-archive"}, ErrReported, []string{
			"ingest: flag needs an argument: -archive",
			"usage: speedmatrix ingest [-archive DIR] [-json] FILE...",
			"speedmatrix ingest -h prints every flag"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, errs := newSet()
			var out strings.Builder
			err := Parse(fs, tt.args, testHelp, &out)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if got := strings.Join(tt.stderr, "\n"); strings.TrimSuffix(errs.String(), "\n") != got {
				t.Errorf("stderr:\n%s\nwant:\n%s", errs, got)
			}
			if err == nil && strings.Join(fs.Args(), " ") != strings.Join(tt.rest, " ") {
				t.Errorf("args %q, want %q", fs.Args(), tt.rest)
			}
			if out.Len() > 0 {
				t.Errorf("stdout written: %q", out.String())
			}
		})
	}
}

// TestHelp checks that -h starts with the synopsis, the example and the
// exit codes, and then lists every flag, -version included.
func TestHelp(t *testing.T) {
	fs, errs := newSet()
	if err := Parse(fs, []string{"-h"}, testHelp, new(strings.Builder)); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err %v", err)
	}
	want := "usage: speedmatrix ingest [-archive DIR] [-json] FILE...\n       speedmatrix ingest -check\n\nExample:\n  speedmatrix ingest -archive archive doc.txt\n\nExit status:\n  0  ok\n  2  usage\n\nFILE - reads standard input.\n\nFlags:\n  -archive DIR\n"
	if !strings.HasPrefix(errs.String(), want) || !strings.Contains(errs.String(), "  -version\n") {
		t.Errorf("-h printed:\n%s\nwant it to start with:\n%s", errs, want)
	}
}

// TestVersion checks that -version prints the build on stdout and stops.
func TestVersion(t *testing.T) {
	fs, errs := newSet()
	var out strings.Builder
	if err := Parse(fs, []string{"-version"}, testHelp, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err %v", err)
	}
	if !strings.HasPrefix(out.String(), "speedmatrix ") || !strings.Contains(out.String(), "\ncommit ") || errs.Len() > 0 {
		t.Errorf("stdout %q, stderr %q", out.String(), errs)
	}
}

// TestList checks that the flag listing reads back as the flag set.
func TestList(t *testing.T) {
	fs, _ := newSet()
	var out strings.Builder
	if err := Parse(fs, []string{ListArg}, testHelp, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err %v", err)
	}
	got, err := ParseList(out.String())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range got {
		names = append(names, f.Name)
		if (f.Name == "json" || f.Name == "version") != f.Bool && f.Name != "html" {
			t.Errorf("%s: Bool %v", f.Name, f.Bool)
		}
	}
	if strings.Join(names, " ") != "archive duration html json version" {
		t.Errorf("listed %q", names)
	}
	if _, err := ParseList("-x\tmaybe\tu\n"); err == nil {
		t.Error("a malformed listing read")
	}
}

func TestClosest(t *testing.T) {
	cands := []string{"ingest", "run", "compare", "serve", "show", "version", "completion", "help"}
	for _, tt := range []struct{ in, want string }{
		{"ingets", "ingest"}, {"comapre", "compare"}, {"rn", "run"}, {"ver", "version"}, {"comp", "compare"},
		{"SERVE", "serve"}, {"shwo", "show"}, {"xyzzy", ""}, {"benchmark", ""},
	} {
		if got := Closest(tt.in, cands); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
