package peers

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestGuideLLMYAMLReport reads guidellm's YAML report (what its
// save_file writes with PyYAML's yaml.dump for --outputs *.yaml; the
// fixture is the real JSON report beside it, dumped so): the same runs
// and figures as the JSON, line numbers of the YAML, and the load a
// rate (bug class 1), not the strategy's cap. Before, the YAML was read
// as a speed-test document and rejected without naming guidellm.
func TestGuideLLMYAMLReport(t *testing.T) {
	y, err := readPeer(t, "guidellm/llmd-benchmark-guidellm-0.8.0dev18-report-v2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	j, err := readPeer(t, "guidellm/llmd-benchmark-guidellm-0.8.0dev18-report-v2.json")
	if err != nil {
		t.Fatal(err)
	}
	if y.Run.SourceFormat != FormatGuideLLM || y.Run.BenchVersion != "0.8.0.dev18" || y.Run.ModelID != "e2e-mock-model" {
		t.Errorf("format %q version %q model %q", y.Run.SourceFormat, y.Run.BenchVersion, y.Run.ModelID)
	}
	if !reflect.DeepEqual(y.Run.Metadata, j.Run.Metadata) {
		t.Errorf("metadata differs:\nyaml %v\njson %v", y.Run.Metadata, j.Run.Metadata)
	}
	if len(y.Measurements) != 2 || len(j.Measurements) != 2 {
		t.Fatalf("%d and %d cells, want 2", len(y.Measurements), len(j.Measurements))
	}
	for i := range y.Measurements {
		yc, jc := y.Measurements[i], j.Measurements[i]
		if yc.SourceLine != []int64{1876, 3752}[i] {
			t.Errorf("cell %d: source line %d, want the YAML's", i, yc.SourceLine)
		}
		yc.SourceLine, jc.SourceLine = 0, 0
		yb, _ := json.Marshal(yc)
		jb, _ := json.Marshal(jc)
		if string(yb) != string(jb) {
			t.Errorf("cell %d differs:\nyaml %s\njson %s", i, yb, jb)
		}
	}
	c := &y.Measurements[1]
	checkFields(t, []fieldCheck{
		{"load is the rate", c.RequestRate, 4},
		{"ttft p50", c.TTFTMs, 9.419918060302734},
		{"e2e p90", c.E2EP90Ms, 19.294023513793945},
		{"output tok/s", c.TotalTokS, 6.352705611149902},
	})
	if c.Concurrency != nil {
		t.Errorf("a rate benchmark stored with concurrency %d", *c.Concurrency)
	}
}

// TestYAMLToJSON checks the conversion's scalar types, key order, lines
// and its refusals.
func TestYAMLToJSON(t *testing.T) {
	in := "b: 1\na:\n  - .inf\n  - -.inf\n  - .nan\n  - 2.5e-07\n  - 'x: y'\n  - true\n  - null\n  - 12345678901234567890\nc: &k {d: 1}\ne: *k\n"
	got, err := yamlToJSON("t.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"b\": 1,\n\"a\": [\nInfinity,\n-Infinity,\nnull,\n2.5e-07,\n\"x: y\",\ntrue,\nnull,\n1.2345678901234567e+19],\n\"c\": {\"d\": 1},\n\"e\": {\"d\": 1}}"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var v map[string]any
	if err := json.Unmarshal(sanitizeJSON(got), &v); err != nil {
		t.Errorf("not JSON once sanitized: %v", err)
	}
	if _, err := yamlToJSON("t.yaml", []byte("a: 1\nb: [1,\n  c: d: e\n")); err == nil || !strings.Contains(err.Error(), "t.yaml:") {
		t.Errorf("bad YAML: %v", err)
	}
	// Nine levels of aliases, each ten times the last: 10⁹ values.
	var laughs strings.Builder
	laughs.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		laughs.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for k := 0; k < 10; k++ {
			if k > 0 {
				laughs.WriteString(", ")
			}
			laughs.WriteString("*a" + string(rune('0'+i-1)))
		}
		laughs.WriteString("]\n")
	}
	if _, err := yamlToJSON("t.yaml", []byte(laughs.String())); err == nil || !strings.Contains(err.Error(), "aliases") {
		t.Errorf("alias bomb: %v", err)
	}
}

// FuzzYAMLToJSON checks that any input converts to valid JSON or gives a
// positioned error, within bounded work.
func FuzzYAMLToJSON(f *testing.F) {
	for _, s := range []string{
		"benchmarks:\n- metrics: {}\nmetadata:\n  version: 2\n",
		"a: &x [1, 2]\nb: *x\nc: .inf\nd: !!python/tuple [1, 2]\n",
		"k: 'v'\nl:\n  - 1\n  - {m: n}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		j, err := yamlToJSON("f.yaml", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml:") {
				t.Fatalf("error not positioned: %v", err)
			}
			return
		}
		var v any
		if err := json.Unmarshal(sanitizeJSON(j), &v); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, j)
		}
	})
}
