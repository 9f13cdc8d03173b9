package comparecmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStrictCLI checks that each mistake on the command line is a clear
// message and exit status 2, with nothing on stdout and no file written.
func TestStrictCLI(t *testing.T) {
	arc, _ := newArchive(t)
	out := t.TempDir()
	html := filepath.Join(out, "r.html")
	docDir := t.TempDir()
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown metric", []string{"-metrics", "bogus_col", seedBF16, seedINT4}, `unknown metric "bogus_col"`},
		{"unknown selector key", []string{"-archive", arc, "foo=bar", "quant=int4"}, `unknown selector key "foo"`},
		{"unknown selector key in a trend", []string{"-archive", arc, "-trend", "foo=bar"}, `unknown selector key "foo"`},
		{"threshold without %", []string{"-archive", arc, "-trend", "-threshold", "5"}, "write a percentage"},
		{"tolerance without %", []string{"-tolerance", "3", seedBF16, seedINT4}, "write a percentage"},
		{"malformed cell", []string{"-archive", arc, "-trend", "-cell", "decode:8X:1"}, `context "8X" is not a token count`},
		{"flag after the runs", []string{"-archive", arc, "quant=bf16", "quant=int4", "-html", html}, "-html after the runs"},
		{"unwritable -html", []string{"-html", "/no/such/dir/r.html", seedBF16, seedINT4}, "-html /no/such/dir/r.html: parent directory /no/such/dir does not exist"},
		{"-html a directory", []string{"-html", out, seedBF16, seedINT4}, "is a directory"},
		{"unwritable -plots", []string{"-plots", "/no/such/dir/plots", seedBF16, seedINT4}, "-plots /no/such/dir/plots: parent directory /no/such/dir does not exist"},
		{"directory as a document", []string{seedBF16, docDir}, "is a directory, not a document"},
		{"unknown table", []string{"-table", "bogus", seedBF16, seedINT4}, `-table "bogus": unknown table`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, errs := runCmd(t, "", tt.args...)
			if code != exitUsage || !strings.Contains(errs, tt.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, exitUsage, tt.msg)
			}
			if stdout != "" {
				t.Errorf("stdout written: %.200q", stdout)
			}
			if ents, _ := os.ReadDir(out); len(ents) > 0 {
				t.Errorf("files written: %v", ents)
			}
		})
	}
	// The keys a selector may use are listed in -h.
	_, _, errs := runCmd(t, "", "-h")
	if !strings.Contains(errs, "Selector keys:") || !strings.Contains(errs, "quantization") {
		t.Errorf("-h does not list selector keys:\n%s", errs)
	}
}
