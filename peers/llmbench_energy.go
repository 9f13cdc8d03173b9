package peers

import "speedmatrix/schema"

// llmBenchEnergy fills the run's GPU count and each cell's power and
// energy from llm-inference-bench's hardware monitor (0.4.29 and later):
// hardware_run_summary.gpu_count for the run (else the cells'
// hardware_summary.gpu_count), and each cell's hardware_summary
// power_total_avg_w, the mean over the monitor's samples of the power of
// all the GPUs (W), as avg_power_w, with energy_j = that power ×
// measured_s. The figures stay in extra (hardware_*) and run metadata
// (section Hardware) as the file gives them. A gpu_count or power of 0
// (a host whose monitor read nothing) is no figure.
//
// Note: the monitor samples during the cell only (llm_decode_bench.py
// summarizes the samples taken between a cell's start and end:
// duration_seconds is the last sample's time less the first's), so its
// mean power is over the cell's window and energy = power × duration
// holds; it is a mean of samples a second or more apart, not an
// integrated counter.
func llmBenchEnergy(m *schema.Matrix, run map[string]num) {
	if n := run["gpu_count"]; n.Set && n.V >= 1 {
		setGPUCount(&m.Run, int(n.V), "llm-inference-bench hardware_run_summary.gpu_count")
	}
	stored := false
	for i := range m.Measurements {
		c := &m.Measurements[i]
		gpus := 0
		if n := extra1(c, "hardware_gpu_count"); n != nil && *n >= 1 {
			gpus = int(*n)
			setGPUCount(&m.Run, gpus, "llm-inference-bench hardware_summary.gpu_count of "+cellName(c))
		}
		if p := extra1(c, "hardware_power_total_avg_w"); p != nil {
			e := cellEnergy{PowerW: p, GPUs: gpus, What: "hardware_summary.power_total_avg_w"}
			if d := extra1(c, "hardware_duration_ms"); d != nil {
				e.Window = *d / 1000
			}
			if setEnergy(&m.Run, c, e) {
				stored = true
			}
		}
	}
	if stored {
		m.Run.PowerSource = "llm-inference-bench hardware monitor"
	}
}

// extra1 returns a cell's extra figure by name, or nil.
func extra1(c *schema.Measurement, name string) *float64 {
	for _, x := range c.Extra {
		if x.Name == name {
			v := x.Value
			return &v
		}
	}
	return nil
}
