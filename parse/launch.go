package parse

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"speedmatrix/schema"
)

// Redacted replaces every secret the parser removes.
const Redacted = "<redacted>"

// Launch is a server launch command, tokenized like a shell would and
// with its secrets redacted. It recognizes the forms of vLLM (`vllm serve
// MODEL …`), SGLang (`python -m sglang.launch_server --model-path …`),
// llama.cpp (`llama-server -m …`) and TGI (`text-generation-launcher
// --model-id …`), after optional `env` and NAME=VALUE prefixes.
type Launch struct {
	// Command is the command as printed with every secret replaced by
	// Redacted; nothing else in the text changes.
	Command string
	// Env holds the NAME=VALUE prefixes, values redacted where secret.
	Env []schema.KV
	// Program is the executable (or the module after `python -m`).
	Program string
	// ModelID is the model served: the argument after `serve`, or the
	// value of --model, --model-path, --model-id or -m.
	ModelID string
	// TensorParallel is --tensor-parallel-size, -tp, --tp-size, --tp or
	// --num-shard.
	TensorParallel *int32
	// MaxModelLen is --max-model-len, --context-length, --max-seq-len,
	// --ctx-size/-c or --max-total-tokens.
	MaxModelLen *int64
	// GPUMemoryUtilization is --gpu-memory-utilization or
	// --mem-fraction-static.
	GPUMemoryUtilization *float64
	// Quantization is --quantization, --quantize or -q; DType is --dtype.
	Quantization string
	DType        string
	// Flags holds every flag in order as printed ("--max-model-len"), with
	// its value (empty for a flag without one), secrets redacted.
	Flags []schema.KV
}

// shellToken is one word of a command line and where it was printed.
type shellToken struct {
	text       string // after quote removal
	start, end int    // byte span in the original text
}

// shellTokens splits a command line into words the way a POSIX shell
// does for the parts launch commands use: blanks separate words, '…'
// quotes literally, "…" quotes with \" \\ \$ escapes, a backslash escapes
// one character and a backslash-newline continues the line; # starts a
// comment at the beginning of a word. Nothing is expanded.
//
// Note: no library: github.com/google/shlex and mvdan.cc/sh would need a
// new module, and neither reports the byte span of each word, which the
// redaction needs to replace a secret without reformatting the command.
func shellTokens(s string) []shellToken {
	var out []shellToken
	var cur strings.Builder
	in := false
	start := 0
	flush := func(end int) {
		if in {
			out = append(out, shellToken{cur.String(), start, end})
			cur.Reset()
			in = false
		}
	}
	begin := func(i int) {
		if !in {
			in, start = true, i
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i++
		case c == '\\' && i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n':
			i += 2
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush(i)
		case c == '#' && !in:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '\\' && i+1 < len(s):
			begin(i)
			cur.WriteByte(s[i+1])
			i++
		case c == '\'':
			begin(i)
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
				break
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			begin(i)
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		default:
			begin(i)
			cur.WriteByte(c)
		}
	}
	flush(len(s))
	return out
}

// envAssign matches a NAME=VALUE word.
var envAssign = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// secretEnvName reports whether an environment variable holds a secret:
// a name whose last part is TOKEN or KEY (HF_TOKEN, OPENAI_API_KEY), or
// that mentions SECRET, PASSWORD or CREDENTIAL.
func secretEnvName(name string) bool {
	u := strings.ToUpper(name)
	if strings.Contains(u, "SECRET") || strings.Contains(u, "PASSWORD") || strings.Contains(u, "PASSWD") || strings.Contains(u, "CREDENTIAL") {
		return true
	}
	parts := strings.Split(u, "_")
	last := parts[len(parts)-1]
	return strings.HasSuffix(last, "TOKEN") || strings.HasSuffix(last, "KEY") || last == "AUTH" || last == "PAT"
}

// secretFlag reports whether a flag's value is a secret (--api-key,
// --hf-token, --token, --password, --secret, …).
func secretFlag(flag string) bool {
	f := strings.ReplaceAll(strings.ToLower(strings.TrimLeft(flag, "-")), "_", "-")
	if strings.Contains(f, "secret") || strings.Contains(f, "password") || strings.Contains(f, "passwd") || strings.Contains(f, "api-key") || strings.Contains(f, "apikey") {
		return true
	}
	parts := strings.Split(f, "-")
	last := parts[len(parts)-1]
	return last == "key" || last == "token" || last == "auth" || last == "credentials"
}

// inlineSecrets match secrets wherever they are printed: bearer tokens in
// headers and well-known key formats (OpenAI, Hugging Face, GitHub, Slack).
var inlineSecrets = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(authorization\s*[:=]\s*(?:bearer|basic|token)\s+)[^\s"',;]+`),
	regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{6,}`),
	regexp.MustCompile(`()\bsk-[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`()\bhf_[A-Za-z0-9]{16,}`),
	regexp.MustCompile(`()\bgh[pousr]_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`()\bxox[abpr]-[A-Za-z0-9-]{10,}`),
}

// secretTriggers are lower-case substrings without which no inlineSecrets
// pattern can match.
var secretTriggers = []string{"bearer", "authorization", "sk-", "hf_", "gho_", "ghp_", "ghu_", "ghs_", "ghr_", "xox"}

// RedactInline replaces secrets that are recognizable by their form (an
// "Authorization: Bearer …" header, sk-…, hf_…, ghp_… keys) anywhere in s.
func RedactInline(s string) string {
	// Most values hold none of the triggers; skip the regexps for them.
	l := strings.ToLower(s)
	hit := false
	for _, w := range secretTriggers {
		if strings.Contains(l, w) {
			hit = true
			break
		}
	}
	if !hit {
		return s
	}
	for _, re := range inlineSecrets {
		if re.MatchString(s) {
			s = re.ReplaceAllString(s, "${1}"+Redacted)
		}
	}
	return s
}

// shellOperators end the command (what follows is another command).
var shellOperators = map[string]bool{"|": true, "||": true, "&&": true, ";": true, "&": true, ">": true, ">>": true, "2>&1": true}

// booleanFlags take no value even when a word that is not a flag follows.
var booleanFlags = map[string]bool{
	"trust-remote-code": true, "enforce-eager": true, "enable-prefix-caching": true, "no-enable-prefix-caching": true,
	"enable-chunked-prefill": true, "enable-auto-tool-choice": true, "disable-log-requests": true,
	"disable-log-stats": true, "enable-lora": true, "disable-custom-all-reduce": true,
	"cont-batching": true, "no-mmap": true, "mlock": true, "verbose": true, "disable-radix-cache": true,
	"enable-torch-compile": true, "disable-cuda-graph": true, "enable-expert-parallel": true,
}

func isFlagWord(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false // a negative number is a value
	}
	return true
}

// ParseLaunch tokenizes a launch command, redacts its secrets and pulls
// out the settings other packages use. It never fails: what it does not
// recognize stays in Flags and in the redacted Command.
func ParseLaunch(cmd string) Launch {
	toks := shellTokens(cmd)
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	redactWord := func(t shellToken, keep string) {
		edits = append(edits, edit{t.start, t.end, keep + Redacted})
	}
	var l Launch
	i := 0
	// Prefixes: env [-i] [-u NAME], NAME=VALUE, and wrappers.
	for i < len(toks) {
		t := toks[i].text
		switch {
		case t == "env" || t == "sudo" || t == "exec" || t == "nohup" || t == "time" || t == "-i" || t == "-E":
			i++
			continue
		case t == "-u" && i+1 < len(toks):
			i += 2
			continue
		}
		if m := envAssign.FindStringSubmatch(t); m != nil {
			v := m[2]
			if secretEnvName(m[1]) && v != Redacted {
				v = Redacted
				redactWord(toks[i], m[1]+"=")
			}
			l.Env = append(l.Env, schema.KV{Key: m[1], Value: RedactInline(v)})
			i++
			continue
		}
		break
	}
	if i < len(toks) {
		l.Program = toks[i].text
		base := path.Base(l.Program)
		i++
		if strings.HasPrefix(base, "python") && i+1 < len(toks) && toks[i].text == "-m" {
			l.Program = toks[i+1].text
			i += 2
		}
	}
	afterServe := false
	for ; i < len(toks); i++ {
		t := toks[i]
		if shellOperators[t.text] {
			break
		}
		if !isFlagWord(t.text) {
			if m := envAssign.FindStringSubmatch(t.text); m != nil && secretEnvName(m[1]) && m[2] != Redacted {
				redactWord(t, m[1]+"=") // docker -e HF_TOKEN=…
			}
			if t.text == "serve" {
				afterServe = true
				continue
			}
			if afterServe && l.ModelID == "" {
				l.ModelID = t.text
			}
			afterServe = false
			continue
		}
		afterServe = false
		name, value, hasEq := strings.Cut(t.text, "=")
		secret := secretFlag(name)
		// A value that is itself NAME=VALUE (docker -e HF_TOKEN=…).
		envValue := func(v string) (string, bool) {
			if m := envAssign.FindStringSubmatch(v); m != nil && secretEnvName(m[1]) && m[2] != Redacted {
				return m[1] + "=" + Redacted, true
			}
			return v, false
		}
		if hasEq {
			if secret && value != Redacted {
				value = Redacted
				edits = append(edits, edit{t.start, t.end, name + "=" + Redacted})
			} else if v, ok := envValue(value); ok {
				value = v
				edits = append(edits, edit{t.start, t.end, name + "=" + v})
			}
		} else if i+1 < len(toks) && !shellOperators[toks[i+1].text] &&
			(secret && !strings.HasPrefix(toks[i+1].text, "--") || !isFlagWord(toks[i+1].text) && !booleanFlags[strings.TrimLeft(name, "-")]) {
			i++
			value = toks[i].text
			if secret && value != Redacted {
				value = Redacted
				redactWord(toks[i], "")
			} else if v, ok := envValue(value); ok {
				value = v
				edits = append(edits, edit{toks[i].start, toks[i].end, v})
			}
		}
		value = RedactInline(value)
		l.Flags = append(l.Flags, schema.KV{Key: name, Value: value})
		l.setting(strings.TrimLeft(name, "-"), name, value)
	}
	// Apply the edits back to front so the spans stay valid.
	out := cmd
	for k := len(edits) - 1; k >= 0; k-- {
		e := edits[k]
		out = out[:e.start] + e.text + out[e.end:]
	}
	l.Command = RedactInline(out)
	return l
}

// setting records a flag that has a Run column.
func (l *Launch) setting(name, printed, value string) {
	base := path.Base(l.Program)
	container := base == "docker" || base == "podman" || base == "nerdctl"
	switch name {
	case "model", "model-path", "model-id", "m":
		// -m is docker's memory limit; --m is nothing we know.
		if l.ModelID == "" && !(name == "m" && (printed != "-m" || container)) {
			l.ModelID = value
		}
	case "tensor-parallel-size", "tp", "tp-size", "tensor-parallel", "num-shard":
		if n, err := strconv.ParseInt(value, 10, 32); err == nil && n > 0 {
			l.TensorParallel = schema.I32(int32(n))
		}
	case "max-model-len", "context-length", "max-seq-len", "ctx-size", "c", "max-total-tokens":
		// -c is the context size of llama.cpp's programs only.
		if name == "c" && (printed != "-c" || !strings.Contains(base, "llama")) {
			return
		}
		if n, ok := parseLength(value); ok {
			l.MaxModelLen = schema.I64(n)
		}
	case "gpu-memory-utilization", "mem-fraction-static":
		if f, err := strconv.ParseFloat(value, 64); err == nil {
			l.GPUMemoryUtilization = schema.F64(f)
		}
	case "quantization", "quantize", "q":
		l.Quantization = value
	case "dtype":
		l.DType = value
	}
}

// parseLength reads a token count as launch flags print it: 131072,
// 128k (×1000, vLLM's reading) or 128K (×1024).
func parseLength(s string) (int64, bool) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1000, s[:len(s)-1]
	case strings.HasSuffix(s, "K"):
		mult, s = 1024, s[:len(s)-1]
	case strings.HasSuffix(s, "m"):
		mult, s = 1000_000, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1024*1024, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > 1<<40 {
		return 0, false
	}
	return n * mult, true
}
