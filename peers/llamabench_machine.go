package peers

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// llamaBenchCSVHeader is how the header of llama-bench -o csv begins, in
// every version since 2023.
var llamaBenchCSVHeader = []byte("build_commit,build_number,")

// looksLlamaBenchCSV reports whether t (leading blanks trimmed) is the CSV
// of llama-bench.
func looksLlamaBenchCSV(t []byte) bool {
	if !bytes.HasPrefix(t, llamaBenchCSVHeader) {
		return false
	}
	line, _, _ := bytes.Cut(t, []byte("\n"))
	return bytes.Contains(line, []byte(",avg_ts")) && bytes.Contains(line, []byte(",n_gen"))
}

// llamaBenchSQLTable matches the CREATE TABLE llama-bench -o sql opens
// with: the table named test (before 2025) or llama_bench.
var llamaBenchSQLTable = regexp.MustCompile(`^CREATE TABLE IF NOT EXISTS (test|llama_bench) \(\s*build_commit TEXT,`)

// looksLlamaBenchSQL reports whether t is llama-bench's SQL output.
func looksLlamaBenchSQL(t []byte) bool {
	return bytes.HasPrefix(t, []byte("CREATE TABLE IF NOT EXISTS ")) && llamaBenchSQLTable.Match(t[:min(len(t), 200)])
}

// llamaBenchCSV reads -o csv: a header of field names, one quoted row
// per test.
func llamaBenchCSV(b []byte, name string) ([]llamaTest, error) {
	var tests []llamaTest
	err := csvRows(b, name, func(header []string, line int, rec []string) error {
		if len(rec) != len(header) {
			return errorf(name, line, "%d fields where the header names %d", len(rec), len(header))
		}
		t := llamaTest{line: line, tool: "llama-bench"}
		for i, h := range header {
			t.fields = append(t.fields, schema.KV{Key: h, Value: rec[i]})
		}
		if err := t.fromFields(name); err != nil {
			return err
		}
		tests = append(tests, t)
		return nil
	})
	return tests, err
}

// llamaBenchInsert matches one INSERT of -o sql.
var llamaBenchInsert = regexp.MustCompile(`^INSERT INTO (?:test|llama_bench) \(([^)]*)\) VALUES \((.*)\);\s*$`)

// llamaBenchSQL reads -o sql: CREATE TABLE, then one INSERT per test,
// every value quoted with single quotes.
func llamaBenchSQL(b []byte, name string) ([]llamaTest, error) {
	var tests []llamaTest
	lines, numbers := jsonLines(b)
	for i, l := range lines {
		s := string(l)
		if !strings.HasPrefix(s, "INSERT INTO") {
			continue
		}
		m := llamaBenchInsert.FindStringSubmatch(s)
		if m == nil {
			return nil, errorf(name, numbers[i], "an INSERT that is not llama-bench's (INSERT INTO test|llama_bench (fields) VALUES ('…', …);)")
		}
		fields := strings.Split(m[1], ",")
		values, ok := sqlValues(m[2])
		if !ok || len(values) != len(fields) {
			return nil, errorf(name, numbers[i], "%d values where the INSERT names %d fields", len(values), len(fields))
		}
		t := llamaTest{line: numbers[i], tool: "llama-bench"}
		for j, f := range fields {
			t.fields = append(t.fields, schema.KV{Key: strings.TrimSpace(f), Value: values[j]})
		}
		if err := t.fromFields(name); err != nil {
			return nil, err
		}
		tests = append(tests, t)
	}
	return tests, nil
}

// sqlValues splits 'a', 'b', 'it”s' into its values.
func sqlValues(s string) ([]string, bool) {
	var out []string
	for {
		s = strings.TrimSpace(s)
		if !strings.HasPrefix(s, "'") {
			return out, false
		}
		var v strings.Builder
		i := 1
		for ; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					v.WriteByte('\'')
					i++
					continue
				}
				break
			}
			v.WriteByte(s[i])
		}
		if i >= len(s) {
			return out, false
		}
		out = append(out, v.String())
		s = strings.TrimSpace(s[i+1:])
		if s == "" {
			return out, true
		}
		if s[0] != ',' {
			return out, false
		}
		s = s[1:]
	}
}

// llamaBenchJSON reads -o json (an array of test objects) and -o jsonl
// (one object per line).
func llamaBenchJSON(b []byte, name string) ([]llamaTest, error) {
	b = sanitizeJSON(b)
	t := trimLead(b)
	lead := len(b) - len(t)
	var objs []json.RawMessage
	var lines []int
	if t[0] == '[' {
		dec := json.NewDecoder(bytes.NewReader(t))
		if _, err := dec.Token(); err != nil {
			return nil, jsonError(name, t, lineAt(b, int64(lead)), err)
		}
		for dec.More() {
			off := dec.InputOffset()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, jsonError(name, t, lineAt(b, int64(lead)), err)
			}
			blank := len(t[off:]) - len(bytes.TrimLeft(t[off:], " \t\r\n,"))
			lines = append(lines, lineAt(b, int64(lead)+off+int64(blank)))
			objs = append(objs, raw)
		}
	} else {
		ls, ns := jsonLines(b)
		for i, l := range ls {
			objs = append(objs, l)
			lines = append(lines, ns[i])
		}
	}
	var tests []llamaTest
	for i, raw := range objs {
		t, err := llamaJSONTest(raw, name, lines[i])
		if err != nil {
			return nil, err
		}
		tests = append(tests, t)
	}
	return tests, nil
}

// llamaJSONTest reads one test object, keeping its keys in order: texts
// and numbers as printed, booleans as true/false, the samples as lists.
func llamaJSONTest(raw []byte, name string, line int) (llamaTest, error) {
	t := llamaTest{line: line, tool: "llama-bench"}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return t, errorf(name, line, "llama-bench result is not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return t, jsonError(name, raw, line, err)
		}
		key, _ := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return t, jsonError(name, raw, line, err)
		}
		switch x := v.(type) {
		case []any:
			var fs []float64
			for _, e := range x {
				n, ok := e.(json.Number)
				if !ok {
					return t, errorf(name, line, "%s: %v is not a number", key, e)
				}
				f, err := n.Float64()
				if err != nil {
					return t, errorf(name, line, "%s: %v", key, err)
				}
				fs = append(fs, f)
			}
			switch key {
			case "samples_ts":
				t.samplesTS = fs
			case "samples_ns":
				t.samplesNS = fs
			default:
				parts := make([]string, len(fs))
				for i, f := range fs {
					parts[i] = strconv.FormatFloat(f, 'f', -1, 64)
				}
				t.fields = append(t.fields, schema.KV{Key: key, Value: strings.Join(parts, ", ")})
			}
			continue
		case nil:
			t.fields = append(t.fields, schema.KV{Key: key, Value: "null"})
		case json.Number:
			t.fields = append(t.fields, schema.KV{Key: key, Value: x.String()})
		case string:
			t.fields = append(t.fields, schema.KV{Key: key, Value: x})
		case bool:
			t.fields = append(t.fields, schema.KV{Key: key, Value: strconv.FormatBool(x)})
		default:
			re, _ := json.Marshal(x)
			t.fields = append(t.fields, schema.KV{Key: key, Value: string(re)})
		}
	}
	if err := t.fromFields(name); err != nil {
		return t, err
	}
	return t, nil
}
