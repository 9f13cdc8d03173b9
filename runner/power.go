package runner

import (
	"context"
	"time"

	"speedmatrix/power"
	"speedmatrix/schema"
)

// NotePower is the Run metadata key of why no energy was recorded.
const NotePower = "Power"

// powerState is the run's power meter: started before the first cell
// when Config.Power names a source, closed when the run ends.
type powerState struct {
	meter power.Meter
	// why is the reason no meter runs (the source failed to start); every
	// cell says it.
	why string
	// onWindow, set by tests only, sees each cell's window and energy;
	// onIdle the idle window's.
	onWindow, onIdle func(from, to time.Time, e power.Energy, err error)
}

// startPower starts Config.Power's meter and measures the idle power for
// Config.PowerIdle, before any cell. A source that fails is said on every
// cell ("energy not recorded: …") and in the run's metadata; the run goes
// on. The returned stop closes the meter.
func (r *Runner) startPower(ctx context.Context, m *schema.Matrix) (stop func()) {
	src := r.cfg.Power
	if src == nil {
		return func() {}
	}
	if r.pw == nil {
		r.pw = &powerState{}
	}
	meter, err := src.Start(ctx)
	if err != nil {
		r.pw.why = err.Error()
		if r.cfg.Warn != nil {
			r.cfg.Warn("energy not recorded: " + r.pw.why)
		}
		if r.cfg.Done == nil {
			m.Run.Metadata = append(m.Run.Metadata, schema.Field{Section: "Run", Key: NotePower, Value: "energy not recorded: " + r.pw.why})
		}
		return func() {}
	}
	r.pw.meter = meter
	if m.Run.PowerSource == "" {
		m.Run.PowerSource = src.Name()
	}
	if m.Run.IdlePowerW == nil {
		r.idlePower(ctx, m)
	}
	return func() { _ = meter.Close() }
}

// idlePower measures the server's power before any load, for
// Config.PowerIdle: the energy over that time ÷ its length (the
// time-weighted mean of the samples).
func (r *Runner) idlePower(ctx context.Context, m *schema.Matrix) {
	from := time.Now()
	t := time.NewTimer(r.cfg.PowerIdle)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return
	}
	to := time.Now()
	e, err := r.pw.meter.Window(ctx, from, to)
	if r.pw.onIdle != nil {
		r.pw.onIdle(from, to, e, err)
	}
	if err != nil {
		if r.cfg.Done == nil {
			m.Run.Metadata = append(m.Run.Metadata, schema.Field{Section: "Run", Key: NotePower, Value: "idle power not recorded: " + err.Error()})
		}
		return
	}
	m.Run.IdlePowerW = schema.F64(roundTo(e.AvgW, 0.01))
}

// cellEnergy fills a decode cell's energy over its window from the run's
// meter: energy_j, avg_power_w = energy_j ÷ measured_s and
// output_tok_per_j = output_tokens ÷ energy_j (docs/schema.md). When no
// meter runs or the window fails, the columns stay null and the cell
// says why; the cell is never failed for it.
func (r *Runner) cellEnergy(ctx context.Context, m *schema.Measurement, run *cellRun) {
	if r.pw == nil || run.ws < 0 {
		return
	}
	if r.pw.meter == nil {
		run.note("energy not recorded: %s", r.pw.why)
		return
	}
	from, to := run.epoch.Add(time.Duration(run.ws)), run.epoch.Add(time.Duration(run.we))
	e, err := r.pw.meter.Window(ctx, from, to)
	if r.pw.onWindow != nil {
		r.pw.onWindow(from, to, e, err)
	}
	if err != nil {
		run.note("energy not recorded: %v", err)
		return
	}
	m.EnergyJ = schema.F64(roundTo(e.J, 0.001))
	if m.MeasuredS != nil && *m.MeasuredS > 0 {
		m.AvgPowerW = schema.F64(roundTo(e.J/roundTo(*m.MeasuredS, 0.001), 0.01))
	}
	if m.OutputTokens != nil && e.J > 0 {
		m.OutputTokPerJ = schema.F64(roundSig(float64(*m.OutputTokens)/e.J, 6))
	}
}

// loadEnergy fills a request rate's row with the energy over its span
// (first request handed over to the last one's end, ns from epoch: the
// row's measured_s, as serveRow computed it), as cellEnergy does for a
// decode cell's window.
func (r *Runner) loadEnergy(ctx context.Context, x *schema.Measurement, epoch time.Time, span [2]int64) {
	if r.pw == nil || x.MeasuredS == nil || span[0] < 0 || span[1] <= span[0] {
		return
	}
	run := &cellRun{epoch: epoch, ws: span[0], we: span[1]}
	r.cellEnergy(ctx, x, run)
	addNotes(x, run.notes)
}
