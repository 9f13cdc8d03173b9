package peers

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"speedmatrix/schema"
)

// reader is how one tool's result files are recognised and read. Each
// tool's file declares its own (vllm.go: vllmReader), its shapes beside
// its parser; readers lists them all.
type reader struct {
	// format is the name stored in Run.SourceFormat and accepted by
	// parse's -format.
	format string
	// parse turns a whole result file into its runs: most hold one; an
	// appended vLLM or SGLang file may hold several configurations.
	parse func(b []byte, name string) ([]*schema.Matrix, error)
	// shapes are the ways the tool's files are recognised.
	shapes []shape
}

// shape is one way of recognising a tool's file, at its rank in
// detection: a file is the first tool's whose shape matches, trying
// shapes of every tool by rank. A text shape (a CSV, YAML) is tried on
// every file before JSON is decoded; a JSON shape is asked of the top
// level keys of the file's first object.
type shape struct {
	rank int
	// text, when set, recognises a file from its text (a CSV header, a
	// YAML key), leading blanks trimmed.
	text func(t []byte) bool
	// keys recognises a JSON file from its first object's keys.
	keys signature
	// refuse, when set, says that a file of this shape is the tool's but
	// not one speedmatrix reads: the error names it and what to ingest
	// instead.
	refuse string
}

// signature names the top-level keys of a tool's JSON file (of the
// object itself, the first element of an array, or the first line of
// JSON Lines). Every condition given must hold.
type signature struct {
	all []string // keys that are all present
	// any and suffixes: one of these keys, or a key ending in one of
	// these suffixes, is present (when either is given).
	any, suffixes []string
	none          []string            // keys that are absent
	holds         map[string][]string // a key whose value's text holds one of these
	stats         []string            // keys one of which is an AIPerf statistics block
	// match is what keys cannot say: called with the keys and the text.
	match func(keys map[string]json.RawMessage, t []byte) bool
}

// matches reports whether keys (of text t) have the signature.
func (s *signature) matches(keys map[string]json.RawMessage, t []byte) bool {
	has := func(k string) bool { _, ok := keys[k]; return ok }
	for _, k := range s.all {
		if !has(k) {
			return false
		}
	}
	if len(s.any)+len(s.suffixes) > 0 && !slices.ContainsFunc(s.any, has) && !hasSuffix(keys, s.suffixes) {
		return false
	}
	if slices.ContainsFunc(s.none, has) {
		return false
	}
	for k, texts := range s.holds {
		if !slices.ContainsFunc(texts, func(x string) bool { return bytes.Contains(keys[k], []byte(x)) }) {
			return false
		}
	}
	if len(s.stats) > 0 && !slices.ContainsFunc(s.stats, func(k string) bool { return isStatsBlock(keys[k]) }) {
		return false
	}
	return s.match == nil || s.match(keys, t)
}

// hasSuffix reports whether a key ends in one of suffixes.
func hasSuffix(keys map[string]json.RawMessage, suffixes []string) bool {
	for k := range keys {
		for _, s := range suffixes {
			if strings.HasSuffix(k, s) {
				return true
			}
		}
	}
	return false
}

// readers are the tools whose result files speedmatrix reads, in the
// order Formats lists them.
var readers = []*reader{
	&llmBenchReader, &guideLLMReader, &llmperfReader, &aiperfReader, &genAIPerfReader,
	&aiperfCSVReader, &genAIPerfCSVReader, &genAIBenchReader, &inferencePerfReader,
	&hfBenchmarkerReader, &vllmReader, &sglangReader, &llamaBenchReader, &llamaBenchyReader,
	&lmbenchReader,
}

// Formats lists the formats of other tools' result files.
var Formats = func() []string {
	fs := make([]string, len(readers))
	for i, r := range readers {
		fs[i] = r.format
	}
	return fs
}()

// detection is every tool's shapes in rank order, each with its format.
var detection = func() []detected {
	var d []detected
	for _, r := range readers {
		for i := range r.shapes {
			d = append(d, detected{&r.shapes[i], r.format})
		}
	}
	slices.SortStableFunc(d, func(a, b detected) int { return a.shape.rank - b.shape.rank })
	return d
}()

// detected is a shape and the format of the files it recognises.
type detected struct {
	shape  *shape
	format string
}

// readerOf returns the reader of a format, or nil.
func readerOf(format string) *reader {
	for _, r := range readers {
		if r.format == format {
			return r
		}
	}
	return nil
}

// one adapts the parser of a format whose files hold one run.
func one(p func(b []byte, name string) (*schema.Matrix, error)) func(b []byte, name string) ([]*schema.Matrix, error) {
	return func(b []byte, name string) ([]*schema.Matrix, error) {
		m, err := p(b, name)
		if err != nil {
			return nil, err
		}
		return []*schema.Matrix{m}, nil
	}
}
