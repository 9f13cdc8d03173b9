package parse

import (
	"strings"
	"testing"
)

func TestClassifyTable(t *testing.T) {
	tab := func(header string, rows ...string) *table {
		t := &table{}
		for _, h := range strings.Split(header, "|") {
			t.Header = append(t.Header, cell{Text: h})
		}
		for _, r := range rows {
			var cells []cell
			for _, x := range strings.Split(r, "|") {
				cells = append(cells, cell{Text: x})
			}
			t.Rows = append(t.Rows, row{Cells: cells})
		}
		return t
	}
	for _, c := range []struct {
		name string
		t    *table
		sec  sectionKind
		want tableKind
	}{
		{"full", tab("Phase|Context|Requests at once|Status|Total tok/s"), secFull, tableFull},
		{"full anywhere", tab("Phase|Context|Status"), secMeta, tableFull},
		{"matrix", tab("Context|1|2|4"), secDecode, tableMatrix},
		{"matrix with units", tab("Context|1 req|2 reqs"), secNone, tableMatrix},
		{"matrix, empty corner", tab("|1|2", "8K|x|y"), secDecode, tableMatrix},
		{"matrix, corner names columns", tab("Requests →|1|2", "8K|x|y"), secDecode, tableMatrix},
		{"transposed", tab("Requests|8K|16K"), secDecode, tableMatrixT},
		{"prefill", tab("Context|Prompt tok/s|TTFT"), secPrefill, tablePrefill},
		{"prefill elsewhere", tab("Context|Prompt tok/s|TTFT"), secMeta, tableOther},
		{"two columns", tab("Key|Value"), secMeta, tableTwoColumns},
		{"other", tab("a|b|c"), secMeta, tableOther},
	} {
		if got := classifyTable(c.t, c.sec); got != c.want {
			t.Errorf("%s: classifyTable = %v, want %v", c.name, got, c.want)
		}
	}
}
