package report

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"speedmatrix/schema"
)

// MaxLabel is the most characters a default run label holds: legends,
// headers and sentences name every run, and 80–110 character labels
// (GPU, quantization, engine twice, model, tool) left charts an empty
// plot area beside their legend.
const MaxLabel = 30

// labelField is one thing a label may name: its value per run, the
// metadata fields it stands for (AlsoDiffer leaves those out) and
// whether its words may be cut ("RTX PRO 6000 Blackwell Server
// Edition" → "RTX PRO 6000").
type labelField struct {
	get    func(*schema.Run) string
	covers []string
	words  bool
}

// engineField is the index of the engine and short version in
// labelFields.
const engineField = 2

// labelFields are tried in this order: GPU and quantization are named
// whenever they differ; the engine, the model, the bench tool, the whole
// engine build and the configuration a title names only while still
// needed to tell the runs apart.
var labelFields = []labelField{
	{get: gpuName, covers: []string{"GPU"}, words: true},
	{get: func(r *schema.Run) string { return r.Quantization }, covers: []string{"quantization"}},
	{get: func(r *schema.Run) string { return strings.TrimSpace(r.Engine + " " + shortVersion(r.EngineVersion)) }, covers: []string{"engine", "engine version"}},
	{get: func(r *schema.Run) string { return r.Model }, covers: []string{"model"}, words: true},
	// The same model measured by two tools (vLLM's bench serve and
	// genai-bench) differs in nothing else.
	{get: func(r *schema.Run) string { return r.BenchTool }, covers: []string{"bench tool"}},
	// The whole version, when only the build shortVersion cut tells runs
	// apart; it replaces the short one (label), never beside it.
	{get: func(r *schema.Run) string {
		if shortVersion(r.EngineVersion) == r.EngineVersion {
			return ""
		}
		return strings.TrimSpace(r.Engine + " " + r.EngineVersion)
	}, covers: []string{"engine", "engine version"}},
	// A tool's file split into runs by configuration: the title ends with
	// what sets the run apart, "(deployment=kvcache)".
	{get: func(r *schema.Run) string {
		if i := strings.LastIndex(r.Title, " ("); i >= 0 && strings.HasSuffix(r.Title, ")") && !Simulated(r) {
			return r.Title[i+2 : len(r.Title)-1]
		}
		return ""
	}},
}

// Labels names runs for notes and legends in at most MaxLabel
// characters: what tells them apart among GPU and quantization, then
// engine, model, bench tool and the configuration a title names, each
// cut to the words that still tell the runs apart. A simulated run's
// label says "simulated". Runs those leave alike (two files of one
// provider and model) keep that name with a run-id prefix after it; a
// run none of them names is its run-id prefix. AlsoDiffer names what
// else differs.
func Labels(ms []*schema.Matrix) []string {
	runs := make([]*schema.Run, len(ms))
	for i, m := range ms {
		runs[i] = &m.Run
	}
	use := labelUse(runs)
	out := buildLabels(runs, use, MaxLabel)
	if !distinctStrings(out) || slices.Contains(out, "") {
		// Note: a name shared by several runs (or none) gets the run-id
		// prefix, the rest keep what tells them apart: "groq llama2-70b"
		// beside "replicate llama-2-70b-chat (31caec0e)", never four bare
		// run ids.
		count := map[string]int{}
		for _, l := range out {
			count[l]++
		}
		// A name too long for the id beside it is numbered instead
		// ("replicate llama-2-70b-chat #2"); the Runs table gives the ids.
		nth := map[string]int{}
		named := slices.Clone(out)
		for i, r := range runs {
			id := shortID(r.RunID)
			switch l := named[i]; {
			case l == "":
				out[i] = id
			case count[l] > 1 && utf8.RuneCountInString(l)+len(id)+3 <= MaxLabel:
				out[i] = l + " (" + id + ")"
			case count[l] > 1:
				nth[l]++
				n := " #" + strconv.Itoa(nth[l])
				out[i] = fit(l, MaxLabel-len(n)) + n
			}
		}
	}
	if len(runs) > 0 && !distinctStrings(out) {
		for i, r := range runs {
			out[i] = r.RunID
		}
	}
	return out
}

// labelUse returns the indexes into labelFields the labels of runs name.
func labelUse(runs []*schema.Run) []int {
	use := chooseFields(runs)
	// Note: a label over MaxLabel first loses the fields chosen after GPU
	// and quantization that the others make redundant ("H200 NVL
	// Ling-3.0-tiny" beside "sglang Model-30B-A3B" and "MiniMax-M2.7":
	// the model alone tells them apart, the engine goes to AlsoDiffer);
	// only then are the parts cut.
	for k := len(use) - 1; k >= 0 && tooLong(buildLabels(runs, use, MaxLabel*4)); k-- {
		if use[k] < 2 {
			continue
		}
		fewer := slices.Delete(slices.Clone(use), k, k+1)
		if distinctBy(runs, fewer) {
			use = fewer
		}
	}
	return use
}

// buildLabels joins each run's values of the fields use, their words cut
// (cutWords) where the field allows.
func buildLabels(runs []*schema.Run, use []int, most int) []string {
	parts := make([][]string, len(runs)) // per run, per used field
	for i := range runs {
		parts[i] = make([]string, len(use))
	}
	for j, fi := range use {
		f := labelFields[fi]
		vals := make([]string, len(runs))
		for i, r := range runs {
			vals[i] = f.get(r)
		}
		if f.words {
			vals = cutWords(vals, 3)
		}
		for i := range runs {
			parts[i][j] = vals[i]
		}
	}
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = joinParts(r, parts[i], use, most)
	}
	return out
}

func tooLong(ls []string) bool {
	return slices.ContainsFunc(ls, func(l string) bool { return utf8.RuneCountInString(l) > MaxLabel })
}

// chooseFields returns the indexes into labelFields that tell the runs
// apart, as Labels describes.
func chooseFields(runs []*schema.Run) []int {
	var use []int
	for i, f := range labelFields {
		vals := map[string]bool{}
		for _, r := range runs {
			vals[f.get(r)] = true
		}
		if len(vals) > 1 {
			use = append(use, i)
		}
		if i >= 1 && len(use) > 0 && distinctBy(runs, use) {
			break
		}
	}
	return use
}

func distinctBy(runs []*schema.Run, use []int) bool {
	ls := make([]string, len(runs))
	for i, r := range runs {
		var parts []string
		for _, fi := range use {
			if v := labelFields[fi].get(r); v != "" {
				parts = append(parts, v)
			}
		}
		ls[i] = strings.Join(parts, " ")
		if ls[i] == "" {
			return false
		}
	}
	return distinctStrings(ls)
}

// joinParts joins one run's field values, prefixes "simulated" when no
// part says it, and fits the result in MaxLabel characters by cutting
// the longest part first (a GPU's distinguishing model number stays:
// cutWords kept it among its first words).
func joinParts(r *schema.Run, parts []string, use []int, most int) string {
	var keep []string
	for j, p := range parts {
		if p == "" {
			continue
		}
		// The whole build replaces the short engine version it starts
		// with: "vllm 0.27.2rc1.dev113+g5cecfc013", not the version twice.
		if use[j] == engineField && slices.ContainsFunc(parts[j+1:], func(q string) bool { return strings.HasPrefix(q, p) }) {
			continue
		}
		keep = append(keep, p)
	}
	sim := Simulated(r) && !slices.ContainsFunc(keep, func(p string) bool { return strings.Contains(p, "simulated") })
	budget := most
	if sim {
		budget -= len("simulated ")
	}
	for total(keep) > budget {
		long := 0
		for j := range keep {
			if utf8.RuneCountInString(keep[j]) > utf8.RuneCountInString(keep[long]) {
				long = j
			}
		}
		n := utf8.RuneCountInString(keep[long]) - (total(keep) - budget)
		keep[long] = fit(keep[long], max(n, 4))
		if n < 4 {
			break
		}
	}
	l := strings.Join(keep, " ")
	if sim {
		l = strings.TrimSpace("simulated " + l)
	}
	return fit(l, most)
}

func total(parts []string) int {
	n := max(len(parts)-1, 0)
	for _, p := range parts {
		n += utf8.RuneCountInString(p)
	}
	return n
}

// fit cuts s to at most n characters, ending in "…" when cut.
func fit(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max(n-1, 0)]), " -_(") + "…"
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Simulated reports whether a run measured the built-in simulator
// (cmd/run -simulate names the GPU "simulated (profile)" and the engine
// speedmatrix-sim).
func Simulated(r *schema.Run) bool {
	return strings.HasPrefix(r.GPU, "simulated") || r.Engine == "speedmatrix-sim"
}

// vendorWords are left out of a GPU's name in a label: every run of a
// comparison names the same vendor, and "NVIDIA GeForce RTX" cut to three
// words lost the model number that mattered.
var vendorWords = map[string]bool{"nvidia": true, "amd": true, "intel": true, "geforce": true, "radeon": true, "tesla": true, "apple": true}

// gpuName is a run's GPU without vendor words, "simulated X" for a
// simulator calibrated from X ("simulated (Model on GPU)"), "simulated
// NAME" for another simulator profile.
func gpuName(r *schema.Run) string {
	g := r.GPU
	if rest, ok := strings.CutPrefix(g, "simulated"); ok {
		rest = strings.TrimSpace(rest)
		rest = strings.TrimSuffix(strings.TrimPrefix(rest, "("), ")")
		if i := strings.LastIndex(rest, " on "); i >= 0 {
			rest = rest[i+4:]
		}
		return strings.TrimSpace("simulated " + stripVendor(rest))
	}
	if g == "" && r.Engine == "speedmatrix-sim" {
		return "simulated"
	}
	return stripVendor(g)
}

func stripVendor(g string) string {
	var out []string
	for _, w := range strings.Fields(g) {
		if !vendorWords[strings.ToLower(w)] {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return strings.Join(strings.Fields(g), " ")
	}
	return strings.Join(out, " ")
}

// cutWords cuts each value to its first n words ("simulated" not
// counted), then, among values whose cuts collide, adds back the first word
// that tells them apart ("RTX PRO 6000 Max-Q" beside "RTX PRO 6000
// Server", the shared "Blackwell" left out). Values that were equal stay
// equal; values that differed stay different.
func cutWords(vals []string, n int) []string {
	out := make([]string, len(vals))
	words := make([][]string, len(vals))
	for i, v := range vals {
		words[i] = strings.Fields(v)
		k := n
		if len(words[i]) > 0 && words[i][0] == "simulated" {
			k++
		}
		out[i] = strings.Join(words[i][:min(k, len(words[i]))], " ")
		// "simulated (Ling-3.0-tiny on" reads cut: keep what precedes an
		// unclosed parenthesis.
		if j := strings.LastIndex(out[i], "("); j > 0 && !strings.Contains(out[i][j:], ")") {
			out[i] = strings.TrimSpace(out[i][:j])
		}
	}
	for i := range vals {
		for j := range vals {
			if i == j || vals[i] == vals[j] || out[i] != out[j] {
				continue
			}
			// Collision: add the first word where the two differ.
			out[i], out[j] = tellApart(words[i], words[j], out[i])
		}
	}
	for i := range vals {
		for j := range vals {
			if vals[i] != vals[j] && out[i] == out[j] {
				out[i], out[j] = vals[i], vals[j]
			}
		}
	}
	return out
}

// tellApart returns a and b as their shared cut prefix plus the first
// later word where they differ.
func tellApart(a, b []string, prefix string) (string, string) {
	k := len(strings.Fields(prefix))
	ka, kb := []string{prefix}, []string{prefix}
	for p := k; p < max(len(a), len(b)); p++ {
		wa, wb := "", ""
		if p < len(a) {
			wa = a[p]
		}
		if p < len(b) {
			wb = b[p]
		}
		if wa != wb {
			if wa != "" {
				ka = append(ka, wa)
			}
			if wb != "" {
				kb = append(kb, wb)
			}
			break
		}
	}
	return strings.Join(ka, " "), strings.Join(kb, " ")
}

func distinctStrings(ss []string) bool {
	seen := map[string]bool{}
	for _, s := range ss {
		if seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// shortVersion cuts a version at its local part and development build
// ("0.27.2rc1.dev113+g5cecfc013" → "0.27.2rc1"): the full string made every
// legend and sentence naming a run three times as long. Runs told apart by
// the build alone are named with it (Labels).
func shortVersion(v string) string {
	if i := strings.IndexByte(v, '+'); i > 0 {
		v = v[:i]
	}
	if i := strings.Index(v, ".dev"); i > 0 {
		v = v[:i]
	}
	return v
}
