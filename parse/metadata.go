package parse

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"speedmatrix/docspec"
	"speedmatrix/redact"
	"speedmatrix/schema"
)

// Redacted replaces every secret the parser removes (redact.Marker).
const Redacted = redact.Marker

// RedactInline replaces secrets that are recognizable by their form (an
// "Authorization: Bearer …" header, sk-…, hf_…, ghp_… keys, a URL's user
// information) anywhere in s: redact.Text.
func RedactInline(s string) string { return redact.Text(s) }

// titlePattern reads "MODEL on [N× ]GPU[ NNGB]".
var titlePattern = regexp.MustCompile(`^(.+?)\s+on\s+(?:(\d+)\s*[x×]\s*)?(.+?)(?:\s+(\d+(?:\.\d+)?)\s*(?:GB|GiB|G))?$`)

// gpuCountPattern reads a GPU count printed before the name: "2× H100",
// "8 x H200".
var gpuCountPattern = regexp.MustCompile(`^(\d+)\s*[x×]\s*(.+)$`)

// secretKey reports whether a metadata key (as appendHeaderKey gives it)
// names a secret.
func secretKey(k []byte) bool {
	has := func(s string) bool { return bytes.Contains(k, []byte(s)) }
	return has("apikey") || has("token") && !has("tokens") && !has("tokeniz") ||
		has("password") || has("secret") || string(k) == "authorization"
}

// buildRun fills the run's metadata from the title, the key/value pairs
// and the launch command. Every pair goes into Metadata, known or not;
// the known ones also fill their columns (keys match case- and
// space-insensitively). Numbers that do not read as their unit are
// errors at their line.
func buildRun(raw *rawDoc, run *schema.Run) error {
	run.Title = RedactInline(raw.Title)
	run.Subtitle = RedactInline(raw.Subtitle)
	run.Metadata = make([]schema.Field, 0, len(raw.Fields)) // every pair, grown once
	run.LaunchFlags = []schema.KV{}
	if t, ok := splitTitle(run.Title); ok {
		run.Model = t.model
		run.GPU = t.gpu
		if t.count != "" {
			if n, err := strconv.Atoi(t.count); err == nil && n > 0 {
				run.GPUCount = schema.I32(int32(n))
			}
		}
		if t.vram != "" {
			if v, err := strconv.ParseFloat(t.vram, 64); err == nil {
				run.VRAMGB = schema.F64(v)
			}
		}
	}
	launch := raw.Launch
	// Note: a pair's key is normalized once (secretKey and setField each
	// did) and its section once for all the pairs of a section: a small
	// saving (0.02 of buildRun's 0.41 s in a profile of Ingest1000/command).
	var secBuf, keyBuf [64]byte
	sec, section := appendHeaderKey(secBuf[:0], ""), ""
	for _, f := range raw.Fields {
		key := appendHeaderKey(keyBuf[:0], f.Key)
		if f.Section != section {
			sec, section = appendHeaderKey(secBuf[:0], f.Section), f.Section
		}
		value := f.Value
		if secretKey(key) && value != "" {
			value = Redacted
		}
		value = RedactInline(value)
		run.Metadata = append(run.Metadata, schema.Field{Section: f.Section, Key: f.Key, Value: value})
		if err := setField(raw, run, f, sec, key, value, &launch); err != nil {
			return err
		}
	}
	if launch != "" {
		// Note: a pair the document printed (a measuring run's Server
		// section: what the server itself reported) wins over what the
		// launch command implies; the launch command fills the rest.
		l := docspec.ParseLaunch(launch)
		run.LaunchCommand = l.Command
		if run.ModelID == "" {
			run.ModelID = l.ModelID
		}
		if run.TensorParallel == nil {
			run.TensorParallel = l.TensorParallel
		}
		if run.MaxModelLen == nil {
			run.MaxModelLen = l.MaxModelLen
		}
		if run.GPUMemoryUtilization == nil {
			run.GPUMemoryUtilization = l.GPUMemoryUtilization
		}
		run.LaunchQuantization = l.Quantization
		run.LaunchDType = l.DType
		if l.Flags != nil {
			run.LaunchFlags = l.Flags
		}
		launchGPUs(run, l)
	}
	if run.Model == "" {
		run.Model = run.ModelID
	}
	return nil
}

// setField fills the column a known key maps to. Keys that mean
// different things in different sections (Type, Version) are matched
// with their section; sec and key are f's, as appendHeaderKey gives them.
func setField(raw *rawDoc, run *schema.Run, f rawField, sec, key []byte, value string, launch *string) error {
	v := trimSpace(value)
	switch string(key) {
	case "type", "hardwaretype", "devicetype":
		if string(sec) == "hardware" || len(sec) == 0 || string(key) != "type" {
			run.HardwareType = v
		}
	case "gpu", "gpus", "accelerator", "device", "gpumodel":
		// ^(\d+) needs a digit first: most GPU names go without the regexp.
		if v != "" && isDigitByte(v[0]) {
			if m := gpuCountPattern.FindStringSubmatch(v); m != nil {
				n, _ := strconv.Atoi(m[1])
				run.GPUCount = schema.I32(int32(n))
				v = m[2]
			}
		}
		run.GPU = v
	case "gpucount", "numgpus", "numberofgpus":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errorf(raw.Name, f.Line, "%s %q is not a number of GPUs", f.Key, v)
		}
		run.GPUCount = schema.I32(int32(n))
	case "vram", "gpumemory", "vramgb", "videomemory":
		q, err := parseQuantity(v)
		if err != nil || q.Null || (q.Unit != "" && q.Unit != "GB" && q.Unit != "TB") {
			return errorf(raw.Name, f.Line, "%s %q is not a size like 96 GB", f.Key, v)
		}
		gb := q.Value
		if q.Unit == "TB" {
			gb *= 1000
		}
		run.VRAMGB = schema.F64(gb)
	case "os", "operatingsystem":
		run.OS = v
	case "engine", "inferenceengine", "server":
		run.Engine = v
	case "version", "engineversion":
		if string(sec) == "engine" || len(sec) == 0 || string(key) == "engineversion" {
			run.EngineVersion = v
		}
	case "quantization", "quant", "precision":
		run.Quantization = v
	case "backend":
		run.Backend = v
	case "repository", "repo", "enginerepository":
		run.EngineRepository = v
	case "build":
		run.Build = v
	case "commit", "enginecommit", "gitcommit":
		run.EngineCommit = v
	case "servedmodel", "servedmodelname":
		run.ServedModel = v
	case "modelid":
		run.ModelID = v
	case "model":
		if run.Model == "" {
			run.Model = v
		}
	case "revision", "modelrevision":
		run.Revision = v
	case "benchmarktool", "benchtool", "benchmark", "tool":
		run.BenchTool = v
		if name, version, ok := splitBenchTool(v); ok {
			run.BenchTool, run.BenchVersion = name, version
		}
	case "benchmarkversion", "benchversion", "toolversion":
		run.BenchVersion = strings.TrimPrefix(v, "v")
	case "decodetest":
		run.DecodeTest = v
	case "prefillmode":
		run.PrefillMode = v
	case "timepermeasurement", "measurementtime", "measurefor", "durationpermeasurement", "measurementwindow":
		q, err := parseQuantity(v)
		if err == nil {
			q, err = q.convert(kindSeconds)
		}
		if err != nil || q.Null || q.Value <= 0 {
			return errorf(raw.Name, f.Line, "%s %q is not a duration like 30 s", f.Key, v)
		}
		run.MeasureSeconds = schema.F64(q.Value)
	case "maxoutput", "maxoutputtokens", "maxtokens", "maxnewtokens":
		q, err := parseQuantity(v)
		if err == nil {
			q, err = q.convert(kindCount)
		}
		if err != nil || q.Null || q.Value < 0 || q.Value > math.MaxInt64/2 {
			return errorf(raw.Name, f.Line, "%s %q is not a token count like 4,096 tokens", f.Key, v)
		}
		run.MaxOutputTokens = schema.I64(int64(q.Value))
	case "launchcommand", "command", "servercommand":
		if *launch == "" {
			*launch = v
		}
	// What a measuring run prints (render's Run and Server sections).
	case "dataset":
		run.Dataset = v
	case "endpoint", "apiendpoint":
		run.Endpoint = v
	case "serverurl", "url", "baseurl", "endpointurl":
		run.ServerURL = v
	case "host", "hostname", "clienthost":
		run.Host = v
	case "clientversion":
		run.ClientVersion = v
	case "started", "startedat", "starttime":
		t, err := runTime(v)
		if err != nil {
			return errorf(raw.Name, f.Line, "%s %q is not a time like 2026-12-02T15:00:00Z (RFC 3339)", f.Key, v)
		}
		run.StartedAt = t
	case "finished", "finishedat", "endtime", "ended":
		t, err := runTime(v)
		if err != nil {
			return errorf(raw.Name, f.Line, "%s %q is not a time like 2026-12-02T15:00:00Z (RFC 3339)", f.Key, v)
		}
		run.FinishedAt = t
	case "powersource":
		run.PowerSource = v
	case "idlepower", "idlepowerw":
		w, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(v, "W")), 64)
		if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
			return errorf(raw.Name, f.Line, "%s %q is not a power like 120 W", f.Key, v)
		}
		run.IdlePowerW = schema.F64(w)
	case "kvbudget", "kvbudgettokens", "kvcachetokens", "kvtokens", "kvcachesize":
		n, err := tokenCount(v)
		if err != nil {
			return errorf(raw.Name, f.Line, "%s %q is not a token count like 200,000 tokens", f.Key, v)
		}
		run.KVBudgetTokens = schema.I64(n)
	case "maxmodellength", "maxmodellen", "maxcontextlength", "contextlimit":
		n, err := tokenCount(v)
		if err != nil {
			return errorf(raw.Name, f.Line, "%s %q is not a token count like 32,768 tokens", f.Key, v)
		}
		run.MaxModelLen = schema.I64(n)
	case "tensorparallel", "tensorparallelsize":
		n, err := tokenCount(v)
		if err != nil || n < 1 || n > math.MaxInt32 {
			return errorf(raw.Name, f.Line, "%s %q is not a number of GPUs", f.Key, v)
		}
		run.TensorParallel = schema.I32(int32(n))
	case "gpumemoryutilization", "gpumemoryutil", "gpumemoryfraction":
		q, err := parseQuantity(v)
		if err != nil || q.Null || (q.Unit != "" && q.Unit != "%") {
			return errorf(raw.Name, f.Line, "%s %q is not a fraction like 0.9", f.Key, v)
		}
		u := q.Value
		if q.Unit == "%" {
			u /= 100
		}
		run.GPUMemoryUtilization = schema.F64(u)
	}
	return nil
}

// tokenCount reads a whole, non-negative count with an optional unit
// ("200,000 tokens", "2").
func tokenCount(v string) (int64, error) {
	q, err := parseQuantity(v)
	if err == nil {
		q, err = q.convert(kindCount)
	}
	if err != nil || q.Null || q.Value < 0 {
		return 0, fmt.Errorf("not a count: %q", v)
	}
	return int64(q.Value), nil
}

// runTime reads a run's start or end time: RFC 3339 with optional
// fractional seconds, as render prints it. The time keeps its printed
// offset's instant, in UTC when the offset is zero.
func runTime(v string) (*time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// launchGPUs fills the run's GPU count from the launch command's parallel
// sizes (docspec's Launch.GPUs: tensor × pipeline × data parallel, each
// size the command leaves out the engine's default of 1) when the
// document states no count. A count the document states (its title's
// "2×", a Hardware "GPU count") is the more direct source: it is kept,
// and a launch command that implies another is a warning in run metadata
// (section Warnings).
func launchGPUs(run *schema.Run, l docspec.Launch) {
	n, rule := l.GPUs()
	switch {
	case n < 1 || n > math.MaxInt32:
	case run.GPUCount == nil:
		run.GPUCount = schema.I32(int32(n))
	case int(*run.GPUCount) != n:
		run.Metadata = append(run.Metadata, schema.Field{Section: "Warnings", Key: "gpu_count",
			Value: fmt.Sprintf("the launch command implies %d GPUs (%s); kept the %d the document states", n, rule, *run.GPUCount)})
	}
}
