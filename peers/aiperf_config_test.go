package peers

import (
	"encoding/json"
	"testing"
)

// TestAIPerfConfigByVersion reads the model and the load from the place
// each AIPerf and GenAI-Perf version keeps them in input_config.
func TestAIPerfConfigByVersion(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		model        string
		conc, rate   num
	}{
		{"AIPerf 0.8", `{"endpoint":{"model_names":["m8"],"url":"u"},"loadgen":{"concurrency":16}}`, "m8", num{16, true}, num{}},
		{"AIPerf 0.10 phases", `{"models":{"items":[{"name":"m10"}]},"endpoint":{"urls":["u"]},
			"phases":[{"exclude_from_results":true,"concurrency":1},{"concurrency":32,"rate":4}]}`, "m10", num{32, true}, num{4, true}},
		{"GenAI-Perf command line", `{"model":["g1"],"endpoint":"v1/chat/completions","u":"u","concurrency":8,"request_rate":2}`, "g1", num{8, true}, num{2, true}},
		{"GenAI-Perf model as a string", `{"model":"g2","concurrency":"4"}`, "g2", num{4, true}, num{}},
		{"GenAI-Perf config file", `{"model_names":["g3"],"endpoint":{"url":"u"},"perf_analyzer":{"stimulus":{"request_rate":10}}}`, "g3", num{}, num{10, true}},
	} {
		var cfg aiperfConfig
		if err := json.Unmarshal([]byte(tc.config), &cfg); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var ep aiperfEndpoint
		_ = json.Unmarshal(cfg.Endpoint, &ep) // a string in the command-line era
		conc, rate := cfg.load()
		if m := cfg.model(ep); m != tc.model || conc != tc.conc || rate != tc.rate {
			t.Errorf("%s: model %q, load %+v %+v; want %q, %+v %+v", tc.name, m, conc, rate, tc.model, tc.conc, tc.rate)
		}
	}
}
