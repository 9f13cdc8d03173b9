package importrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// rule forbids the packages matching from (but not except) to depend,
// directly or through other packages, on the packages matching to (but
// not allow). Patterns are import paths; "p/..." matches p and every
// package below it.
type rule struct {
	from, except, to, allow []string
	why                     string
}

// rules are the import rules of CONTRIBUTING.md and DESIGN.md.
var rules = []rule{
	{from: l("speedmatrix/..."), except: l("speedmatrix/cmd/..."), to: l("speedmatrix/cmd/..."), why: "arrows point faces → libraries: no library imports cmd/"},
	{from: l("speedmatrix/schema/..."), to: l("speedmatrix/..."), allow: l("speedmatrix/schema/...", "speedmatrix/internal/canonjson"), why: "schema imports no other package of the project but the run id's encoder (internal/canonjson), which imports nothing of ours"},
	{from: l("speedmatrix/internal/canonjson"), to: l("speedmatrix/..."), allow: l("speedmatrix/internal/canonjson"), why: "canonjson writes encoding/json's bytes for any struct: it knows no package of the project"},
	{from: l("speedmatrix/archive/internal/pqwrite"), to: l("speedmatrix/..."), allow: l("speedmatrix/archive/internal/pqwrite"), why: "pqwrite writes any struct's rows as Parquet from the schema it is handed: it knows no package of the project"},
	{from: l("speedmatrix/analysis/...", "speedmatrix/report/...", "speedmatrix/plots/..."), to: l("speedmatrix/runner/...", "speedmatrix/archive/..."), why: "analysis, report and plots know no runner and no archive"},
	{from: l("speedmatrix/render/..."), to: l("speedmatrix/parse/...", "speedmatrix/peers/..."), why: "render shares its specs with parse (docspec), never imports it"},
	{from: l("speedmatrix/parse/...", "speedmatrix/peers/..."), to: l("speedmatrix/render/..."), why: "parse and peers never import render"},
	{from: l("speedmatrix/peers/..."), to: l("speedmatrix/parse/..."), why: "parse dispatches to peers, not the other way"},
	{from: l("speedmatrix/..."), except: l("speedmatrix/archive/...", "speedmatrix/cmd/...", "speedmatrix/ingest/...", "speedmatrix/dashboard/..."), to: l("github.com/apache/arrow-go/...", "github.com/apache/iceberg-go/..."), why: "only archive, the faces and the libraries behind them that store or read an archive (ingest, dashboard) link arrow-go and iceberg-go"},
	{from: l("speedmatrix/runner/..."), to: l("speedmatrix/archive/..."), why: "runner measures; the faces store what it measured"},
}

func l(s ...string) []string { return s }

// match reports whether an import path matches a pattern.
func match(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

func matchAny(patterns []string, path string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, path) })
}

// violation is a broken rule: the chain of imports from a package to one
// it must not depend on.
type violation struct {
	chain []string
	why   string
}

func (v violation) String() string { return strings.Join(v.chain, " → ") + ": " + v.why }

// check returns the broken rules of graph (each package's direct
// imports) for the packages in roots, one per rule, root and forbidden
// package, each with the shortest chain of imports that breaks it.
func check(graph map[string][]string, roots []string, rules []rule) []violation {
	var out []violation
	for _, root := range roots {
		// Breadth first, so each package is reached by a shortest chain.
		from := map[string]string{root: ""}
		queue := []string{root}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, q := range graph[p] {
				if _, seen := from[q]; !seen {
					from[q] = p
					queue = append(queue, q)
				}
			}
		}
		reached := make([]string, 0, len(from))
		for p := range from {
			if p != root {
				reached = append(reached, p)
			}
		}
		slices.Sort(reached)
		for _, r := range rules {
			if !matchAny(r.from, root) || matchAny(r.except, root) {
				continue
			}
			for _, p := range reached {
				if !matchAny(r.to, p) || matchAny(r.allow, p) {
					continue
				}
				chain := []string{p}
				for q := from[p]; q != ""; q = from[q] {
					chain = append([]string{q}, chain...)
				}
				out = append(out, violation{chain, r.why})
			}
		}
	}
	return out
}

// TestCheckFindsForbiddenEdges runs the checker on a made-up graph that
// breaks each rule once, directly or through another package, beside
// edges the rules allow.
func TestCheckFindsForbiddenEdges(t *testing.T) {
	graph := map[string][]string{
		"speedmatrix/cmd/ingest":         {"speedmatrix/archive", "speedmatrix/parse"},
		"speedmatrix/archive":            {"github.com/apache/arrow-go/v18/parquet", "speedmatrix/schema"},
		"speedmatrix/parse":              {"speedmatrix/peers", "speedmatrix/docspec", "speedmatrix/schema"},
		"speedmatrix/peers":              {"speedmatrix/schema"},
		"speedmatrix/docspec":            {"speedmatrix/schema"},
		"speedmatrix/render":             {"speedmatrix/docspec", "speedmatrix/helper"},
		"speedmatrix/helper":             {"speedmatrix/peers"},                                    // render → helper → peers
		"speedmatrix/schema":             {"speedmatrix/redact", "speedmatrix/internal/canonjson"}, // schema imports ours (canonjson is allowed)
		"speedmatrix/internal/canonjson": {"speedmatrix/schema"},                                   // canonjson knows no package of ours
		"speedmatrix/report":             {"speedmatrix/analysis", "speedmatrix/runner"},
		"speedmatrix/analysis":           {"speedmatrix/schema"},
		"speedmatrix/runner":             {"speedmatrix/archive"},     // runner → archive → arrow-go
		"speedmatrix/plots":              {"speedmatrix/cmd/compare"}, // a library importing a face
		"speedmatrix/cmd/compare":        {"speedmatrix/report"},

		"speedmatrix/archive/internal/pqwrite": {"speedmatrix/schema"}, // pqwrite is handed the schema, imports no package of ours
	}
	var roots []string
	for p := range graph {
		if strings.HasPrefix(p, "speedmatrix/") {
			roots = append(roots, p)
		}
	}
	slices.Sort(roots)
	var got []string
	for _, v := range check(graph, roots, rules) {
		got = append(got, v.String())
	}
	slices.Sort(got)
	want := []string{
		"speedmatrix/plots → speedmatrix/cmd/compare: arrows point faces → libraries: no library imports cmd/",
		"speedmatrix/plots → speedmatrix/cmd/compare → speedmatrix/report → speedmatrix/runner: analysis, report and plots know no runner and no archive",
		"speedmatrix/plots → speedmatrix/cmd/compare → speedmatrix/report → speedmatrix/runner → speedmatrix/archive: analysis, report and plots know no runner and no archive",
		"speedmatrix/plots → speedmatrix/cmd/compare → speedmatrix/report → speedmatrix/runner → speedmatrix/archive → github.com/apache/arrow-go/v18/parquet: only archive, the faces and the libraries behind them that store or read an archive (ingest, dashboard) link arrow-go and iceberg-go",
		"speedmatrix/render → speedmatrix/helper → speedmatrix/peers: render shares its specs with parse (docspec), never imports it",
		"speedmatrix/report → speedmatrix/runner: analysis, report and plots know no runner and no archive",
		"speedmatrix/report → speedmatrix/runner → speedmatrix/archive: analysis, report and plots know no runner and no archive",
		"speedmatrix/report → speedmatrix/runner → speedmatrix/archive → github.com/apache/arrow-go/v18/parquet: only archive, the faces and the libraries behind them that store or read an archive (ingest, dashboard) link arrow-go and iceberg-go",
		"speedmatrix/runner → speedmatrix/archive: runner measures; the faces store what it measured",
		"speedmatrix/runner → speedmatrix/archive → github.com/apache/arrow-go/v18/parquet: only archive, the faces and the libraries behind them that store or read an archive (ingest, dashboard) link arrow-go and iceberg-go",
		"speedmatrix/schema → speedmatrix/redact: schema imports no other package of the project but the run id's encoder (internal/canonjson), which imports nothing of ours",
		"speedmatrix/internal/canonjson → speedmatrix/schema → speedmatrix/redact: canonjson writes encoding/json's bytes for any struct: it knows no package of the project",
		"speedmatrix/internal/canonjson → speedmatrix/schema: canonjson writes encoding/json's bytes for any struct: it knows no package of the project",
		"speedmatrix/archive/internal/pqwrite → speedmatrix/schema: pqwrite writes any struct's rows as Parquet from the schema it is handed: it knows no package of the project",
		"speedmatrix/archive/internal/pqwrite → speedmatrix/schema → speedmatrix/redact: pqwrite writes any struct's rows as Parquet from the schema it is handed: it knows no package of the project",
		"speedmatrix/archive/internal/pqwrite → speedmatrix/schema → speedmatrix/internal/canonjson: pqwrite writes any struct's rows as Parquet from the schema it is handed: it knows no package of the project",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestImportRules checks the rules on the module's packages as they are.
func TestImportRules(t *testing.T) {
	graph, roots := moduleGraph(t)
	if len(roots) < 10 {
		t.Fatalf("go list found %d packages of the module, want the 10 or more there are", len(roots))
	}
	for _, v := range check(graph, roots, rules) {
		t.Errorf("forbidden import: %s", v)
	}
}

// moduleGraph runs go list at the module's root and returns every
// package's direct (non-test) imports and the module's own packages.
func moduleGraph(t *testing.T) (graph map[string][]string, roots []string) {
	t.Helper()
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		goCmd = p
	}
	cmd := exec.Command(goCmd, "list", "-deps", "-json=ImportPath,Imports,Module,Standard", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	graph = map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Standard   bool
			Module     *struct{ Path string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Standard {
			continue
		}
		graph[p.ImportPath] = p.Imports
		if p.Module != nil && p.Module.Path == "speedmatrix" {
			roots = append(roots, p.ImportPath)
		}
	}
	return graph, roots
}
