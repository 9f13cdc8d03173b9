package analysis

import (
	"strings"
	"testing"

	"speedmatrix/schema"
)

// TestAmbiguousPick: the selector offered for each run picks it alone;
// a value with spaces comes only when no plainer one does, quoted for a
// shell.
func TestAmbiguousPick(t *testing.T) {
	runs := []schema.Run{
		{RunID: "1111111111111111", GPU: "H200 NVL", Model: "m"},
		{RunID: "2222222222222222", GPU: "RTX PRO 6000", Model: "m"},
	}
	err := Ambiguous("model=m", runs)
	for _, want := range []string{"they differ in gpu:", "pick it with 'model=m,gpu=H200 NVL'", "pick it with 'model=m,gpu=RTX PRO 6000'"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nlacks %q", err, want)
		}
	}
	runs[1].Quantization = "INT4"
	runs[0].Quantization = "BF16"
	for i, line := range []string{"pick it with model=m,quantization=BF16", "pick it with model=m,quantization=INT4"} {
		if err := Ambiguous("model=m", runs); !strings.Contains(err.Error(), line) {
			t.Errorf("run %d: %v\nlacks %q", i, err, line)
		}
	}
	// A run-id prefix takes no filter: the longer prefix picks each.
	runs[1].RunID = "1111111122222222"
	if err := Ambiguous("1111", runs); !strings.Contains(err.Error(), "pick it with 111111111\n") || !strings.HasSuffix(err.Error(), "pick it with 111111112") {
		t.Errorf("%v", err)
	}
	for _, s := range runs {
		if sel := pickSelector("model=m", &s, runs, differingKeys(runs)); len(FilterRuns(runs, mustSelector(t, strings.Trim(sel, "'")))) != 1 {
			t.Errorf("%s does not pick one run", sel)
		}
	}
}

func mustSelector(t *testing.T, s string) Selector {
	t.Helper()
	sel, err := ParseSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// TestCloseness: equal, then a value containing the one asked for (the
// shorter first), then by edit distance.
func TestCloseness(t *testing.T) {
	runs := []schema.Run{{GPU: "RTX PRO 6000"}, {GPU: "H200 NVL"}, {GPU: "H200 NVL"}, {GPU: "H100"}, {GPU: "GH200 NVL2"}, {}}
	vals, without := presentValues(runs, "gpu", "h200")
	var got []string
	for _, v := range vals {
		got = append(got, v.value)
	}
	if strings.Join(got, "|") != "H200 NVL|GH200 NVL2|H100|RTX PRO 6000" || vals[0].runs != 2 || without != 1 {
		t.Errorf("values %q (first %d runs), %d without", got, vals[0].runs, without)
	}
}
