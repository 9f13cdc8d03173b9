package iceberg

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
)

var update = flag.Bool("update", false, "rewrite columns.tsv from docs/schema.md")

var (
	tableHeadRE = regexp.MustCompile("^## Table `([a-z_]+)`")
	columnRowRE = regexp.MustCompile("^\\| `([a-z0-9_]+)` \\| ([^|]*) \\| ([^|]*) \\| (.*) \\|$")
)

// schemaDocs reads the column tables of docs/schema.md as columns.tsv
// holds them.
func schemaDocs(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(testtool.RepoRoot(t), "docs", "schema.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	tbl := ""
	seen := map[string]bool{}
	for line := range strings.SplitSeq(string(b), "\n") {
		if m := tableHeadRE.FindStringSubmatch(line); m != nil {
			tbl = m[1]
			continue
		}
		if strings.HasPrefix(line, "## ") {
			tbl = ""
		}
		m := columnRowRE.FindStringSubmatch(line)
		if m == nil || tbl == "" || seen[tbl+"."+m[1]] {
			continue
		}
		seen[tbl+"."+m[1]] = true
		doc := strings.TrimSpace(m[4])
		if unit := strings.TrimSpace(m[3]); unit != "—" && unit != "" {
			doc += " Unit: " + unit + "."
		}
		out.WriteString(tbl + "\t" + m[1] + "\t" + doc + "\n")
	}
	return out.String()
}

// TestColumnDocs checks that columns.tsv is docs/schema.md's column
// tables and that every column of every Iceberg table has its doc.
func TestColumnDocs(t *testing.T) {
	testtool.Golden(t, "columns.tsv", []byte(schemaDocs(t)), *update)
	for _, tbl := range archive.Tables {
		sc, err := Schema(tbl)
		if err != nil {
			t.Fatal(err)
		}
		cols := archive.Columns(tbl)
		if len(sc.Fields()) != len(cols) {
			t.Fatalf("%s: %d fields, want %d", tbl, len(sc.Fields()), len(cols))
		}
		for i, f := range sc.Fields() {
			if f.Name != cols[i].Name {
				t.Errorf("%s: field %d is %s, want %s", tbl, i, f.Name, cols[i].Name)
			}
			if f.Required == cols[i].Nullable {
				t.Errorf("%s.%s: required %v, archive nullable %v", tbl, f.Name, f.Required, cols[i].Nullable)
			}
			if f.Doc == "" {
				t.Errorf("%s.%s: no doc (describe it in docs/schema.md, then -update)", tbl, f.Name)
			}
		}
	}
}
