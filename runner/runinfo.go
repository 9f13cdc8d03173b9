package runner

import (
	"fmt"
	"os"
	"strings"
	"time"

	"speedmatrix/internal/version"
	"speedmatrix/schema"
)

// fillRun sets the run's metadata.
func (r *Runner) fillRun(m *schema.Matrix, info ServerInfo, started time.Time) {
	cfg := &r.cfg
	run := &m.Run
	run.SchemaVersion = schema.Version
	run.SourceFormat = schema.FormatRun
	run.Model = r.c.model
	run.ServedModel = r.c.model
	run.ModelID = r.c.model
	run.GPU = cfg.Labels.GPU
	run.VRAMGB = cfg.Labels.VRAMGB
	run.Quantization = cfg.Labels.Quantization
	run.Engine = cfg.Labels.Engine
	run.EngineVersion = cfg.Labels.EngineVersion
	if run.Engine == "" && run.EngineVersion == "" {
		// Ollama's "0.0.0" or llama.cpp's "b5200-…" says little
		// without the name its endpoint tells.
		run.Engine = info.Engine
	}
	if run.EngineVersion == "" {
		// "speedmatrix-sim 1" from an engine labelled speedmatrix-sim is
		// version "1": the name is not printed twice.
		run.EngineVersion = info.Version
		if run.Engine != "" {
			if v, ok := strings.CutPrefix(info.Version, run.Engine+" "); ok && strings.TrimSpace(v) != "" {
				run.EngineVersion = strings.TrimSpace(v)
			}
		}
	}
	run.LaunchCommand = cfg.Labels.LaunchCommand
	run.BenchTool = BenchTool
	run.BenchVersion = ClientVersion()
	run.ClientVersion = ClientVersion()
	run.DecodeTest = "Fixed duration"
	if cfg.PrefillMode == PrefillStandalone {
		run.PrefillMode = fmt.Sprintf("Standalone, median of %d cold prompts", cfg.PrefillRepeats)
	} else {
		run.PrefillMode = "Measured during decode warm-up"
	}
	run.MeasureSeconds = schema.F64(cfg.Duration.Seconds())
	run.MaxOutputTokens = schema.I64(int64(cfg.MaxTokens))
	if info.MaxModelLen > 0 {
		run.MaxModelLen = schema.I64(info.MaxModelLen)
	}
	if info.KVTokens > 0 {
		run.KVBudgetTokens = schema.I64(info.KVTokens)
	}
	s := started.UTC()
	run.StartedAt = &s
	run.Host, _ = os.Hostname()
	run.ServerURL = r.c.base
	run.Endpoint = r.c.endpoint
	run.Dataset = "neutral prose, tag " + cfg.Tag + "; prompt lengths " + info.PromptFit.Describe()
	title := run.Model
	if run.GPU != "" {
		title += " on " + run.GPU
	}
	run.Title = title
	if cfg.Labels.Extra != nil {
		cfg.Labels.Extra(run)
	}
}

// ClientVersion returns the running binary's version as documents
// record it after the tool's name: the module version, plus the commit
// and ".dirty" when the build carries them (package version).
func ClientVersion() string { return version.Read().Document() }
