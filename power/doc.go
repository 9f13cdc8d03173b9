// Package power measures the energy a server's GPUs draw over a window of
// time: the source of a run's energy figures (schema.Measurement's
// energy_j, avg_power_w and output_tok_per_j, schema.Run's power_source
// and idle_power_w; docs/schema.md has the formulas).
//
// # Pipeline
//
// A Source names where the figures come from and starts a Meter; the
// Meter samples in the background from Start until Close, and
// Meter.Window returns the Energy between two instants, once a sample at
// or after the window's end has arrived (waiting for it is bounded).
// Every source reduces what it reads to Readings: the sum over GPUs of an
// energy counter (joules since some origin) and/or of the power (watts),
// at the instant the reading was taken. A window's energy is then
//
//   - with a counter: its value interpolated linearly at both edges
//     between the readings around them, end minus start (counters are
//     exact between readings; only the edges are interpolated), or
//   - with power only: the power samples integrated over the window
//     (trapezoids between readings, the edges interpolated).
//
// Energy.EdgeJ says how far the interpolation at the edges can be off:
// for a counter, the energy drawn in the two sample intervals that hold
// the edges bounds it (a counter that only rises cannot leave the
// interval its neighbours enclose).
//
// # Sources
//
//   - DCGM exporter (dcgm.go): GET /metrics in the Prometheus text format,
//     read with prometheus/common/expfmt; DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION
//     (mJ counter per GPU), else DCGM_FI_DEV_POWER_USAGE (W gauge per GPU).
//   - nvidia-smi (nvidiasmi.go): one subprocess,
//     nvidia-smi --query-gpu=timestamp,index,power.draw.instant,power.draw
//     --format=csv,nounits -lms 100, read line by line; nvidia-smi has no
//     energy counter among its query fields (the --help-query-gpu of
//     driver 590.48.01 lists power.draw, power.draw.average,
//     power.draw.instant and module.power.*, no energy), so its power is
//     integrated. Drivers older than power.draw.instant fall back to
//     power.draw (on Ampere and newer a one-second average).
//   - amd-smi (amdsmi.go): amd-smi metric --power --energy --json, run
//     once per sample; energy.total_energy_consumption (J) per GPU when
//     the GPU reports it, else power.socket_power (W).
//   - Prometheus (prometheus.go): instant queries of an expression at the
//     window's two edges (/api/v1/query?query=…&time=…): an energy
//     counter (the default sums DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION);
//     Prometheus already holds the samples, so it starts no sampling.
//
// Every network call and subprocess is bounded in time: a scrape or query
// by Timeouts.Request, a one-shot command by the same, the streaming
// nvidia-smi by the meter's life (it is killed on Close) and each of its
// lines by Timeouts.Silence. Every parser takes bytes or a reader and a
// name and reports bad input as "name:line: message".
//
// Spec (spec.go) parses the user's choice (-power off|auto|dcgm=URL|
// nvidia-smi|amd-smi|prometheus=URL); Auto finds a source: a DCGM exporter
// on the server's host at :9400, then nvidia-smi or amd-smi in PATH when
// the server runs on this machine (a loopback address).
//
// No GPU was available where this package was written: the parsers are
// tested against recorded real outputs (testdata/ORIGIN.md) and the
// meters against a live simulated exporter (runner/sim) and fake
// commands, not against a GPU.
package power
