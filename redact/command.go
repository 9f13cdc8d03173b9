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
	return CommandWords(cmd, Words(cmd))
}

// CommandWords is Command of a command already split into its words: ws
// must be Words(cmd). A caller that reads the words too (parse's launch
// command) splits the command once.
func CommandWords(cmd string, ws []Word) string {
	return Text(command(cmd, ws, 0))
}

// command redacts by word (ws are cmd's words); a quoted word that is
// itself a command and holds a secret is replaced whole, single-quoted.
func command(cmd string, ws []Word, depth int) string {
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
		compound := depth < maxDepth && hasBlankOrOp(w.Text)
		nested := compound && (cmd[w.Start] == '"' || cmd[w.Start] == '\'')
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
		if compound {
			if inner := command(w.Text, Words(w.Text), depth+1); inner != w.Text {
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
	name, value, ok := Assignment(word)
	if !ok || !SecretName(name) || value == Marker {
		return "", false
	}
	return name + "=" + Marker, true
}

// hasBlankOrOp reports whether a word holds a blank or a shell operator
// (strings.ContainsAny(s, " \t\n;&|") without building its set per word).
//
// Note: by a table rather than a switch of six cases per byte, which
// was 10% of the instructions of ParseLaunch on a seed's command
// (`valgrind --tool=cachegrind`: 5.8K of 58K).
func hasBlankOrOp(s string) bool {
	for i := 0; i < len(s); i++ {
		if blankOrOp[s[i]] {
			return true
		}
	}
	return false
}

// blankOrOp marks the bytes hasBlankOrOp looks for.
var blankOrOp = [256]bool{' ': true, '\t': true, '\n': true, ';': true, '&': true, '|': true}

// singleQuote quotes s for a POSIX shell.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
