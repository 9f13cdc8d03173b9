package redact

import "strings"

// maxDepth bounds how deep Command looks into quoted commands
// (bash -c "ssh host 'vllm serve …'").
const maxDepth = 4

// Command returns a shell command with every secret replaced by Marker
// and nothing else changed: the value of a secret flag (--api-key X,
// --hf-token=X), of a secret variable (HF_TOKEN=X, also after env, export
// or docker run -e), wherever it stands (after &&, ;, |, at the start),
// the same inside a quoted command (bash -c "…", sh -c '…', ssh host "…"),
// then everything Text finds (URL user information, bearer headers, key
// formats).
func Command(cmd string) string {
	return Text(command(cmd, 0))
}

// command redacts by word; a quoted word that is itself a command and
// holds a secret is replaced whole, single-quoted.
func command(cmd string, depth int) string {
	ws := Words(cmd)
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if w.Op {
			continue
		}
		// A word quoted whole that holds blanks or operators is a command
		// of its own ("bash -c 'HF_TOKEN=… vllm serve …'"); a NAME= before
		// the quote makes it one value (OPENAI_API_KEY='two words').
		nested := depth < maxDepth && strings.ContainsAny(w.Text, " \t\n;&|") && strings.ContainsAny(cmd[w.Start:w.Start+1], `"'`)
		if v, ok := assignment(w.Text); ok && !nested {
			edits = append(edits, edit{w.Start, w.End, v})
			continue
		}
		if IsFlag(w.Text) {
			name, value, hasEq := strings.Cut(w.Text, "=")
			switch {
			case hasEq && SecretFlag(name):
				if value != Marker {
					edits = append(edits, edit{w.Start, w.End, name + "=" + Marker})
				}
				continue
			case hasEq:
				if v, ok := assignment(value); ok { // --env=HF_TOKEN=…
					edits = append(edits, edit{w.Start, w.End, name + "=" + v})
				}
				continue
			case SecretFlag(name) && i+1 < len(ws) && !ws[i+1].Op && !strings.HasPrefix(ws[i+1].Text, "--"):
				i++
				if ws[i].Text != Marker {
					edits = append(edits, edit{ws[i].Start, ws[i].End, Marker})
				}
				continue
			}
		}
		if nested || depth < maxDepth && strings.ContainsAny(w.Text, " \t\n;&|") {
			if inner := command(w.Text, depth+1); inner != w.Text {
				edits = append(edits, edit{w.Start, w.End, singleQuote(inner)})
			}
		}
	}
	out := cmd
	for k := len(edits) - 1; k >= 0; k-- { // back to front: spans stay valid
		e := edits[k]
		out = out[:e.start] + e.text + out[e.end:]
	}
	return out
}

// assignment returns a secret NAME=VALUE word with its value redacted.
func assignment(word string) (string, bool) {
	m := EnvAssign.FindStringSubmatch(word)
	if m == nil || !SecretName(m[1]) || m[2] == Marker {
		return "", false
	}
	return m[1] + "=" + Marker, true
}

// singleQuote quotes s for a POSIX shell.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
