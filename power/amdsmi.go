package power

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"speedmatrix/internal/source"
)

// AMDGPU is one GPU of amd-smi metric --power --energy --json.
type AMDGPU struct {
	// GPU is the gpu field (the index amd-smi gives it).
	GPU int
	// PowerW is power.socket_power in watts (HasPower false when the GPU
	// said "N/A"); PowerText is the value as written, with its unit.
	PowerW    float64
	HasPower  bool
	PowerText string
	// EnergyJ is energy.total_energy_consumption in joules (HasEnergy
	// false when absent or "N/A"); EnergyText as written.
	EnergyJ    float64
	HasEnergy  bool
	EnergyText string
}

// amdValue is amd-smi's {"value": …, "unit": …}; older versions write a
// bare number, and a GPU without the figure writes "N/A".
type amdValue struct {
	text  string
	value float64
	unit  string
	ok    bool
}

func (v *amdValue) UnmarshalJSON(b []byte) error {
	v.text = string(b)
	var s string
	if json.Unmarshal(b, &s) == nil {
		if s == "N/A" || s == "" {
			return nil
		}
		// "10 W" as a human-readable run writes it.
		num, unit, _ := strings.Cut(s, " ")
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return fmt.Errorf("value %q is not a number", s)
		}
		v.value, v.unit, v.ok = f, unit, true
		return nil
	}
	var f float64
	if json.Unmarshal(b, &f) == nil {
		v.value, v.ok = f, true
		return nil
	}
	var o struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("want a number, \"N/A\" or {\"value\", \"unit\"}, got %s", b)
	}
	if json.Unmarshal(o.Value, &s) == nil && s == "N/A" {
		return nil
	}
	if err := json.Unmarshal(o.Value, &f); err != nil {
		return fmt.Errorf("value %s is not a number", o.Value)
	}
	v.value, v.unit, v.ok = f, o.Unit, true
	return nil
}

type amdEntry struct {
	GPU    *int            `json:"gpu"`
	Power  json.RawMessage `json:"power"`
	Energy json.RawMessage `json:"energy"`
}

// ParseAMDSMI reads amd-smi metric --json output: a list of GPUs, or
// (newer versions) an object whose gpu_data holds that list. Bad input is
// an error at its line.
func ParseAMDSMI(b []byte, name string) ([]AMDGPU, error) {
	var list []json.RawMessage
	var wrapped struct {
		GPUData *[]json.RawMessage `json:"gpu_data"`
	}
	trim := bytes.TrimSpace(b)
	switch {
	case len(trim) > 0 && trim[0] == '[':
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, jsonError(b, name, err)
		}
	case len(trim) > 0 && trim[0] == '{':
		if err := json.Unmarshal(b, &wrapped); err != nil {
			return nil, jsonError(b, name, err)
		}
		if wrapped.GPUData == nil {
			return nil, source.Errorf(name, 1, "object without gpu_data")
		}
		list = *wrapped.GPUData
	default:
		return nil, source.Errorf(name, 1, "want a JSON list of GPUs or an object with gpu_data")
	}
	var out []AMDGPU
	off := 0
	for i, raw := range list {
		line := 1
		if k := bytes.Index(b[off:], raw); k >= 0 {
			line = lineAt(b, int64(off+k))
			off += k + len(raw)
		}
		var e amdEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, source.Errorf(name, line, "GPU %d: %v", i, err)
		}
		if e.GPU == nil {
			return nil, source.Errorf(name, line, "GPU entry %d has no gpu field", i)
		}
		g := AMDGPU{GPU: *e.GPU}
		if p, err := amdField(e.Power, "socket_power"); err != nil {
			return nil, source.Errorf(name, line, "gpu %d: power.socket_power: %v", g.GPU, err)
		} else if p.ok {
			w, err := scaleUnit(p.value, p.unit, map[string]float64{"": 1, "W": 1, "mW": 1e-3, "uW": 1e-6})
			if err != nil {
				return nil, source.Errorf(name, line, "gpu %d: power.socket_power: %v", g.GPU, err)
			}
			g.PowerW, g.HasPower, g.PowerText = w, true, p.text
		}
		if en, err := amdField(e.Energy, "total_energy_consumption"); err != nil {
			return nil, source.Errorf(name, line, "gpu %d: energy.total_energy_consumption: %v", g.GPU, err)
		} else if en.ok {
			j, err := scaleUnit(en.value, en.unit, map[string]float64{"J": 1, "kJ": 1e3, "mJ": 1e-3, "uJ": 1e-6})
			if err != nil {
				return nil, source.Errorf(name, line, "gpu %d: energy.total_energy_consumption: %v", g.GPU, err)
			}
			g.EnergyJ, g.HasEnergy, g.EnergyText = j, true, en.text
		}
		out = append(out, g)
	}
	return out, nil
}

// amdField reads key of a section ("power", "energy") that may be "N/A"
// or absent.
func amdField(section json.RawMessage, key string) (amdValue, error) {
	var v amdValue
	if len(section) == 0 || section[0] != '{' {
		return v, nil // absent, null or "N/A"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(section, &m); err != nil {
		return v, err
	}
	raw, ok := m[key]
	if !ok {
		return v, nil
	}
	err := json.Unmarshal(raw, &v)
	return v, err
}

func scaleUnit(v float64, unit string, units map[string]float64) (float64, error) {
	f, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("unit %q not understood", unit)
	}
	if v < 0 {
		return 0, errors.New("negative value")
	}
	return v * f, nil
}

// jsonError positions a JSON error at its line.
func jsonError(b []byte, name string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return source.Errorf(name, lineAt(b, se.Offset), "%v", err)
	case errors.As(err, &te):
		return source.Errorf(name, lineAt(b, te.Offset), "%v", err)
	}
	return source.Errorf(name, 0, "%v", err)
}

// amdReading sums GPUs: the energy counter when every GPU has one, and
// the power when every GPU has one.
func amdReading(gpus []AMDGPU, at time.Time) (Reading, error) {
	if len(gpus) == 0 {
		return Reading{}, errors.New("no GPU listed")
	}
	r := Reading{At: at, GPUs: len(gpus), HasEnergy: true, HasPower: true}
	for _, g := range gpus {
		r.EnergyJ += g.EnergyJ
		r.PowerW += g.PowerW
		r.HasEnergy = r.HasEnergy && g.HasEnergy
		r.HasPower = r.HasPower && g.HasPower
	}
	if !r.HasEnergy && !r.HasPower {
		return Reading{}, errors.New("no GPU energy counter or socket power (N/A)")
	}
	return r, nil
}

// AMDSMI samples this machine's AMD GPUs by running amd-smi metric
// --power --energy --json every Interval.
type AMDSMI struct {
	// Path is the command (default "amd-smi", looked up in PATH).
	Path string
	// Interval is the time between runs (default 1 s: amd-smi is a Python
	// program that takes a good part of a second to start).
	Interval time.Duration
	Timeouts Timeouts
}

// Name returns "amd-smi".
func (a *AMDSMI) Name() string { return "amd-smi" }

// Read runs amd-smi once, bounded by ctx.
func (a *AMDSMI) Read(ctx context.Context) ([]AMDGPU, time.Time, error) {
	path := a.Path
	if path == "" {
		path = "amd-smi"
	}
	cmd := exec.CommandContext(ctx, path, "metric", "--power", "--energy", "--json")
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{b: &stderr, max: 4096}
	out, err := cmd.Output()
	at := time.Now()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, at, fmt.Errorf("%w: %s", err, firstLine(msg))
		}
		return nil, at, err
	}
	gpus, err := ParseAMDSMI(out, "amd-smi output")
	return gpus, at, err
}

// Start runs amd-smi once (failing when it does not answer) and then
// every Interval.
func (a *AMDSMI) Start(ctx context.Context) (Meter, error) {
	interval := a.Interval
	if interval <= 0 {
		interval = time.Second
	}
	m, err := startPoll(ctx, interval, a.Timeouts, func(ctx context.Context) (Reading, error) {
		gpus, at, err := a.Read(ctx)
		if err != nil {
			return Reading{}, err
		}
		return amdReading(gpus, at)
	})
	if err != nil {
		return nil, fmt.Errorf("amd-smi: %w", err)
	}
	return m, nil
}
