package peers

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// telemetryGPU is one GPU of AIPerf's or GenAI-Perf's telemetry: where it
// was scraped, what identifies it, and its metric blocks by name.
type telemetryGPU struct {
	Endpoint, Host, UUID, Index string
	Metrics                     map[string]*aiperfStats
}

// id identifies a GPU across telemetry endpoints: its UUID, else its
// host and index, else the endpoint and index.
func (g telemetryGPU) id() string {
	switch {
	case g.UUID != "":
		return g.UUID
	case g.Host != "":
		return g.Host + " GPU " + g.Index
	}
	return strings.TrimSpace(g.Endpoint + " GPU " + g.Index)
}

// metric returns the first of a GPU's metric blocks by names (AIPerf
// renamed them nvidia_* in 2026), or nil.
func (g telemetryGPU) metric(names ...string) *aiperfStats {
	for _, n := range names {
		if s := g.Metrics[n]; s != nil {
			return s
		}
	}
	return nil
}

// The metric names of a GPU's energy counter and power gauge in AIPerf's
// and GenAI-Perf's telemetry (DCGM's DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION
// and DCGM_FI_DEV_POWER_USAGE).
var (
	telemetryEnergyNames = []string{"energy_consumption", "nvidia_energy_consumption"}
	telemetryPowerNames  = []string{"gpu_power_usage", "nvidia_power_usage", "nvidia_gpu_power_usage"}
)

// gpuNames names the GPUs of a telemetry block in extra: gpu<index>, or
// endpoint<k>_gpu<index> for a GPU whose index a GPU of an earlier
// endpoint took (k numbering the endpoints from 1 in the order seen).
type gpuNames struct {
	used      map[string]bool
	endpoints map[string]int
}

// prefix returns the name prefix of GPU index of an endpoint.
func (n *gpuNames) prefix(endpoint, index string) string {
	if n.used == nil {
		n.used, n.endpoints = map[string]bool{}, map[string]int{}
	}
	if _, ok := n.endpoints[endpoint]; !ok {
		n.endpoints[endpoint] = len(n.endpoints) + 1
	}
	p := "gpu" + metricKey(index)
	if n.used[p] {
		p = "endpoint" + strconv.Itoa(n.endpoints[endpoint]) + "_" + p
	}
	n.used[p] = true
	return p
}

// telemetryEnergy fills the run's GPU count and the cell's energy columns
// from AIPerf's or GenAI-Perf's GPU telemetry, and names the source in
// Run.PowerSource. The raw figures stay in extra as they are.
//
// GPU count: the distinct GPUs the telemetry lists (by UUID; a GPU two
// exporters both scrape, as in AIPerf's default localhost:9400 and :9401,
// counts once, with a warning). These are the GPUs the exporters saw, the
// server's when the exporter runs beside it.
//
// Energy, the most direct figure first:
//   - total_gpu_energy (AIPerf 2026: the sum over GPUs of the counter's
//     increase over the profiling phase), in its unit (J);
//   - else each GPU's energy_consumption summed over the distinct GPUs:
//     a block of one value (AIPerf since February 2026, ai-dynamo/aiperf
//     #596) is the counter's increase over the profiling phase; a block
//     of statistics (min, max, percentiles: earlier AIPerf and GenAI-Perf)
//     holds samples of the counter since boot, whose increase over the
//     telemetry window is max − min;
//   - else no energy: the sum of the GPUs' mean power gives avg_power_w
//     alone.
//
// Note: a counter's increase is over AIPerf's telemetry window, which
// before #596 began with the warm-up and ended at the last scrape, a few
// seconds away from benchmark_duration's window (258.9 s against 255.6 s
// in the real file aiperf/aiperf-plot-qwen-concurrency1-telemetry.json):
// it is the tool's energy of the run, stored as the cell's. Power is not
// multiplied by the duration for AIPerf, since its gauge window is not
// the cell's in every version; avg_power_w then holds the telemetry's
// mean power and energy_j stays null.
func telemetryEnergy(r *schema.Run, c *schema.Measurement, tool string, stats map[string]*aiperfStats, gpus []telemetryGPU) {
	// Distinct GPUs, in the order listed.
	var distinct []telemetryGPU
	seen := map[string][]string{}
	for _, g := range gpus {
		id := g.id()
		if _, ok := seen[id]; !ok {
			distinct = append(distinct, g)
		}
		seen[id] = append(seen[id], firstNonEmpty(g.Endpoint, g.Host, "telemetry"))
	}
	for _, id := range slices.Sorted(maps.Keys(seen)) {
		if eps := seen[id]; len(eps) > 1 {
			warn(r, "gpu_telemetry", "GPU %s is listed %d times (%s): counted once, with the figures of %s", id, len(eps), strings.Join(eps, ", "), eps[0])
		}
	}
	if len(distinct) > 0 {
		setGPUCount(r, len(distinct), tool+" GPU telemetry ("+strconv.Itoa(len(distinct))+" distinct GPUs)")
	}
	source := tool + " gpu telemetry"
	e := cellEnergy{GPUs: len(distinct)}
	if s := stats["total_gpu_energy"]; s != nil && s.Stat["avg"].Set {
		// Read, not marked: the block stays in extra as total_gpu_energy_avg.
		k, ok := energyUnitJ(s.Unit)
		if !ok {
			warn(r, "energy_j", "%s: total_gpu_energy %g in unit %q refused: not an energy unit", cellName(c), s.Stat["avg"].V, s.Unit)
			return
		}
		e.EnergyJ, e.What = schema.F64(s.Stat["avg"].V*k), tool+" total_gpu_energy"
		if setEnergy(r, c, e) {
			r.PowerSource = source
		}
		return
	}
	var energy, power float64
	withEnergy, withPower := 0, 0
	for _, g := range distinct {
		if s := g.metric(telemetryEnergyNames...); s != nil {
			k, ok := energyUnitJ(s.Unit)
			if !ok {
				warn(r, "energy_j", "%s: GPU %s energy_consumption in unit %q refused: not an energy unit", cellName(c), g.id(), s.Unit)
				return
			}
			lo, hi, avg := s.Stat["min"], s.Stat["max"], s.Stat["avg"]
			switch {
			case lo.Set && hi.Set:
				energy += (hi.V - lo.V) * k
				withEnergy++
			case avg.Set:
				energy += avg.V * k
				withEnergy++
			}
		}
		if s := g.metric(telemetryPowerNames...); s != nil && s.Stat["avg"].Set {
			k, ok := powerUnitW(s.Unit)
			if !ok {
				warn(r, "avg_power_w", "%s: GPU %s power %g in unit %q refused: not a power unit", cellName(c), g.id(), s.Stat["avg"].V, s.Unit)
				return
			}
			power += s.Stat["avg"].V * k
			withPower++
		}
	}
	switch {
	case withEnergy > 0 && withEnergy < len(distinct):
		warn(r, "energy_j", "%s: energy_consumption of %d of %d GPUs only: no energy for the server", cellName(c), withEnergy, len(distinct))
	case withEnergy > 0:
		e.EnergyJ, e.What = schema.F64(energy), tool+" energy_consumption"
		if setEnergy(r, c, e) {
			r.PowerSource = source
		}
	case withPower > 0 && withPower < len(distinct):
		warn(r, "avg_power_w", "%s: gpu_power_usage of %d of %d GPUs only: no power for the server", cellName(c), withPower, len(distinct))
	case withPower > 0:
		// The telemetry's mean power; its window is not the cell's in
		// every version, so no energy is derived (setEnergy would).
		if math.IsNaN(power) || implausible(power/float64(len(distinct))) {
			warn(r, "avg_power_w", "%s: %s gpu_power_usage %g W of %d GPU(s) refused: not between %d and %d W per GPU (a unit error?)", cellName(c), tool, power, len(distinct), minGPUPowerW, maxGPUPowerW)
			return
		}
		c.AvgPowerW = schema.F64(power)
		r.PowerSource = source
	}
}
