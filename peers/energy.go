package peers

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// Energy and GPU count shared by the readers (issue 26): each tool's file
// says what it measured in its own keys and units (aiperf.go: GPU
// telemetry; llmbench_energy.go: the hardware monitor; sglang.go and
// vllm.go: the server's parallel sizes); the rules that turn those into
// the columns are here, so that every tool's figures obey the same
// formulas (docs/schema.md): energy_j of all the server's GPUs over the
// cell's window, avg_power_w = energy_j ÷ measured_s, output_tok_per_j =
// output_tokens ÷ energy_j.

// minGPUPowerW is the least mean power one GPU is believed to draw over a
// benchmark's window: an idle board draws tens of watts, so a figure below
// 1 W per GPU is a unit error (MJ read as mJ), refused into a warning.
const minGPUPowerW = 1

// maxGPUPowerW is the largest power one GPU is believed to draw: a
// figure above it is a unit error (mW written as W, a sum taken for a
// mean), refused into a warning. The largest boards draw about 1.4 kW
// (a GB300 superchip's GPU), so 2 kW leaves room without taking kW for W.
const maxGPUPowerW = 2000

// Warnings is the run metadata section where a reader names a figure it
// refused or a conflict it resolved (a GPU count two sources give
// differently, a power figure in no stated unit).
const Warnings = "Warnings"

// warn records a warning in the run's metadata.
func warn(r *schema.Run, key, format string, args ...any) {
	addField(r, Warnings, key, fmt.Sprintf(format, args...))
}

// energyUnitJ returns the number of joules in one unit of an energy
// figure as a tool labels it ("MJ" for AIPerf's, "mJ" for DCGM's
// counter), and false for a unit that is absent or not an energy unit.
// The case of the prefix matters: MJ is 10⁶ J, mJ 10⁻³ J.
func energyUnitJ(unit string) (float64, bool) {
	switch strings.TrimSpace(unit) {
	case "J", "j", "joule", "joules", "Joules":
		return 1, true
	case "mJ", "millijoule", "millijoules":
		return 1e-3, true
	case "kJ", "KJ", "kj", "kilojoule", "kilojoules":
		return 1e3, true
	case "MJ", "megajoule", "megajoules":
		return 1e6, true
	case "Wh", "wh":
		return 3600, true
	case "kWh", "KWh", "kwh":
		return 3.6e6, true
	}
	return 0, false
}

// powerUnitW returns the number of watts in one unit of a power figure
// ("W", "mW", "kW"), and false for a unit that is absent or not power.
func powerUnitW(unit string) (float64, bool) {
	switch strings.TrimSpace(unit) {
	case "W", "w", "watt", "watts", "Watts":
		return 1, true
	case "mW", "milliwatt", "milliwatts":
		return 1e-3, true
	case "kW", "KW", "kw", "kilowatt", "kilowatts":
		return 1e3, true
	}
	return 0, false
}

// cellEnergy is what a tool says of a cell's energy: the energy of all
// the GPUs it counted over the cell's window, or their mean power over
// it, and where it came from.
type cellEnergy struct {
	// EnergyJ is the energy of all the GPUs over the window (nil when the
	// tool gives none).
	EnergyJ *float64
	// PowerW is the mean power of all the GPUs over the cell's window, used
	// only when the tool gives no energy.
	PowerW *float64
	// GPUs is how many GPUs the figures cover (0 when not known); it bounds
	// a plausible figure.
	GPUs int
	// Window is the duration, in seconds, the energy covers when the tool
	// says (0 when not): the mean power per GPU it implies is checked.
	Window float64
	// What names the figure in a warning ("aiperf telemetry energy").
	What string
}

// setEnergy fills a cell's energy columns from what the tool said,
// after checking it, by the formulas of docs/schema.md: energy_j as
// given, avg_power_w = energy_j ÷ measured_s, output_tok_per_j =
// output_tokens ÷ energy_j. Without an energy figure, a mean power over
// the cell's window gives avg_power_w, and energy_j = power × measured_s.
// A figure that is negative, not finite or implausible for the GPUs it
// covers is refused: a warning on the run names it, and the columns stay
// null. It reports whether a figure was stored.
//
// Note: energy is derived from power only where the tool's mean power is
// over the cell's own window (llm-inference-bench's per-cell hardware
// monitor); a mean over a longer window (a run-level summary) times the
// cell's duration would be another window's energy, so it is not used.
func setEnergy(r *schema.Run, c *schema.Measurement, e cellEnergy) bool {
	where := cellName(c)
	gpus := max(e.GPUs, 1)
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
	if e.EnergyJ != nil {
		j := *e.EnergyJ
		switch {
		case bad(j):
			warn(r, "energy_j", "%s: %s %g J refused: not a non-negative finite energy", where, e.What, j)
			return false
		case e.Window > 0 && implausible(j/e.Window/float64(gpus)):
			warn(r, "energy_j", "%s: %s %g J over %g s refused: %.3g W per GPU is not between %d and %d W (a unit error?)", where, e.What, j, e.Window, j/e.Window/float64(gpus), minGPUPowerW, maxGPUPowerW)
			return false
		case c.MeasuredS != nil && *c.MeasuredS > 0 && implausible(j / *c.MeasuredS / float64(gpus)):
			warn(r, "energy_j", "%s: %s %g J over the cell's %g s refused: %.3g W per GPU is not between %d and %d W (a unit error?)", where, e.What, j, *c.MeasuredS, j / *c.MeasuredS / float64(gpus), minGPUPowerW, maxGPUPowerW)
			return false
		}
		c.EnergyJ = schema.F64(j)
		if c.MeasuredS != nil && *c.MeasuredS > 0 {
			c.AvgPowerW = schema.F64(j / *c.MeasuredS)
		}
	} else if e.PowerW != nil {
		w := *e.PowerW
		if bad(w) || implausible(w/float64(gpus)) {
			// A monitor that read nothing writes 0 W: GPUs serving a
			// benchmark draw power, so 0 is no measurement either.
			warn(r, "avg_power_w", "%s: %s %g W refused: not a power of %d GPU(s) between %d and %d W each (a unit error, or a monitor that read none?)", where, e.What, w, gpus, minGPUPowerW, maxGPUPowerW)
			return false
		}
		c.AvgPowerW = schema.F64(w)
		if c.MeasuredS != nil && *c.MeasuredS > 0 {
			c.EnergyJ = schema.F64(w * *c.MeasuredS)
		}
	} else {
		return false
	}
	if c.EnergyJ != nil && *c.EnergyJ > 0 && c.OutputTokens != nil {
		c.OutputTokPerJ = schema.F64(float64(*c.OutputTokens) / *c.EnergyJ)
	}
	return true
}

// implausible reports whether a mean power per GPU is outside what a GPU
// draws: below minGPUPowerW or above maxGPUPowerW.
func implausible(w float64) bool { return w < minGPUPowerW || w > maxGPUPowerW }

// cellName names a cell in a warning: "serve at concurrency 4",
// "decode 8K × 2".
func cellName(c *schema.Measurement) string {
	s := string(c.Phase)
	if c.ContextLabel != "" && c.ContextLabel != UnknownContext {
		s += " " + c.ContextLabel
	}
	if c.Concurrency != nil {
		s += " × " + strconv.Itoa(int(*c.Concurrency))
	}
	if c.RequestRate != nil {
		s += " at " + strconv.FormatFloat(*c.RequestRate, 'f', -1, 64) + "/s"
	}
	return s
}

// setGPUCount sets the run's GPU count from a source, or, when an
// earlier (more direct) source set another, keeps that one and warns
// naming both. Callers apply sources in order of directness.
func setGPUCount(r *schema.Run, n int, source string) {
	if n < 1 || n > math.MaxInt32 {
		return
	}
	if r.GPUCount == nil {
		r.GPUCount = schema.I32(int32(n))
		addField(r, "Hardware", "GPU count source", source)
		return
	}
	if int(*r.GPUCount) != n {
		warn(r, "gpu_count", "%s says %d GPUs; kept %d from %s", source, n, *r.GPUCount, gpuCountSource(r))
	}
}

// gpuCountSource returns the source setGPUCount recorded for the run's
// GPU count.
func gpuCountSource(r *schema.Run) string {
	for _, f := range r.Metadata {
		if f.Section == "Hardware" && f.Key == "GPU count source" {
			return f.Value
		}
	}
	return "the file"
}

// parallelGPUs returns the GPUs a server of tensor × pipeline × data
// parallel sizes runs on; dpInTP is true when data parallelism runs
// inside the tensor parallel group (SGLang's --enable-dp-attention),
// adding no GPUs. It returns 0 when a size is not positive.
func parallelGPUs(tp, pp, dp int, dpInTP bool) int {
	if tp < 1 || pp < 1 || dp < 1 {
		return 0
	}
	if dpInTP {
		dp = 1
	}
	return tp * pp * dp
}
