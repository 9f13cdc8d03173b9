package prices

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"speedmatrix/internal/source"
)

// Entry is the price of one GPU model: US dollars per GPU-hour.
type Entry struct {
	// GPU is the key as written ("RTX PRO 6000").
	GPU string
	// USDPerHour is the price of one GPU for one hour, in US dollars.
	USDPerHour float64
	// Text is the price as written ("3.50", "1_2e-1").
	Text string
	// Source says where the entry came from: "prices.toml:6", or "-price"
	// for one given on the command line.
	Source string
}

// Table is a set of prices and the date they were read.
type Table struct {
	// Name is the file the table was read from ("" for prices given on
	// the command line only).
	Name string
	// AsOf is the date the file's prices were read (zero without a file);
	// AsOfText is it as written.
	AsOf     time.Time
	AsOfText string
	// About is the file's optional source = "…": where the prices come from.
	About string
	// Entries are in the order they were written, command-line entries
	// after the file's.
	Entries []Entry
}

// Parse reads a price file: as_of (a TOML date or a "YYYY-MM-DD"
// string, required), source (an optional string) and a [gpu] table of
// GPU model → US dollars per GPU-hour (a positive number). Any other key,
// a price that is not a positive finite number, or two keys naming the
// same GPU (case aside) is an error at its line; name is the file's name
// in the errors.
func Parse(data []byte, name string) (*Table, error) {
	// Note: the decoder checks the whole grammar (duplicate keys, dates,
	// number forms) with positions; the unstable parser then gives each
	// key's line in document order, which the decoder does not expose.
	var check map[string]any
	if err := toml.Unmarshal(data, &check); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, _ := de.Position()
			return nil, source.Errorf(name, row, "%s", de.Error())
		}
		return nil, source.Errorf(name, 0, "%v", err)
	}
	t := &Table{Name: name}
	var p unstable.Parser
	p.Reset(data)
	line := func(n *unstable.Node) int { return p.Shape(n.Raw).Start.Line }
	var table []string // the keys of the current [table] header
	gpuTable, asOfLine := 0, 0
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			table = keyParts(e.Key())
			if len(table) == 1 && table[0] == "gpu" {
				gpuTable = line(keyNode(e))
			} else {
				return nil, source.Errorf(name, line(keyNode(e)), "table [%s]: a price file has one table, [gpu]", strings.Join(table, "."))
			}
		case unstable.ArrayTable:
			return nil, source.Errorf(name, line(keyNode(e)), "[[%s]]: a price file has no arrays of tables; write [gpu] and \"GPU model\" = USD per GPU-hour", strings.Join(keyParts(e.Key()), "."))
		case unstable.KeyValue:
			path := append(append([]string(nil), table...), keyParts(e.Key())...)
			if err := t.entry(name, path, e.Value(), line(keyNode(e)), line, &asOfLine); err != nil {
				return nil, err
			}
		}
	}
	if err := p.Error(); err != nil {
		return nil, source.Errorf(name, 0, "%v", err) // the decoder accepted it: not expected
	}
	if asOfLine == 0 {
		return nil, source.Errorf(name, 1, "no as_of date: prices change, so a price file says when they were read (as_of = 2026-12-01)")
	}
	if len(t.Entries) == 0 {
		at := gpuTable
		if at == 0 {
			at = 1
		}
		return nil, source.Errorf(name, at, "no prices: write [gpu] and one \"GPU model\" = USD per GPU-hour per line")
	}
	return t, nil
}

// entry reads one key = value of the file at path (table keys first).
func (t *Table) entry(name string, path []string, v *unstable.Node, at int, line func(*unstable.Node) int, asOfLine *int) error {
	switch {
	case len(path) == 1 && path[0] == "as_of":
		text := string(v.Data)
		if v.Kind != unstable.LocalDate && v.Kind != unstable.String {
			return source.Errorf(name, at, "as_of: want a date such as 2026-12-01")
		}
		d, err := time.Parse(time.DateOnly, text)
		if err != nil {
			return source.Errorf(name, at, "as_of %q: want a date such as 2026-12-01", text)
		}
		t.AsOf, t.AsOfText, *asOfLine = d, text, at
		return nil
	case len(path) == 1 && path[0] == "source":
		if v.Kind != unstable.String {
			return source.Errorf(name, at, "source: want a string saying where the prices come from")
		}
		t.About = string(v.Data)
		return nil
	case len(path) == 1 && path[0] == "gpu" && v.Kind == unstable.InlineTable:
		// gpu = { "H200" = 3.5, … }
		for it := v.Children(); it.Next(); {
			kv := it.Node()
			if err := t.entry(name, append([]string{"gpu"}, keyParts(kv.Key())...), kv.Value(), line(keyNode(kv)), line, asOfLine); err != nil {
				return err
			}
		}
		return nil
	case len(path) == 2 && path[0] == "gpu":
		return t.price(name, path[1], v, at)
	}
	return source.Errorf(name, at, "unknown key %s: a price file holds as_of, source and a [gpu] table of \"GPU model\" = USD per GPU-hour", strings.Join(path, "."))
}

// price adds the entry gpu = v.
func (t *Table) price(name, gpu string, v *unstable.Node, at int) error {
	if strings.TrimSpace(gpu) == "" {
		return source.Errorf(name, at, "an empty GPU name")
	}
	if v.Kind != unstable.Float && v.Kind != unstable.Integer {
		return source.Errorf(name, at, "%q: want US dollars per GPU-hour as a number (3.5), not %s", gpu, kindWord(v.Kind))
	}
	text := string(v.Data)
	usd, err := number(text, v.Kind == unstable.Integer)
	if err != nil || !(usd > 0) || math.IsInf(usd, 0) {
		return source.Errorf(name, at, "%q = %s: want a positive number of US dollars per GPU-hour", gpu, text)
	}
	for _, e := range t.Entries {
		if strings.EqualFold(strings.TrimSpace(e.GPU), strings.TrimSpace(gpu)) {
			return source.Errorf(name, at, "%q names the same GPU as %q at %s", gpu, e.GPU, e.Source)
		}
	}
	t.Entries = append(t.Entries, Entry{GPU: gpu, USDPerHour: usd, Text: text, Source: fmt.Sprintf("%s:%d", name, at)})
	return nil
}

// number reads a TOML integer or float as the decoder accepted it:
// underscores between digits; 0x, 0o and 0b integers.
func number(text string, integer bool) (float64, error) {
	s := strings.ReplaceAll(text, "_", "")
	if integer {
		n, err := strconv.ParseInt(s, 0, 64)
		return float64(n), err
	}
	return strconv.ParseFloat(s, 64)
}

func keyParts(it unstable.Iterator) []string {
	var out []string
	for it.Next() {
		out = append(out, string(it.Node().Data))
	}
	return out
}

// keyNode is the first part of the key of a key = value or a [table]
// header: where its line is (the parser sets no range on those nodes).
func keyNode(kv *unstable.Node) *unstable.Node {
	it := kv.Key()
	it.Next()
	return it.Node()
}

// ParseEntry reads one price given on the command line, "GPU=USD" (US
// dollars per GPU-hour: "H200=3.5"); a "$" before the number and "/h"
// after it are allowed. The GPU is what precedes the last "=".
func ParseEntry(s string) (Entry, error) {
	i := strings.LastIndex(s, "=")
	if i < 0 {
		return Entry{}, fmt.Errorf("-price %q: want GPU=USD per GPU-hour, such as \"H200=3.5\"", s)
	}
	gpu, text := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
	num := strings.TrimSuffix(strings.TrimPrefix(text, "$"), "/h")
	usd, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	switch {
	case gpu == "":
		return Entry{}, fmt.Errorf("-price %q: no GPU before =", s)
	case err != nil || !(usd > 0) || math.IsInf(usd, 0):
		return Entry{}, fmt.Errorf("-price %q: %q is not a positive number of US dollars per GPU-hour", s, text)
	}
	return Entry{GPU: gpu, USDPerHour: usd, Text: text, Source: "-price"}, nil
}

// Set adds e, replacing an entry of the same GPU (case aside): a price
// given on the command line overrides the file's.
func (t *Table) Set(e Entry) {
	for i := range t.Entries {
		if strings.EqualFold(strings.TrimSpace(t.Entries[i].GPU), strings.TrimSpace(e.GPU)) {
			t.Entries[i] = e
			return
		}
	}
	t.Entries = append(t.Entries, e)
}

// kindWord names a TOML value kind in a message.
func kindWord(k unstable.Kind) string {
	switch k {
	case unstable.String:
		return "a string"
	case unstable.Bool:
		return "true or false"
	case unstable.Array:
		return "an array"
	case unstable.InlineTable:
		return "a table"
	}
	return "a date or time"
}
