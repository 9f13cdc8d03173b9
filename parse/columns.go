package parse

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"speedmatrix/schema"
)

// column is a known column of the All measurements table.
type column int

const (
	colUnknown column = iota
	colPhase
	colContext
	colConcurrency
	colStatus
	colTotal
	colPerRequest
	colTTFT
	colTBT
	colAvgActive
	colCompleted
	colOutput
	colMeasured
	numColumns
)

// columnNames names the columns in messages.
var columnNames = [numColumns]string{"", "Phase", "Context", "Requests at once", "Status", "Total tok/s",
	"Per request tok/s", "TTFT", "Time between tokens", "Average active requests", "Completed requests",
	"Output tokens", "Measured for"}

// headerAliases maps a normalized header (lower case, letters and digits
// only) to its column. Close variants seen in other tools' tables are
// listed too; anything else is an extra column, kept as printed.
var headerAliases = map[string]column{
	"phase": colPhase, "kind": colPhase, "test": colPhase, "stage": colPhase,
	"context": colContext, "contextlength": colContext, "ctx": colContext, "contextlen": colContext,
	"contexttokens": colContext, "promptlength": colContext, "promptlen": colContext, "contextsize": colContext,
	"requestsatonce": colConcurrency, "concurrency": colConcurrency, "simultaneousrequests": colConcurrency,
	"concurrentrequests": colConcurrency, "requests": colConcurrency, "parallel": colConcurrency,
	"parallelrequests": colConcurrency, "users": colConcurrency, "concurrent": colConcurrency, "clients": colConcurrency,
	"status": colStatus, "state": colStatus, "result": colStatus,
	"totaltoks": colTotal, "totaltokenspersecond": colTotal, "totalthroughput": colTotal, "throughput": colTotal,
	"toks": colTotal, "outputtoks": colTotal, "totaloutputtoks": colTotal, "tokenspersecond": colTotal, "total": colTotal,
	"perrequesttoks": colPerRequest, "perrequest": colPerRequest, "perrequesttokenspersecond": colPerRequest,
	"perusertoks": colPerRequest, "toksperrequest": colPerRequest, "perrequestthroughput": colPerRequest,
	"requesttoks": colPerRequest, "toksperuser": colPerRequest,
	"ttft": colTTFT, "timetofirsttoken": colTTFT, "medianttft": colTTFT, "ttftmedian": colTTFT, "ttftp50": colTTFT,
	"timebetweentokens": colTBT, "tbt": colTBT, "itl": colTBT, "intertokenlatency": colTBT, "tpot": colTBT,
	"timepertoken": colTBT, "timeperoutputtoken": colTBT, "mediantbt": colTBT, "tbtmedian": colTBT,
	"averageactiverequests": colAvgActive, "avgactiverequests": colAvgActive, "activerequests": colAvgActive,
	"meanactiverequests": colAvgActive, "averageactive": colAvgActive, "avgactive": colAvgActive,
	"completedrequests": colCompleted, "completed": colCompleted, "requestscompleted": colCompleted,
	"finishedrequests": colCompleted,
	"outputtokens":     colOutput, "generatedtokens": colOutput, "tokensgenerated": colOutput, "totaloutputtokens": colOutput,
	"measuredfor": colMeasured, "measured": colMeasured, "duration": colMeasured, "window": colMeasured,
	"measurementtime": colMeasured, "timepermeasurement": colMeasured, "measuredtime": colMeasured, "elapsed": colMeasured,
}

// headerKey lower-cases s and keeps only letters and digits.
func headerKey(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			var buf [64]byte
			return string(appendHeaderKey(buf[:0], s))
		}
	}
	return s // already a key
}

// appendHeaderKey appends headerKey(s) to dst. Callers that only compare
// or look up the key keep it in a stack buffer.
func appendHeaderKey(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			// Lower-casing may turn a non-ASCII letter into an ASCII one
			// (the Kelvin sign is a k).
			for _, r := range strings.ToLower(s[i:]) {
				if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
					dst = append(dst, byte(r))
				}
			}
			return dst
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			dst = append(dst, c)
		}
	}
	return dst
}

// columnOf maps a printed header to its column, trying it without a unit
// suffix ("TTFT (ms)", "Measured for (s)") when the whole does not match.
func columnOf(header string) column {
	var buf [64]byte
	k := appendHeaderKey(buf[:0], header)
	if c, ok := headerAliases[string(k)]; ok {
		return c
	}
	for _, suf := range []string{"ms", "s", "sec", "seconds", "toks"} {
		if c, ok := headerAliases[string(bytes.TrimSuffix(k, []byte(suf)))]; ok && bytes.HasSuffix(k, []byte(suf)) {
			return c
		}
	}
	return colUnknown
}

// headerKind is what a header row announces.
type headerKind int

const (
	headerOther  headerKind = iota
	headerFull              // All measurements: one row per cell
	headerMatrix            // the decode matrix: contexts × concurrencies
)

// classifyHeader tells the table a header row starts, from its cell
// texts alone: a full table names Phase (or Context with Status or a
// tok/s column); a matrix has a Context (or Requests) corner and numbers
// or context labels as the other headers.
func classifyHeader(h []string) headerKind {
	if len(h) < 2 {
		return headerOther
	}
	var seen [numColumns]bool
	for _, c := range h {
		seen[columnOf(c)] = true
	}
	if seen[colPhase] && (seen[colContext] || seen[colStatus] || seen[colTotal]) ||
		seen[colContext] && (seen[colStatus] || seen[colTotal]) && seen[colConcurrency] {
		return headerFull
	}
	for _, c := range h[1:] {
		if _, err := parseConcurrency(c); err == nil {
			continue
		}
		if n, err := contextTokens(c); err == nil && n > 0 {
			continue
		}
		return headerOther
	}
	switch columnOf(h[0]) {
	case colContext, colConcurrency, colUnknown:
		return headerMatrix
	}
	return headerOther
}

// matrixCells turns a decode matrix (header row and data rows, cell texts
// as printed) into cells. The corner cell says what rows are: "Context"
// (rows are contexts, columns simultaneous requests, as in the seeds) or
// "Requests"/"Concurrency" (transposed); without a telling corner, column
// headers with a K suffix are contexts. Each cell's text goes to Glued.
// The cells are taken from a.
func matrixCells(name string, header []string, headerLine int, rows []rawRow, a *arena[rawCell]) ([]rawCell, error) {
	rowsAreContexts := true
	switch columnOf(header[0]) {
	case colConcurrency:
		rowsAreContexts = false
	case colContext:
	default:
		if strings.ContainsAny(header[len(header)-1], "Kk") {
			rowsAreContexts = false
		}
	}
	var cells []rawCell // nil for a matrix without rows, as before
	if n := len(rows) * (len(header) - 1); n > 0 {
		cells = a.take(n)
	}
	for _, r := range rows {
		if len(r.Cells) != len(header) {
			return nil, errorf(name, r.Line, "decode matrix row has %d cells, its header at line %d has %d", len(r.Cells), headerLine, len(header))
		}
		// Note: the fields are set in place in cells' zeroed capacity
		// (made for exactly these cells), not appended as a struct: a
		// rawCell's copy into the slice (typedmemmove) walked its five
		// strings with a bulk write barrier while the collector ran, a
		// fifteenth of a seed's text extraction (0.10 of 1.53 s in a profile of
		// BenchmarkExtractText/000).
		ctx := r.Cells[0]
		for j, h := range header[1:] {
			cells = cells[:len(cells)+1]
			c := &cells[len(cells)-1]
			c.Glued, c.Line = r.Cells[j+1], r.Line
			if rowsAreContexts {
				c.Context, c.Concurrency = ctx, h
			} else {
				c.Context, c.Concurrency = h, ctx
			}
		}
	}
	return cells, nil
}

// parsePhase maps a printed phase to a schema phase.
func parsePhase(s string) (schema.Phase, bool) {
	var buf [64]byte
	k := appendHeaderKey(buf[:0], s)
	switch string(k) {
	case "prefill", "prompt", "promptprocessing", "pp", "prefillphase":
		return schema.PhasePrefill, true
	case "sustaineddecode", "decode", "generation", "tg", "decodephase", "sustainedgeneration":
		return schema.PhaseDecode, true
	case "serve", "serving", "servephase", "servebenchmark":
		return schema.PhaseServe, true
	}
	// Longer printings: "Prefill (prompt processing)", "Decode, sustained".
	switch {
	case bytes.Contains(k, []byte("prefill")):
		return schema.PhasePrefill, true
	case bytes.Contains(k, []byte("decode")):
		return schema.PhaseDecode, true
	case bytes.HasPrefix(k, []byte("serve")):
		return schema.PhaseServe, true
	}
	return "", false
}

// keyStartsWithDigit reports whether appendHeaderKey(nil, s) starts with
// a digit, looking at s's ASCII prefix only: false when a non-ASCII byte
// (which lower-casing could make a letter) comes first.
func keyStartsWithDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			return true
		case c >= utf8.RuneSelf || c|0x20 >= 'a' && c|0x20 <= 'z':
			return false
		}
	}
	return false
}

// parseStatus maps a printed status to a schema status.
//
// Note: a text whose key starts with a digit (a glued matrix cell, which
// agreesExactly asks about) is no status: every status word starts with a
// letter. keyStartsWithDigit answers without normalizing the text.
func parseStatus(s string) (schema.Status, bool) {
	if keyStartsWithDigit(s) {
		return "", false
	}
	var buf [64]byte
	k := appendHeaderKey(buf[:0], s)
	switch string(k) {
	case "valid", "ok":
		return schema.StatusValid, true
	case "looped", "loop":
		return schema.StatusLooped, true
	case "overcapacity":
		return schema.StatusOverCapacity, true
	case "skipped", "skip", "notrun":
		return schema.StatusSkipped, true
	case "error", "errored", "failed", "failure":
		return schema.StatusError, true
	}
	// Longer printings: "Over capacity (KV cache)", "Looped – discarded".
	for _, p := range []struct {
		word string
		st   schema.Status
	}{{"overcapacity", schema.StatusOverCapacity}, {"looped", schema.StatusLooped}, {"skipped", schema.StatusSkipped}, {"error", schema.StatusError}} {
		if bytes.HasPrefix(k, []byte(p.word)) {
			return p.st, true
		}
	}
	return "", false
}
