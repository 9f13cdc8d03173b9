package peers

import "encoding/json"

// aiperfConfig holds what speedmatrix reads of the input_config block,
// whose layout changed from version to version:
//   - AIPerf 0.8: endpoint.model_names, endpoint.url(s), loadgen.concurrency
//     and loadgen.request_rate;
//   - AIPerf 0.10 (schema 1.3): models.items[].name, endpoint.urls, and
//     phases[] (warm-up phases marked exclude_from_results) with a
//     concurrency or a rate;
//   - GenAI-Perf, command-line era: model (a list or a string), endpoint
//     (the path, a string), u (the URL), concurrency, request_rate;
//   - GenAI-Perf, config-file era: model_names, endpoint.url and
//     perf_analyzer.stimulus.{concurrency,request_rate}.
type aiperfConfig struct {
	Model      json.RawMessage `json:"model"`
	ModelNames []string        `json:"model_names"`
	Models     struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
	} `json:"models"`
	Endpoint json.RawMessage `json:"endpoint"`
	U        string          `json:"u"`
	Loadgen  struct {
		Concurrency num `json:"concurrency"`
		RequestRate num `json:"request_rate"`
	} `json:"loadgen"`
	Phases []struct {
		Exclude     bool `json:"exclude_from_results"`
		Concurrency num  `json:"concurrency"`
		Rate        num  `json:"rate"`
	} `json:"phases"`
	PerfAnalyzer struct {
		Stimulus struct {
			Concurrency num `json:"concurrency"`
			RequestRate num `json:"request_rate"`
		} `json:"stimulus"`
	} `json:"perf_analyzer"`
	Concurrency num   `json:"concurrency"`
	RequestRate num   `json:"request_rate"`
	Streaming   *bool `json:"streaming"` // GenAI-Perf, command-line era
	// Datasets (AIPerf 0.8 and later) hold the requested synthetic prompt
	// length as prompts.isl.mean.
	Datasets []struct {
		Prompts struct {
			ISL struct {
				Mean num `json:"mean"`
			} `json:"isl"`
		} `json:"prompts"`
	} `json:"datasets"`
	// SLOs are --goodput's bounds (AIPerf 0.10 and later: "slos"; 0.8:
	// "goodput"), in the metric's display unit (ms for latencies).
	SLOs    map[string]num `json:"slos"`
	Goodput map[string]num `json:"goodput"`
	// Artifacts holds the command line in AIPerf 0.8.
	Artifacts struct {
		CLICommand string `json:"cli_command"`
	} `json:"artifacts"`
	// Input holds the requested synthetic prompt length.
	Input struct {
		Prompt struct {
			InputTokens struct {
				Mean num `json:"mean"`
			} `json:"input_tokens"`
		} `json:"prompt"`
	} `json:"input"`
}

// aiperfEndpoint is input_config.endpoint when it is an object.
type aiperfEndpoint struct {
	ModelNames []string `json:"model_names"`
	URL        string   `json:"url"`
	URLs       []string `json:"urls"`
	Streaming  *bool    `json:"streaming"`
}

// model returns the first model name the config records.
func (cfg *aiperfConfig) model(ep aiperfEndpoint) string {
	switch {
	case len(ep.ModelNames) > 0:
		return ep.ModelNames[0]
	case len(cfg.Models.Items) > 0:
		return cfg.Models.Items[0].Name
	case len(cfg.ModelNames) > 0:
		return cfg.ModelNames[0]
	}
	var names []string
	var one string
	if json.Unmarshal(cfg.Model, &names) == nil && len(names) > 0 {
		return names[0]
	}
	if json.Unmarshal(cfg.Model, &one) == nil {
		return one
	}
	return ""
}

// load returns the concurrency and request rate the measured phase ran
// at, from whichever place the version keeps them.
func (cfg *aiperfConfig) load() (conc, rate num) {
	conc, rate = cfg.Loadgen.Concurrency, cfg.Loadgen.RequestRate
	for _, p := range cfg.Phases {
		if !p.Exclude {
			conc, rate = firstSet(conc, p.Concurrency), firstSet(rate, p.Rate)
			break
		}
	}
	s := cfg.PerfAnalyzer.Stimulus
	return firstSet(conc, s.Concurrency, cfg.Concurrency), firstSet(rate, s.RequestRate, cfg.RequestRate)
}

// firstSet returns the first of ns that is set.
func firstSet(ns ...num) num {
	for _, n := range ns {
		if n.Set {
			return n
		}
	}
	return num{}
}
