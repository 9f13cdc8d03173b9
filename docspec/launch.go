package docspec

import (
	"path"
	"strconv"
	"strings"

	"speedmatrix/redact"
	"speedmatrix/schema"
)

// Launch is a server launch command, tokenized like a shell would and
// with its secrets redacted. It recognizes the forms of vLLM (`vllm serve
// MODEL …`), SGLang (`python -m sglang.launch_server --model-path …`),
// llama.cpp (`llama-server -m …`) and TGI (`text-generation-launcher
// --model-id …`), after optional `env` and NAME=VALUE prefixes, after
// setup commands (`cd DIR &&`, `export K=V;`) and inside `bash -c "…"`.
type Launch struct {
	// Command is the command as printed with every secret replaced by
	// redact.Marker (redact.Command); nothing else in the text changes.
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

// secretEnvName and secretFlag are redact's rules, named here for the
// tests of this package.
var (
	secretEnvName = redact.SecretName
	secretFlag    = redact.SecretFlag
)

// Note: the word lists below are switches, not maps: their lookups
// (two per word and one per flag) hashed each word, 6.5% of the
// instructions of ParseLaunch on a seed's command (`valgrind
// --tool=cachegrind`), where a switch compares lengths first.

// shellRedirect reports whether a word is a redirection, which ends the
// flags of a command (what follows is a file).
func shellRedirect(w string) bool {
	switch w {
	case ">", ">>", "2>", "<":
		return true
	}
	return false
}

// booleanFlag reports whether a flag (without its dashes) takes no value
// even when a word that is not a flag follows.
func booleanFlag(name string) bool {
	switch name {
	case "trust-remote-code", "enforce-eager", "enable-prefix-caching", "no-enable-prefix-caching",
		"enable-chunked-prefill", "enable-auto-tool-choice", "disable-log-requests",
		"disable-log-stats", "enable-lora", "disable-custom-all-reduce",
		"cont-batching", "no-mmap", "mlock", "verbose", "disable-radix-cache",
		"enable-torch-compile", "disable-cuda-graph", "enable-expert-parallel":
		return true
	}
	return false
}

// setupProgram reports whether a program prepares a shell for the
// server; the server command is another command of the line.
func setupProgram(base string) bool {
	switch base {
	case "cd", "export", "source", ".", "set", "ulimit", "echo", "mkdir", "sleep", "pushd", "popd", "true", "tee", "unset":
		return true
	}
	return false
}

// shell reports whether a program runs the command after -c (bash -c
// "…", bash -lc '…').
func shell(base string) bool {
	switch base {
	case "bash", "sh", "zsh", "dash":
		return true
	}
	return false
}

// redactValue redacts a printed value: a secret NAME=VALUE, then what
// redact.Text finds.
func redactValue(v string) string {
	if name, _, ok := redact.Assignment(v); ok && secretEnvName(name) {
		v = name + "=" + redact.Marker
	}
	return redact.Text(v)
}

// ParseLaunch redacts a launch command (redact.Command) and pulls out the
// settings other packages use from the command of the line that starts
// the server. It never fails: what it does not recognize stays in Flags
// and in the redacted Command.
//
// Note: the command is split into words once, for both (splitting it,
// twice, was 0.19 of ParseLaunch's 0.61 s in a profile of
// BenchmarkParseText).
func ParseLaunch(cmd string) Launch {
	ws := redact.Words(cmd)
	l := launchOf(ws, 0)
	l.Command = redact.CommandWords(cmd, ws)
	return l
}

// launchOf reads the settings of a command split into words ws.
func launchOf(ws []redact.Word, depth int) Launch {
	var l Launch
	// The commands of the line: the first that is not a setup command.
	var toks []redact.Word
	for len(ws) > 0 {
		end := 0
		for end < len(ws) && !ws[end].Op {
			end++
		}
		seg := ws[:end]
		ws = ws[min(end+1, len(ws)):]
		if p := programIndex(seg); p < len(seg) && !setupProgram(path.Base(seg[p].Text)) {
			toks = seg
			break
		}
		if toks == nil {
			toks = seg
		}
	}
	// Prefixes: env [-i] [-u NAME], NAME=VALUE, and wrappers.
	i := programIndex(toks)
	for _, w := range toks[:i] {
		if name, v, ok := redact.Assignment(w.Text); ok {
			if secretEnvName(name) {
				v = redact.Marker
			}
			l.Env = append(l.Env, schema.KV{Key: name, Value: redact.Text(v)})
		}
	}
	if i < len(toks) {
		l.Program = toks[i].Text
		base := path.Base(l.Program)
		i++
		if shell(base) && depth < 4 {
			// bash -c "vllm serve …": the server command is the argument.
			for j := i; j+1 < len(toks); j++ {
				if f := toks[j].Text; redact.IsFlag(f) && !strings.HasPrefix(f, "--") && strings.Contains(f, "c") {
					inner := launchOf(redact.Words(toks[j+1].Text), depth+1)
					inner.Env = append(l.Env, inner.Env...)
					return inner
				}
			}
		}
		if strings.HasPrefix(base, "python") && i+1 < len(toks) && toks[i].Text == "-m" {
			l.Program = toks[i+1].Text
			i += 2
		}
	}
	afterServe := false
	for ; i < len(toks); i++ {
		t := toks[i]
		if shellRedirect(t.Text) {
			break
		}
		if !redact.IsFlag(t.Text) {
			if t.Text == "serve" {
				afterServe = true
				continue
			}
			if afterServe && l.ModelID == "" {
				l.ModelID = t.Text
			}
			afterServe = false
			continue
		}
		afterServe = false
		flagAt := i
		name, value, hasEq := strings.Cut(t.Text, "=")
		secret := secretFlag(name)
		if !hasEq && i+1 < len(toks) && !shellRedirect(toks[i+1].Text) &&
			(secret && !strings.HasPrefix(toks[i+1].Text, "--") || !redact.IsFlag(toks[i+1].Text) && !booleanFlag(strings.TrimLeft(name, "-"))) {
			i++
			value = toks[i].Text
		}
		if secret && value != "" {
			value = redact.Marker
		}
		value = redactValue(value)
		if l.Flags == nil {
			// Room for every flag-like word left: one allocation, not
			// one per doubling.
			l.Flags = make([]schema.KV, 0, countFlags(toks[flagAt:]))
		}
		l.Flags = append(l.Flags, schema.KV{Key: name, Value: value})
		l.setting(strings.TrimLeft(name, "-"), name, value)
	}
	return l
}

// programIndex returns the index of a command's program, after env,
// wrappers and NAME=VALUE prefixes (len(seg) when there is none).
func programIndex(seg []redact.Word) int {
	i := 0
	for i < len(seg) {
		t := seg[i].Text
		switch {
		case t == "env" || t == "sudo" || t == "exec" || t == "nohup" || t == "time" || t == "-i" || t == "-E":
			i++
		case t == "-u":
			i = min(i+2, len(seg))
		case isAssignment(t):
			i++
		default:
			return i
		}
	}
	return len(seg)
}

// countFlags counts the words of ws that start with "-": at least the
// flags among them.
func countFlags(ws []redact.Word) int {
	n := 0
	for _, w := range ws {
		if strings.HasPrefix(w.Text, "-") {
			n++
		}
	}
	return n
}

// isAssignment reports whether a word is a NAME=VALUE prefix.
func isAssignment(t string) bool {
	_, _, ok := redact.Assignment(t)
	return ok
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
