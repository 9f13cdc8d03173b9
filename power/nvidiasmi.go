package power

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"speedmatrix/internal/source"
)

// SMIRow is one line of nvidia-smi --query-gpu CSV output: one GPU at one
// instant.
type SMIRow struct {
	// Line is the row's 1-based line, Text the line as written.
	Line int
	Text string
	// At is the timestamp column read in the local time zone (nvidia-smi
	// writes local time without a zone); zero when the row has none.
	At time.Time
	// Index is the GPU's index column (-1 when absent).
	Index int
	// PowerW is the power column used: power.draw.instant when it holds a
	// number, else power.draw; HasPower false when neither does
	// ("[N/A]", "[Not Supported]").
	PowerW   float64
	HasPower bool
	// Field names the column PowerW came from.
	Field string
}

// smiTimeLayout is nvidia-smi's timestamp ("2026/07/14 08:12:38.696").
const smiTimeLayout = "2006/01/02 15:04:05.000"

// smiParser reads nvidia-smi CSV line by line: a header line (the first
// field "timestamp" or "index", as --format=csv writes it, units in
// brackets) names the columns of the rows after it.
type smiParser struct {
	name string
	cols map[string]int
	loc  *time.Location
}

func newSMIParser(name string) *smiParser {
	return &smiParser{name: name, loc: time.Local}
}

// line parses one line: a header (ok false), a row, or an error.
func (p *smiParser) line(text string, n int) (row SMIRow, ok bool, err error) {
	t := strings.TrimSpace(strings.TrimPrefix(text, "\ufeff"))
	if t == "" {
		return SMIRow{}, false, nil
	}
	fields := strings.Split(t, ",")
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	if isSMIHeader(fields) {
		p.cols = map[string]int{}
		for i, f := range fields {
			name, _, _ := strings.Cut(f, " [")
			p.cols[strings.TrimSpace(name)] = i
		}
		if _, ok := p.cols["power.draw"]; !ok {
			if _, ok := p.cols["power.draw.instant"]; !ok {
				return SMIRow{}, false, source.Errorf(p.name, n, "header has no power.draw or power.draw.instant column")
			}
		}
		return SMIRow{}, false, nil
	}
	if p.cols == nil {
		return SMIRow{}, false, source.Errorf(p.name, n, "row before any header line (run nvidia-smi with --format=csv, not noheader)")
	}
	if len(fields) < len(p.cols) {
		return SMIRow{}, false, source.Errorf(p.name, n, "%d fields, the header names %d", len(fields), len(p.cols))
	}
	row = SMIRow{Line: n, Text: text, Index: -1}
	if i, ok := p.cols["timestamp"]; ok {
		at, err := time.ParseInLocation(smiTimeLayout, fields[i], p.loc)
		if err != nil {
			return SMIRow{}, false, source.Errorf(p.name, n, "timestamp %q: want YYYY/MM/DD hh:mm:ss.mmm", fields[i])
		}
		row.At = at
	}
	if i, ok := p.cols["index"]; ok {
		x, err := strconv.Atoi(fields[i])
		if err != nil || x < 0 {
			return SMIRow{}, false, source.Errorf(p.name, n, "index %q: not a GPU index", fields[i])
		}
		row.Index = x
	}
	for _, f := range []string{"power.draw.instant", "power.draw"} {
		i, ok := p.cols[f]
		if !ok {
			continue
		}
		v, isNum, err := smiNumber(fields[i])
		if err != nil {
			return SMIRow{}, false, source.Errorf(p.name, n, "%s %q: %v", f, fields[i], err)
		}
		if isNum {
			row.PowerW, row.HasPower, row.Field = v, true, f
			break
		}
	}
	return row, true, nil
}

// isSMIHeader reports whether fields are a header line.
func isSMIHeader(fields []string) bool {
	f := strings.ToLower(fields[0])
	return f == "timestamp" || f == "index" || strings.HasPrefix(f, "power.draw")
}

// smiNumber reads a numeric cell ("69.93", "69.93 W"); a bracketed cell
// ("[N/A]", "[Not Supported]", "[Unknown Error]") is no number, not an
// error.
func smiNumber(s string) (float64, bool, error) {
	if strings.HasPrefix(s, "[") || s == "N/A" {
		return 0, false, nil
	}
	s = strings.TrimSpace(strings.TrimSuffix(s, " W"))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, errors.New("not a number")
	}
	if v < 0 {
		return 0, false, errors.New("negative power")
	}
	return v, true, nil
}

// ParseNvidiaSMI reads nvidia-smi --query-gpu … --format=csv output (with
// its header; units or nounits) and returns its rows.
func ParseNvidiaSMI(r io.Reader, name string) ([]SMIRow, error) {
	p := newSMIParser(name)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var rows []SMIRow
	n := 0
	for sc.Scan() {
		n++
		row, ok, err := p.line(sc.Text(), n)
		if err != nil {
			return nil, err
		}
		if ok {
			rows = append(rows, row)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, source.Errorf(name, n+1, "%v", err)
	}
	return rows, nil
}

// smiGrouper turns rows into readings: nvidia-smi writes one row per GPU
// per loop, so a reading ends where a GPU index repeats.
type smiGrouper struct {
	cur  []SMIRow
	seen map[int]bool
}

// add takes a row and returns the reading it completed, if any.
func (g *smiGrouper) add(row SMIRow, arrived time.Time) (Reading, bool) {
	var out Reading
	done := false
	if g.seen[row.Index] && len(g.cur) > 0 {
		out, done = smiReading(g.cur), true
		g.cur, g.seen = g.cur[:0], nil
	}
	if g.seen == nil {
		g.seen = map[int]bool{}
	}
	if row.At.IsZero() {
		row.At = arrived
	}
	g.seen[row.Index] = true
	g.cur = append(g.cur, row)
	return out, done
}

// smiReading sums one loop's rows.
func smiReading(rows []SMIRow) Reading {
	r := Reading{At: rows[0].At, GPUs: len(rows), HasPower: true}
	for _, x := range rows {
		r.PowerW += x.PowerW
		r.HasPower = r.HasPower && x.HasPower
	}
	return r
}

// NvidiaSMI samples the GPUs of this machine with one nvidia-smi
// subprocess that prints every Interval.
type NvidiaSMI struct {
	// Path is the command (default "nvidia-smi", looked up in PATH).
	Path string
	// Interval is -lms (default 100 ms).
	Interval time.Duration
	Timeouts Timeouts
}

// Name returns "nvidia-smi".
func (n *NvidiaSMI) Name() string { return "nvidia-smi" }

// smiFields are the columns asked for, the richer set first.
var smiFields = []string{"timestamp,index,power.draw.instant,power.draw", "timestamp,index,power.draw"}

// Start runs nvidia-smi and waits (at most Timeouts.Request) for its
// first complete reading; a driver that does not know power.draw.instant
// is asked again without it.
func (n *NvidiaSMI) Start(ctx context.Context) (Meter, error) {
	var errs []error
	for _, fields := range smiFields {
		m, err := n.start(ctx, fields)
		if err == nil {
			return m, nil
		}
		errs = append(errs, err)
		if !strings.Contains(err.Error(), "is not a valid field") {
			break
		}
	}
	return nil, fmt.Errorf("nvidia-smi: %w", errors.Join(errs...))
}

type smiMeter struct {
	s      *series
	wait   time.Duration
	cancel context.CancelFunc
	done   chan struct{}
}

func (n *NvidiaSMI) start(ctx context.Context, fields string) (*smiMeter, error) {
	t := n.Timeouts.withDefaults()
	interval := n.Interval
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	path := n.Path
	if path == "" {
		path = "nvidia-smi"
	}
	mctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(mctx, path, "--query-gpu="+fields, "--format=csv,nounits", "-lms", strconv.FormatInt(interval.Milliseconds(), 10))
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{b: &stderr, max: 4096}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	m := &smiMeter{s: newSeries(interval), wait: t.Wait, cancel: cancel, done: make(chan struct{})}
	first := make(chan struct{})
	var firstOnce sync.Once
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-mctx.Done():
				return
			}
		}
	}()
	go func() {
		defer close(m.done)
		p := newSMIParser("nvidia-smi")
		var g smiGrouper
		n := 0
		silence := time.NewTimer(t.Silence)
		defer silence.Stop()
		var failed error
	loop:
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					break loop
				}
				n++
				silence.Reset(t.Silence)
				row, isRow, err := p.line(line, n)
				if err != nil {
					failed = err
					break loop
				}
				if !isRow {
					continue
				}
				if r, ok := g.add(row, time.Now()); ok {
					m.s.add(r)
					firstOnce.Do(func() { close(first) })
				}
			case <-silence.C:
				failed = fmt.Errorf("printed nothing for %v", t.Silence)
				break loop
			case <-mctx.Done():
				break loop
			}
		}
		stopped := mctx.Err() != nil // Close, or the caller's context
		cancel()
		werr := cmd.Wait()
		if failed == nil && !stopped {
			failed = errors.New("exited")
			if werr != nil {
				failed = fmt.Errorf("exited: %w", werr)
			}
		}
		if msg := strings.TrimSpace(stderr.String()); failed != nil && msg != "" {
			failed = fmt.Errorf("%w: %s", failed, firstLine(msg))
		}
		m.s.stop(failed)
		firstOnce.Do(func() { close(first) })
	}()
	bound := time.NewTimer(t.Request + 2*interval)
	defer bound.Stop()
	select {
	case <-first:
	case <-bound.C:
		m.Close()
		m.s.mu.Lock()
		lastErr := m.s.lastErr
		m.s.mu.Unlock()
		if lastErr != nil {
			return nil, lastErr
		}
		return nil, fmt.Errorf("no reading within %v", t.Request+2*interval)
	case <-ctx.Done():
		m.Close()
		return nil, context.Cause(ctx)
	}
	m.s.mu.Lock()
	empty, lastErr := len(m.s.readings) == 0, m.s.lastErr
	m.s.mu.Unlock()
	if empty {
		<-m.done
		m.s.mu.Lock()
		lastErr = m.s.lastErr
		m.s.mu.Unlock()
		if lastErr == nil {
			lastErr = errors.New("exited before its first reading")
		}
		return nil, lastErr
	}
	return m, nil
}

func (m *smiMeter) Window(ctx context.Context, from, to time.Time) (Energy, error) {
	return m.s.window(ctx, from, to, m.wait)
}

func (m *smiMeter) Close() error {
	m.cancel()
	<-m.done
	return nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
