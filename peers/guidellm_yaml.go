package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// looksGuideLLMYAML reports whether b is guidellm's YAML report
// (`--outputs benchmarks.yaml`: the JSON report's object written by
// PyYAML's yaml.dump, keys sorted): top-level keys "benchmarks" and
// "args" or "metadata", at the start of lines.
func looksGuideLLMYAML(b []byte) bool {
	if len(b) == 0 || b[0] == '{' || b[0] == '[' {
		return false
	}
	top := func(key string) bool {
		return bytes.HasPrefix(b, []byte(key+":")) || containsAfter(b, "\n", []byte(key+":"))
	}
	return top("benchmarks") && (top("args") || top("metadata"))
}

// yamlToJSON converts a YAML document into JSON text, keeping the order
// of keys. Scalars keep their YAML type: integers, floats and booleans
// stay bare, .inf becomes the literal Infinity (as SGLang writes it;
// sanitizeJSON reads it), .nan becomes null; strings are quoted. A
// PyYAML tag naming a Python object (!!python/…) is ignored: its content
// is read as plain YAML. Each key and value starts on the line it has in
// the YAML (blank lines are added between JSON tokens), so positions the
// JSON readers report are YAML lines. Errors name the YAML line.
func yamlToJSON(name string, b []byte) ([]byte, *Error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		line := 0
		if _, after, ok := strings.Cut(err.Error(), "line "); ok {
			n, _, _ := strings.Cut(after, ":")
			line, _ = strconv.Atoi(n)
		}
		return nil, errorf(name, line, "YAML: %v", err)
	}
	w := &yamlJSONWriter{line: 1, max: len(b) + 100_000}
	if err := w.node(&doc, 0); err != nil {
		return nil, errorf(name, 0, "YAML: %v", err)
	}
	return w.Bytes(), nil
}

// yamlJSONWriter writes JSON text, tracking the line it is on.
type yamlJSONWriter struct {
	bytes.Buffer
	line  int
	nodes int // nodes written, aliases expanded included
	// max bounds nodes: aliases can repeat a subtree exponentially
	// ("billion laughs"); without them a document has fewer nodes than
	// bytes.
	max int
}

// to moves the output down to line (never up).
func (w *yamlJSONWriter) to(line int) {
	for ; w.line < line; w.line++ {
		w.WriteByte('\n')
	}
}

// node writes one YAML node as JSON.
func (w *yamlJSONWriter) node(n *yaml.Node, depth int) error {
	if depth > 200 {
		return fmt.Errorf("line %d: nested deeper than 200 levels", n.Line)
	}
	if w.nodes++; w.nodes > w.max {
		return fmt.Errorf("line %d: more than %d values once aliases are expanded", n.Line, w.max)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			w.WriteString("null")
			return nil
		}
		return w.node(n.Content[0], depth+1)
	case yaml.AliasNode:
		return w.node(n.Alias, depth+1)
	case yaml.MappingNode:
		w.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				w.WriteByte(',')
			}
			w.to(n.Content[i].Line)
			w.WriteString(jsonString(n.Content[i].Value))
			w.WriteString(": ")
			if err := w.node(n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		w.WriteByte('}')
	case yaml.SequenceNode:
		w.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				w.WriteByte(',')
			}
			w.to(c.Line)
			if err := w.node(c, depth+1); err != nil {
				return err
			}
		}
		w.WriteByte(']')
	case yaml.ScalarNode:
		writeYAMLScalar(&w.Buffer, n)
	default:
		w.WriteString("null")
	}
	return nil
}

// writeYAMLScalar writes a scalar by its resolved YAML type.
func writeYAMLScalar(w *bytes.Buffer, n *yaml.Node) {
	switch n.ShortTag() {
	case "!!null":
		w.WriteString("null")
	case "!!bool":
		if v, err := strconv.ParseBool(strings.ToLower(n.Value)); err == nil {
			w.WriteString(strconv.FormatBool(v))
			return
		}
		w.WriteString(jsonString(n.Value))
	case "!!int", "!!float":
		var v float64
		if err := n.Decode(&v); err != nil {
			w.WriteString(jsonString(n.Value))
			return
		}
		switch {
		case math.IsNaN(v):
			w.WriteString("null")
		case math.IsInf(v, 1):
			w.WriteString("Infinity")
		case math.IsInf(v, -1):
			w.WriteString("-Infinity")
		case n.ShortTag() == "!!int" && math.Abs(v) < 1<<53:
			w.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
		default:
			w.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	default:
		w.WriteString(jsonString(n.Value))
	}
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
