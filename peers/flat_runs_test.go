package peers

import (
	"reflect"
	"testing"

	"speedmatrix/schema"
)

// TestSplitRuns groups a file's results by model and configuration, in
// order of first appearance, labelled by what sets each run apart.
func TestSplitRuns(t *testing.T) {
	kv := func(pairs ...string) []schema.KV {
		var out []schema.KV
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, schema.KV{Key: pairs[i], Value: pairs[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		models  []string
		configs [][]schema.KV
		groups  [][]int
		labels  []string
	}{
		{"one run", []string{"m", "m"}, [][]schema.KV{kv("label", "a"), kv("label", "a")}, [][]int{{0, 1}}, []string{""}},
		{"two deployments, interleaved", []string{"m", "m", "m"},
			[][]schema.KV{kv("deployment", "base", "tag", "x"), kv("deployment", "kvcache", "tag", "x"), kv("deployment", "base", "tag", "x")},
			[][]int{{0, 2}, {1}}, []string{"deployment=base", "deployment=kvcache"}},
		{"only the model differs", []string{"a", "b"}, [][]schema.KV{nil, nil}, [][]int{{0}, {1}}, []string{"", ""}},
		{"two settings apart", []string{"m", "m"}, [][]schema.KV{kv("max_num_seqs", "64", "output_len", "128"), kv("max_num_seqs", "128", "output_len", "128")},
			[][]int{{0}, {1}}, []string{"max_num_seqs=64", "max_num_seqs=128"}},
	} {
		groups, labels := splitRuns(tc.models, tc.configs)
		if !reflect.DeepEqual(groups, tc.groups) || !reflect.DeepEqual(labels, tc.labels) {
			t.Errorf("%s: groups %v labels %q; want %v %q", tc.name, groups, labels, tc.groups, tc.labels)
		}
	}
}
