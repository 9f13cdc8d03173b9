package ingestcmd

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/parse"
	"speedmatrix/render"
	"speedmatrix/schema"
)

// secretTemplates are the inputs FuzzIngestSecrets plants secrets into:
// every document form (text, HTML, Markdown, a serve table in each) and
// every result file of other tools in parse's testdata that parses, in
// name order.
var secretTemplates = sync.OnceValues(func() ([]string, error) {
	var paths []string
	for _, glob := range []string{"../../testdata/seeds/*.txt", "../../parse/testdata/forms/*.*", "../../parse/testdata/serve/*.*"} {
		ps, err := filepath.Glob(glob)
		if err != nil {
			return nil, err
		}
		paths = append(paths, ps...)
	}
	err := filepath.WalkDir("../../parse/testdata/peers", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "bad" {
			return filepath.SkipDir
		}
		if !d.IsDir() && !strings.HasSuffix(p, ".md") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var ok []string
	for _, p := range paths {
		if strings.HasSuffix(p, ".py") {
			continue
		}
		if _, err := parse.ParseAll(mustOpen(p), p, ""); err == nil {
			ok = append(ok, p)
		}
	}
	sort.Strings(ok)
	return ok, nil
})

func mustOpen(p string) *bytes.Reader {
	b, _ := os.ReadFile(p)
	return bytes.NewReader(b)
}

// Spellings of a secret S planted in free text: every form issue 22
// found stored or printed, and the other forms the redactor knows. {B}
// is base64("alice:S"), what Go's client sends for http://alice:S@host.
var secretSpellings = []string{
	"--api-key {S}", "--api-key={S}", "--hf-token {S}", "HF_TOKEN={S}", "export OPENAI_API_KEY={S}",
	"docker run -e HF_TOKEN={S} vllm/vllm-openai --model m", "-H 'Authorization: Bearer {S}'", `-H "x-api-key: {S}"`,
	"-H 'api-key: {S}'", "Proxy-Authorization: Basic {B}", "Authorization: Basic {B}", "http://alice:{S}@gpu-host:8000/v1",
	"https://user:{S}@huggingface.co/org/M", "s3://AKID:{S}@bucket/x", `bash -c "vllm serve m --api-key {S}"`,
	`{"api_key": "{S}"}`, "api_key={S}", "password: {S}", "token={S}", "/v1?access_token={S}&x=1", "Bearer {S}",
	"sk-proj-{S}", "hf_{S}", `{'hf_token': '{S}'}`, "Namespace(api_key='{S}', model='m')", "client_secret: {S}",
	"curl -H 'X-Api-Key: {S}' http://h/v1/models", "vllm serve https://alice:{S}@huggingface.co/M --port 8000",
	`--header "Proxy-Authorization: Bearer {S}"`, "AWS_SECRET_ACCESS_KEY={S}", "passwd={S}", "{B}",
}

// secretKeys are keys planted with a secret value into JSON objects.
var secretKeys = []string{
	"api_key", "apiKey", "hf_token", "HF_TOKEN", "token", "access_token", "password", "passwd", "secret", "client_secret",
	"authorization", "Authorization", "x-api-key", "api-key", "Proxy-Authorization", "OPENAI_API_KEY", "credentials",
	"cookie", "auth", "private_key", "hfToken", "db_password", "AUTH_TOKEN",
}

// plainKeys are keys that name no secret, planted with a spelling.
var plainKeys = []string{"launch_command", "note", "server", "cli_command", "url", "base_url", "model_id", "comment", "command", "description"}

// planner hands out the bytes of a fuzzed plan, then zeros.
type planner struct {
	b []byte
	i int
}

func (p *planner) next(n int) int {
	if n <= 0 {
		return 0
	}
	if p.i >= len(p.b) {
		return 0
	}
	v := int(p.b[p.i])
	p.i++
	return v % n
}

// spell returns a spelling of the secret.
func spell(p *planner, secret string) string {
	b64 := base64.StdEncoding.EncodeToString([]byte("alice:" + secret))
	return strings.NewReplacer("{S}", secret, "{B}", b64).Replace(secretSpellings[p.next(len(secretSpellings))])
}

// plantJSON plants a secret into a decoded JSON value: a secret key
// with the secret (bare, as a bearer or Basic credential) into one of
// its objects, a spelling under a plain key, or a spelling appended to
// one of its strings.
func plantJSON(v any, p *planner, secret string) any {
	var objs []map[string]any
	type strAt struct {
		set func(string)
		s   string
	}
	var strs []strAt
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		switch x := v.(type) {
		case map[string]any:
			objs = append(objs, x)
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k], func(n any) { x[k] = n })
			}
		case []any:
			for i := range x {
				walk(x[i], func(n any) { x[i] = n })
			}
		case string:
			strs = append(strs, strAt{func(s string) { set(s) }, x})
		}
	}
	walk(v, func(n any) { v = n })
	switch p.next(3) {
	case 0:
		if len(objs) > 0 {
			o := objs[p.next(len(objs))]
			val := secret
			switch p.next(3) {
			case 1:
				val = "Bearer " + secret
			case 2:
				val = "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+secret))
			}
			o[secretKeys[p.next(len(secretKeys))]] = val
		}
	case 1:
		if len(objs) > 0 {
			objs[p.next(len(objs))][plainKeys[p.next(len(plainKeys))]] = spell(p, secret)
		}
	default:
		if len(strs) > 0 {
			s := strs[p.next(len(strs))]
			s.set(s.s + " " + spell(p, secret))
		}
	}
	return v
}

// plantText plants a spelling into a text: appended to a line (the
// launch command's, or any), or as a metadata pair of the text form.
func plantText(b []byte, p *planner, secret string) []byte {
	lines := strings.Split(string(b), "\n")
	switch p.next(3) {
	case 0:
		for i, l := range lines {
			if strings.Contains(l, "--port") || strings.Contains(l, " serve ") {
				lines[i] = l + " " + spell(p, secret)
				return []byte(strings.Join(lines, "\n"))
			}
		}
		fallthrough
	case 1:
		i := p.next(len(lines))
		lines[i] += " " + spell(p, secret)
	default:
		for i, l := range lines {
			if l == "- main" || l == "Run" {
				k := secretKeys[p.next(len(secretKeys))]
				lines = append(lines[:i+1], append([]string{"- " + k, "- " + secret}, lines[i+1:]...)...)
				return []byte(strings.Join(lines, "\n"))
			}
		}
		i := p.next(len(lines))
		lines = append(lines[:i], append([]string{spell(p, secret)}, lines[i:]...)...)
	}
	return []byte(strings.Join(lines, "\n"))
}

// plant returns the template with 1 to 4 secrets planted as the plan
// says.
func plant(tpl []byte, plan []byte, secret string) []byte {
	p := &planner{b: plan}
	n := 1 + p.next(4)
	b := tpl
	for k := 0; k < n; k++ {
		t := bytes.TrimSpace(b)
		var v any
		switch {
		case len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Unmarshal(t, &v) == nil:
			out, err := json.MarshalIndent(plantJSON(v, p, secret), "", " ")
			if err == nil {
				b = out
				continue
			}
		case len(t) > 0 && t[0] == '{': // JSON Lines: one line planted
			lines := bytes.Split(b, []byte("\n"))
			i := p.next(len(lines))
			if json.Unmarshal(lines[i], &v) == nil {
				if out, err := json.Marshal(plantJSON(v, p, secret)); err == nil {
					lines[i] = out
					b = bytes.Join(lines, []byte("\n"))
					continue
				}
			}
		}
		b = plantText(b, p, secret)
	}
	return b
}

// secretLike keeps fuzzed secrets that only a secret would be: 16 to
// 40 letters and digits, with an upper-case letter, a lower-case one and
// a digit (so that no figure, id or word of a template is one).
func fuzzSecretLike(s string) bool {
	if len(s) < 16 || len(s) > 40 {
		return false
	}
	var up, low, dig bool
	for _, c := range s {
		switch {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			low = true
		case c >= '0' && c <= '9':
			dig = true
		default:
			return false
		}
	}
	return up && low && dig
}

// FuzzIngestSecrets plants known secrets into every input format the
// tool reads (see plant) and runs each through ingest (an archive
// written) and ingest -json, and renders what parses as a document of
// each form: the secret, and the Basic credential made of it, must be
// in no Parquet file (raw bytes and rows read back), no document,
// nothing on stdout or stderr. SPEEDMATRIX_FUZZ_TALLY names a file that
// gets a line per input (for the figures of a long run).
func FuzzIngestSecrets(f *testing.F) {
	tpls, err := secretTemplates()
	if err != nil || len(tpls) < 20 {
		f.Fatalf("templates: %d, %v", len(tpls), err)
	}
	for i := range tpls {
		f.Add(uint8(i), []byte{byte(i), byte(i * 7), byte(i * 13), 1, 2, 3, 4, 5, 6, 7, 8}, "Zq7SecretValue42xy")
		f.Add(uint8(i), []byte{3, 0, 5, 1, 9, 2, 2, 2, 1, 0, 0, 4}, "Kq9AnotherSecret0077")
	}
	tally := os.Getenv("SPEEDMATRIX_FUZZ_TALLY")
	f.Fuzz(func(t *testing.T, which uint8, plan []byte, secret string) {
		if !fuzzSecretLike(secret) {
			return
		}
		path := tpls[int(which)%len(tpls)]
		tpl, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(tpl, []byte(secret)) {
			return
		}
		in := plant(tpl, plan, secret)
		planted := bytes.Count(in, []byte(secret)) + bytes.Count(in, []byte(base64.StdEncoding.EncodeToString([]byte("alice:"+secret))))
		if planted == 0 {
			return
		}
		secrets := []string{secret, strings.TrimRight(base64.StdEncoding.EncodeToString([]byte("alice:"+secret)), "=")}
		dir := t.TempDir()
		file := filepath.Join(dir, "in"+filepath.Ext(path))
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		var texts []string
		var out, errb bytes.Buffer
		arch := filepath.Join(dir, "archive")
		code := run(context.Background(), []string{"-archive", arch, file}, strings.NewReader(""), &out, &errb)
		texts = append(texts, out.String(), errb.String())
		out.Reset()
		errb.Reset()
		run(context.Background(), []string{"-json", file}, strings.NewReader(""), &out, &errb)
		texts = append(texts, out.String(), errb.String())
		docs := 0
		if ms, err := parse.ParseAll(bytes.NewReader(in), file, ""); err == nil {
			for _, m := range ms {
				for _, r := range []func(w *bytes.Buffer, m *schema.Matrix) error{
					func(w *bytes.Buffer, m *schema.Matrix) error { return render.HTML(w, m) },
					func(w *bytes.Buffer, m *schema.Matrix) error { return render.Markdown(w, m) },
					func(w *bytes.Buffer, m *schema.Matrix) error { return render.Summary(w, m) },
				} {
					var w bytes.Buffer
					if err := r(&w, m); err == nil {
						texts = append(texts, w.String())
						docs++
					}
				}
			}
		}
		rows := 0
		filepath.WalkDir(arch, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			texts = append(texts, string(b))
			if strings.HasSuffix(p, ".parquet") {
				if rs, err := archive.ReadFile[schema.Run](p); err == nil {
					texts, rows = append(texts, fmt.Sprintf("%+v", rs)), rows+len(rs)
				} else if ms, err := archive.ReadFile[schema.Measurement](p); err == nil {
					texts, rows = append(texts, fmt.Sprintf("%+v", ms)), rows+len(ms)
				} else if ss, err := archive.ReadFile[schema.Sample](p); err == nil {
					texts, rows = append(texts, fmt.Sprintf("%+v", ss)), rows+len(ss)
				}
			}
			return nil
		})
		for _, s := range secrets {
			for _, x := range texts {
				if i := strings.Index(x, s); i >= 0 {
					t.Fatalf("%s (template %s, exit %d): secret %s survives: …%s…\ninput:\n%s", file, path, code, s, x[max(0, i-200):min(len(x), i+80)], in)
				}
			}
		}
		if tally != "" {
			if fh, err := os.OpenFile(tally, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintf(fh, "%d %d %d %d %s\n", planted, code, rows, docs, filepath.Base(path))
				fh.Close()
			}
		}
	})
}
