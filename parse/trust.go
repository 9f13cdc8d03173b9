package parse

import (
	"errors"
	"fmt"
	"strings"

	"speedmatrix/redact"
	"speedmatrix/schema"
)

// admit is the one gate every parsed matrix passes before it is stamped
// with its run id and handed out (parseAllStream; buildStream and Rows
// for a document read in pieces): every string of it is redacted (a
// redact.Scrubber's walk: metadata keys and values, launch command and
// flags, model id and paths, URLs in any field, status reasons, printed
// texts), then every figure is checked by what it measures (admitFigures).
//
// Note: at this one place, not in each reader: the readers of other
// tools' files (peer_*.go) copy whatever their tool wrote into metadata,
// columns and Extra, and a reader added later is covered without a line
// of its own. The run id is computed after, from what is stored.
func admit(m *schema.Matrix, name string, peer bool) error {
	redact.Walk(m)
	if err := admitRunFigures(&m.Run, name, peer); err != nil {
		return err
	}
	for i := range m.Measurements {
		if err := admitFigures(&m.Measurements[i], name, peer); err != nil {
			return err
		}
		if err := admitExtra(&m.Measurements[i], &m.Run, name, peer); err != nil {
			return err
		}
	}
	return nil
}

// admitRows is admit for the measurements of a document read in pieces.
func admitRows(ms []schema.Measurement, name string) error {
	for i := range ms {
		redact.Walk(&ms[i])
		if err := admitFigures(&ms[i], name, false); err != nil {
			return err
		}
		if err := admitExtra(&ms[i], nil, name, false); err != nil {
			return err
		}
	}
	return nil
}

// sentinelNote ends the warning of a figure dropped as a tool's sentinel.
const sentinelNote = "not a measurement (the tool divided by a zero duration or count)"

// KeyDroppedFigure is the run metadata key (section "speedmatrix") of
// each figure admit dropped from another tool's file because it was
// Infinity or NaN there: an extra metric or a run figure has no status
// to carry the reason, so the run's metadata does.
const KeyDroppedFigure = "dropped figure"

// admitExtra checks a measurement's extra metrics that are, by their
// names, rates, latencies, durations, counts or token totals
// (schema.ExtraChecked). A negative one, or any outside another tool's
// file, is an error at the cell's line naming the metric; an infinite or
// undefined one in another tool's file (its sentinel) is dropped from
// Extra, and a warning naming cell, metric and value is kept in the
// run's metadata (run is nil for rows read in pieces: documents only).
func admitExtra(x *schema.Measurement, run *schema.Run, name string, peer bool) error {
	drop := 0
	for _, e := range x.Extra {
		fe := schema.CheckExtra(e)
		if fe == nil {
			continue
		}
		if !peer || !fe.NonFinite() || run == nil {
			return errorf(name, int(x.SourceLine), "%s: extra figure %v", describeCell(x), fe)
		}
		drop++
	}
	if drop == 0 {
		return nil
	}
	kept := x.Extra[:0:0]
	for _, e := range x.Extra {
		if schema.CheckExtra(e) == nil {
			kept = append(kept, e)
			continue
		}
		run.Metadata = append(run.Metadata, schema.Field{Section: "speedmatrix", Key: KeyDroppedFigure,
			Value: fmt.Sprintf("%s: extra figure %s is %s in the source: %s", describeCell(x), e.Name, schema.FormatFigure(e.Value), sentinelNote)})
	}
	x.Extra = kept
	return nil
}

// admitRunFigures checks the run's figures (schema's Run.CheckFigures:
// vram_gb, gpu_memory_utilization, measure_seconds) as admitFigures
// does a cell's: an error naming the field, except an infinite or
// undefined one in another tool's file, which is set to null with a
// warning in the run's metadata.
func admitRunFigures(run *schema.Run, name string, peer bool) error {
	for _, e := range run.CheckFigures() {
		if !peer || !e.NonFinite() {
			return errorf(name, 0, "run: %v", e)
		}
		run.ClearFigure(e.Field)
		run.Metadata = append(run.Metadata, schema.Field{Section: "speedmatrix", Key: KeyDroppedFigure,
			Value: fmt.Sprintf("run: %s is %s in the source: %s", e.Field, schema.FormatFigure(e.Value), sentinelNote)})
	}
	return nil
}

// admitFigures checks a measurement's figures (schema's CheckFigures). A
// figure no instrument can produce is an error at the cell's line naming
// the field, except an infinite or undefined one in another tool's file:
// that is the tool's sentinel for a division by a zero duration or count
// (Python's json writes Infinity and NaN), so the cell is kept with
// status error, the figure null and the reason naming field and value.
func admitFigures(x *schema.Measurement, name string, peer bool) error {
	bad := x.CheckFigures()
	if len(bad) == 0 {
		return nil
	}
	var sentinels []string
	for _, e := range bad {
		if !peer || !e.NonFinite() {
			return errorf(name, int(x.SourceLine), "%s: %v", describeCell(x), e)
		}
		x.ClearFigure(e.Field)
		sentinels = append(sentinels, fmt.Sprintf("%s is %s in the source", e.Field, schema.FormatFigure(e.Value)))
	}
	reason := strings.Join(sentinels, "; ") + ": " + sentinelNote
	if x.StatusReason != "" {
		reason = x.StatusReason + "; " + reason
	}
	x.Status, x.StatusReason = schema.StatusError, reason
	return nil
}

// describeCell names a cell in an error: its phase, context, concurrency
// and request rate as far as it has them.
func describeCell(x *schema.Measurement) string {
	s := string(x.Phase) + " cell"
	if x.ContextLabel != "" {
		s += " at context " + x.ContextLabel
	}
	if x.Concurrency != nil {
		s += fmt.Sprintf(", concurrency %d", *x.Concurrency)
	}
	if x.RequestRate != nil {
		s += ", request rate " + schema.FormatFigure(*x.RequestRate)
	}
	return s
}

// redactError returns err with every secret in its text redacted: an
// error quotes what it could not read, which may be a secret. A parse
// *Error keeps its type and position.
func redactError(err error) error { return redactErrorBy(err, nil) }

// redactErrorOf is redactError that also removes the secret values the
// document b holds (redact.Secrets), which an error may quote without
// the key that marks them. b may be nil or already released.
//
// Note: found by FuzzIngestSecrets: `in.json:1: invalid JSON: not a
// number: "…"` quoted an api_key's value planted where a figure stands.
func redactErrorOf(err error, b []byte) error {
	var sc *redact.Scrubber
	if len(b) > 0 {
		sc = redact.NewScrubber(redact.Secrets(string(b))...)
	}
	return redactErrorBy(err, sc)
}

func redactErrorBy(err error, sc *redact.Scrubber) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) && pe.Error() == err.Error() {
		c := *pe
		c.Msg = sc.String(c.Msg)
		return &c
	}
	if s := sc.String(err.Error()); s != err.Error() {
		return &redactedError{text: s, err: err}
	}
	return err
}

// redactedError is an error whose text had a secret: it prints the
// redacted text and unwraps to the original (for errors.Is and As).
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }
