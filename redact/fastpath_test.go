package redact

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// referenceTexts are the texts the fast paths are compared on: the
// templates of testdata/commands.txt with a secret put in, every line
// and word of the repository's seed documents, and random texts built
// from the pieces the patterns look for.
func referenceTexts(tb testing.TB) []string {
	tb.Helper()
	// Quoted commands parted by each blank and operator.
	out := []string{"bash -c \"HF_TOKEN=abc\nvllm\"", "bash -c 'HF_TOKEN=abc\tvllm'", "sh -c \"HF_TOKEN=abc;vllm\"",
		"sh -c 'HF_TOKEN=abc&vllm'", "sh -c 'HF_TOKEN=abc|vllm'", "sh -c 'HF_TOKEN=abc vllm'", "A_KEY='x y' vllm"}
	for _, tpl := range templates(tb) {
		out = append(out, tpl, strings.ReplaceAll(tpl, "{S}", "Zq7secretValue42"))
	}
	seeds, err := filepath.Glob(filepath.Join("..", "testdata", "seeds", "*.txt"))
	if err != nil || len(seeds) == 0 {
		tb.Fatalf("no seed documents: %v", err)
	}
	for _, name := range seeds {
		b, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			out = append(out, l)
			for _, w := range Words(l) {
				out = append(out, w.Text)
			}
		}
	}
	pieces := []string{"a", "Z", "_", "9", "=", "==", "\n", " ", "\t", "-", "--", "@", "é", "\xff", "K", "\u212a",
		"HF_TOKEN", "sk-", "hf_", "ghp_", "gho", "xoxb-", "xox", "bearer ", "BeArEr\t", "Authorization: ",
		"authorizatio", "http://", "user:pw", "abcdefghijklmnopqrstuvwxyz0123", "'", `"`, "/", "<redacted>"}
	return append(out, randomTexts(12, 20000, 8, pieces)...)
}

// randomTexts returns n texts of fewer than most pieces each, drawn by a
// generator seeded with seed.
func randomTexts(seed uint64, n, most int, pieces []string) []string {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := r.IntN(most); k > 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		out[i] = b.String()
	}
	return out
}

// TestAssignmentIsEnvAssign checks that Assignment answers what the
// regexp EnvAssign does.
func TestAssignmentIsEnvAssign(t *testing.T) {
	matched := 0
	for _, s := range referenceTexts(t) {
		name, value, ok := Assignment(s)
		m := EnvAssign.FindStringSubmatch(s)
		if ok != (m != nil) || ok && (name != m[1] || value != m[2]) {
			t.Fatalf("Assignment(%q) = %q, %q, %v; EnvAssign finds %q", s, name, value, ok, m)
		}
		if ok {
			matched++
		}
	}
	if matched < 100 {
		t.Errorf("only %d texts are assignments: the comparison proves little", matched)
	}
}

// TestMayHoldSecretIsNeeded checks that a text mayHoldSecret refuses is
// one no inline pattern changes (Text returns it unchanged without
// running them), and that it refuses most texts.
func TestMayHoldSecretIsNeeded(t *testing.T) {
	refused := 0
	for _, s := range referenceTexts(t) {
		if mayHoldSecret(s) {
			continue
		}
		refused++
		for _, re := range inline {
			if re.MatchString(s) {
				t.Fatalf("mayHoldSecret(%q) is false, but %v matches it", s, re)
			}
		}
	}
	if refused < 1000 {
		t.Errorf("mayHoldSecret refuses only %d texts", refused)
	}
}

// TestCommandIsReference checks that Command (words split once,
// Assignment, hasBlankOrOp, mayHoldSecret) redacts every text as
// referenceCommand, the code it replaced, does.
func TestCommandIsReference(t *testing.T) {
	changed := 0
	for _, s := range referenceTexts(t) {
		got, want := Command(s), referenceText(referenceCommand(s, 0))
		if got != want {
			t.Fatalf("Command(%q) = %q, the reference %q", s, got, want)
		}
		if got != s {
			changed++
		}
	}
	if changed < 100 {
		t.Errorf("only %d texts are redacted: the comparison proves little", changed)
	}
}

// referenceCommand is command as it was before its fast paths: the
// regexp EnvAssign, strings.ContainsAny, the words split per call.
func referenceCommand(cmd string, depth int) string {
	ws := Words(cmd)
	type edit struct {
		start, end int
		text       string
	}
	assign := func(word string) (string, bool) {
		m := EnvAssign.FindStringSubmatch(word)
		if m == nil || !SecretName(m[1]) || m[2] == Marker {
			return "", false
		}
		return m[1] + "=" + Marker, true
	}
	var edits []edit
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if w.Op {
			continue
		}
		nested := depth < maxDepth && strings.ContainsAny(w.Text, " \t\n;&|") && strings.ContainsAny(cmd[w.Start:w.Start+1], `"'`)
		if v, ok := assign(w.Text); ok && !nested {
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
				if v, ok := assign(value); ok {
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
			if inner := referenceCommand(w.Text, depth+1); inner != w.Text {
				edits = append(edits, edit{w.Start, w.End, singleQuote(inner)})
			}
		}
	}
	out := cmd
	for k := len(edits) - 1; k >= 0; k-- {
		e := edits[k]
		out = out[:e.start] + e.text + out[e.end:]
	}
	return out
}

// referenceText is Text with every inline pattern run, whatever
// mayHoldSecret says.
func referenceText(s string) string {
	for i, re := range inline {
		if i == len(inline)-1 {
			s = re.ReplaceAllString(s, "${1}"+Marker+"@")
		} else {
			s = re.ReplaceAllString(s, "${1}"+Marker)
		}
	}
	return keyedText(userFlagText(s)) // a rule added after the fast paths
}

// oldMayHoldSecret is mayHoldSecret as it was: a ContainsAny, nine
// Contains and two case-folded searches (for BenchmarkMayHoldSecret).
func oldMayHoldSecret(s string) bool {
	if strings.ContainsAny(s, "@-_") {
		for _, t := range []string{"@", "sk-", "hf_", "gho_", "ghp_", "ghu_", "ghs_", "ghr_", "xox"} {
			if strings.Contains(s, t) {
				return true
			}
		}
	}
	fold := func(w string) bool {
		for i := 0; i+len(w) <= len(s); i++ {
			if s[i]|0x20 == w[0] && strings.EqualFold(s[i:i+len(w)], w) {
				return true
			}
		}
		return false
	}
	return fold("bearer") || fold("authorization")
}

// BenchmarkMayHoldSecret runs mayHoldSecret (and the code it replaced)
// over the lines and words of the seeds: the texts a parse redacts.
func BenchmarkMayHoldSecret(b *testing.B) {
	var texts []string
	seeds, _ := filepath.Glob(filepath.Join("..", "testdata", "seeds", "*.txt"))
	for _, name := range seeds {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, strings.Split(string(data), "\n")...)
	}
	for _, c := range []struct {
		name string
		f    func(string) bool
	}{{"new", mayHoldSecret}, {"old", oldMayHoldSecret}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, s := range texts {
					c.f(s)
				}
			}
		})
	}
}

// TestSecretNamesAreReference checks that SecretName and SecretFlag, read
// in one pass, answer what the case-mapping code they replaced
// (secretNameFolded, secretFlagFolded) does, on the reference texts and
// on random names built from the parts the rules look for.
func TestSecretNamesAreReference(t *testing.T) {
	texts := referenceTexts(t)
	pieces := []string{"-", "--", "_", "a", "Z", "9", "key", "KEY", "Key", "token", "TOKEN", "auth", "AUTH", "pat", "PAT",
		"secret", "SeCrEt", "password", "PASSWD", "passw", "credential", "CREDENTIALS", "api", "API", "apikey", "Api_Key",
		"hf", "s", "p", "c", "ſ", "\u212a", "é", "\xff", "\x7f", "{", "K",
		// Case mappings onto ASCII letters: the Kelvin sign lowers to k, ſ uppers to S.
		"\u212aey", "to\u212aen", "ſecret", "toſ", "\u212aEY", "TO\u212aEN", "paſſword"}
	texts = append(texts, randomTexts(7, 50000, 7, pieces)...)
	names, flags := 0, 0
	for _, s := range texts {
		if got, want := SecretName(s), secretNameFolded(s); got != want {
			t.Fatalf("SecretName(%q) = %v, the reference %v", s, got, want)
		} else if got {
			names++
		}
		if got, want := SecretFlag(s), secretFlagFolded(strings.TrimLeft(s, "-")); got != want {
			t.Fatalf("SecretFlag(%q) = %v, the reference %v", s, got, want)
		} else if got {
			flags++
		}
	}
	if names < 1000 || flags < 1000 || names > len(texts)-1000 || flags > len(texts)-1000 {
		t.Errorf("secret names %d, flags %d of %d texts: the comparison proves little", names, flags, len(texts))
	}
}

// switchMayHoldSecret is mayHoldSecret as it was before its table: a
// switch on every byte.
func switchMayHoldSecret(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '@':
			return true
		case '-':
			if i >= 2 && s[i-2:i] == "sk" || i >= 4 && s[i-4:i-1] == "xox" {
				return true
			}
		case '_':
			if i >= 2 && s[i-2:i] == "hf" || i >= 3 && s[i-3:i-1] == "gh" {
				return true
			}
		case 'b', 'B':
			if hasFoldAt(s, i, "bearer") {
				return true
			}
		case 'a', 'A':
			if hasFoldAt(s, i, "authorization") {
				return true
			}
		}
	}
	return false
}

// TestMayHoldSecretIsReference checks that mayHoldSecret answers what
// the code it replaced, switchMayHoldSecret, does.
func TestMayHoldSecretIsReference(t *testing.T) {
	held := 0
	for _, s := range referenceTexts(t) {
		got := mayHoldSecret(s)
		if want := switchMayHoldSecret(s); got != want {
			t.Fatalf("mayHoldSecret(%q) = %v, the switch %v", s, got, want)
		}
		if got {
			held++
		}
	}
	if held < 1000 {
		t.Errorf("only %d texts may hold a secret: the comparison proves little", held)
	}
}
