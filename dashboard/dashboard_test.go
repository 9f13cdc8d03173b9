package dashboard

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"speedmatrix/archive"
	"speedmatrix/internal/testtool"
	"speedmatrix/parse"
	"speedmatrix/schema"
)

// Run ids of the test archive.
var (
	seedBF16 = "testdata/seeds/001_03cf9c936d246394.txt"
	seedINT4 = "testdata/seeds/000_acc4a01d882a0446.txt"
	peers    = []string{
		"parse/testdata/peers/vllm",
		"parse/testdata/peers/guidellm/neuralmagic-benchmarks-stripped-v0.3.json",
	}
)

// testArchive is an archive built from the seeds, a variant of each
// (another engine version, a GPU count, a title holding markup) and a
// few peer fixtures. It returns the archive and the ids of the seeds
// and of the variant with the <script> title.
type testArchive struct {
	dir                   string
	arc                   *archive.Archive
	bf16, int4, evil, tp2 string
	n                     int
}

func parseFile(t testing.TB, path string) []*schema.Matrix {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := parse.ParseAll(f, path, "")
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ms
}

func newTestArchive(t testing.TB) *testArchive {
	t.Helper()
	root := testtool.RepoRoot(t)
	ta := &testArchive{dir: filepath.Join(t.TempDir(), "archive")}
	bf := parseFile(t, filepath.Join(root, seedBF16))[0]
	in := parseFile(t, filepath.Join(root, seedINT4))[0]
	ms := []*schema.Matrix{bf, in}
	ta.bf16, ta.int4 = bf.Run.RunID, in.Run.RunID
	// A newer engine version of the INT4 seed, two GPUs, a title with markup.
	v := *in
	v.Run.EngineVersion = "0.31.0"
	v.Run.Title = `<script>alert("x")</script> INT4 rerun`
	two := int32(2)
	v.Run.GPUCount = &two
	v.Run.RunID = schema.ComputeRunID(&v)
	v.Measurements = append([]schema.Measurement(nil), in.Measurements...)
	for i := range v.Measurements {
		v.Measurements[i].RunID = v.Run.RunID
	}
	v.Samples = nil
	ta.evil, ta.tp2 = v.Run.RunID, v.Run.RunID
	ms = append(ms, &v)
	for _, p := range peers {
		p = filepath.Join(root, p)
		files := []string{p}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			files, _ = filepath.Glob(filepath.Join(p, "*"))
		}
		for _, f := range files {
			ms = append(ms, parseFile(t, f)...)
		}
	}
	a, err := archive.Open(ta.dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Append(context.Background(), ms)
	if err != nil {
		t.Fatal(err)
	}
	_ = res
	ls, err := a.ListRuns(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ta.n = len(ls)
	ta.arc = a
	return ta
}

// get sends one request to h and returns the status and body.
func get(t testing.TB, h http.Handler, target string, hdr ...string) (int, string, http.Header) {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b), rec.Result().Header
}

var checkbox = regexp.MustCompile(`<input type="checkbox" name="sel" value="([^"]+)"`)

// rowsOf returns the run ids of a Runs page, in order.
func rowsOf(body string) []string {
	var ids []string
	for _, m := range checkbox.FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func TestRuns(t *testing.T) {
	ta := newTestArchive(t)
	h := newServer(ta.arc, Options{})
	cases := []struct {
		name, query string
		rows        int      // rows on the page
		first       string   // the first row's id, if set
		has, hasNot []string // substrings of the body
	}{
		{name: "all", query: "", rows: ta.n, has: []string{fmt.Sprintf("Runs 1–%d of %d", ta.n, ta.n)}},
		{name: "gpu filter", query: "gpu=h200", rows: 1, first: ta.bf16},
		{name: "gpu filter upper", query: "gpu=RTX+PRO", rows: 2},
		{name: "version filter", query: "version=0.31", rows: 1, first: ta.evil},
		{name: "free text", query: "q=blackwell", rows: 2},
		{name: "two filters", query: "gpu=RTX&version=0.30", rows: 1, first: ta.int4},
		{name: "no match", query: "model=nothing-like-this", rows: 0, has: []string{"No run", "the filters keep 0 of"}},
		{name: "sort engine version desc", query: "gpu=RTX&sort=version&dir=desc", rows: 2, first: ta.evil},
		{name: "sort engine version asc", query: "gpu=RTX&sort=version&dir=asc", rows: 2, first: ta.int4},
		{name: "page size", query: "per=2", rows: 2, has: []string{"page 1 of", `rel="next"`}},
		{name: "last page", query: fmt.Sprintf("per=2&page=%d", (ta.n+1)/2), rows: 2 - ta.n%2, has: []string{`rel="prev"`}, hasNot: []string{`rel="next"`}},
		{name: "selection kept", query: "gpu=h200&sel=" + ta.int4 + "&sel=" + ta.bf16, rows: 1,
			has: []string{`<input type="hidden" name="sel" value="` + ta.int4 + `">`, " checked", "2 selected"}},
		{name: "title escaped", query: "version=0.31", rows: 1,
			has: []string{"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; INT4 rerun", "2× RTX PRO"}, hasNot: []string{`<script>alert`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, _ := get(t, h, "/runs?"+c.query)
			if code != http.StatusOK {
				t.Fatalf("status %d: %s", code, body)
			}
			rows := rowsOf(body)
			if len(rows) != c.rows {
				t.Errorf("%d rows, want %d", len(rows), c.rows)
			}
			if c.first != "" && (len(rows) == 0 || rows[0] != c.first) {
				t.Errorf("first row %v, want %s", rows, c.first)
			}
			for _, s := range c.has {
				if !strings.Contains(body, s) {
					t.Errorf("body lacks %q", s)
				}
			}
			for _, s := range c.hasNot {
				if strings.Contains(body, s) {
					t.Errorf("body holds %q", s)
				}
			}
		})
	}
}

func TestErrorPages(t *testing.T) {
	ta := newTestArchive(t)
	h := newServer(ta.arc, Options{})
	cases := []struct {
		target string
		code   int
		reason string
	}{
		{"/runs?page=x", 400, "want a page number"},
		{"/runs?page=0", 400, "want a page number"},
		{"/runs?page=99", 400, "the filter leaves"},
		{"/runs?per=100000", 400, "page size from 1 to 500"},
		{"/runs?sort=password", 400, "unknown column"},
		{"/runs?dir=up", 400, "want asc or desc"},
		{"/runs?gpu=a&gpu=b", 400, "given 2 times"},
		{"/runs?sel=%3Cscript%3E", 400, "not a run id"},
		{"/runs?model=" + strings.Repeat("x", 300), 400, "at most 200"},
		{"/compare?sel=" + ta.bf16, 400, "at least two selected runs"},
		{"/compare?sel=" + ta.bf16 + "&sel=0123456789abcdef", 404, "run 0123456789abcdef is not in the archive"},
		{"/run?id=0123456789abcdef", 404, "is not in the archive"},
		{"/run?id=../../etc/passwd", 400, "not a run id"},
		{"/landscape?ctx=999K", 400, "no measured decode cell at this context"},
		{"/trend?order=random", 400, "want version or date"},
		{"/trend?model=nothing-like-this", 404, "no run matches"},
		{"/nowhere", 404, "no view at /nowhere"},
		{"/static/secret.txt", 404, "no static file"},
	}
	for _, c := range cases {
		t.Run(c.target, func(t *testing.T) {
			code, body, hdr := get(t, h, c.target)
			if code != c.code {
				t.Errorf("status %d, want %d", code, c.code)
			}
			if !strings.Contains(body, c.reason) {
				t.Errorf("body lacks the reason %q:\n%s", c.reason, body)
			}
			if !strings.Contains(hdr.Get("Content-Type"), "text/html") || !strings.Contains(body, "</html>") {
				t.Errorf("not a whole page: %s %q", hdr.Get("Content-Type"), body)
			}
		})
	}
}

func TestPathTraversalRefused(t *testing.T) {
	ta := newTestArchive(t)
	h := newServer(ta.arc, Options{})
	for _, target := range []string{
		"/static/../../etc/passwd",
		"/static/..%2f..%2fetc%2fpasswd",
		"/static/%2e%2e/%2e%2e/etc/passwd",
		"/static/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
		"/static/..%5c..%5cetc%5cpasswd",
		"/static/style.css/../../../etc/passwd",
		"/static/./app.js",
		"/../" + filepath.Base(ta.dir) + "/runs",
		"/static/%252e%252e/etc/passwd",
		"/static/app.js%00",
	} {
		t.Run(target, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			u, err := url.Parse(target) // not req.URL.Parse, which drops dot segments
			if err != nil {
				t.Fatal(err)
			}
			req.URL = u
			req.RequestURI = target
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code < 400 || rec.Code >= 500 {
				t.Errorf("status %d, want a 4xx", rec.Code)
			}
			if strings.Contains(body, "root:") || strings.Contains(body, "use strict") {
				t.Errorf("served a file: %.200s", body)
			}
		})
	}
}

func TestToken(t *testing.T) {
	ta := newTestArchive(t)
	const token = "s3cret-token"
	h := newServer(ta.arc, Options{Token: token})
	cases := []struct {
		name, target string
		hdr          []string
		code         int
	}{
		{"none", "/runs", nil, 401},
		{"none static", "/static/app.js", nil, 401},
		{"none error page", "/nowhere", nil, 401},
		{"wrong bearer", "/runs", []string{"Authorization", "Bearer nope"}, 401},
		{"prefix of the token", "/runs", []string{"Authorization", "Bearer s3cret"}, 401},
		{"wrong query", "/runs?token=nope", nil, 401},
		{"bearer", "/runs", []string{"Authorization", "Bearer " + token}, 200},
		{"bearer static", "/static/app.js", []string{"Authorization", "Bearer " + token}, 200},
		{"cookie", "/landscape", []string{"Cookie", TokenCookie + "=" + token}, 200},
		{"wrong cookie", "/landscape", []string{"Cookie", TokenCookie + "=x"}, 401},
		{"query sets cookie", "/runs?gpu=h200&token=" + token, nil, 303},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, hdr := get(t, h, c.target, c.hdr...)
			if code != c.code {
				t.Errorf("status %d, want %d: %.300s", code, c.code, body)
			}
			if strings.Contains(body, token) {
				t.Errorf("the page shows the token")
			}
			if code == 303 {
				if loc := hdr.Get("Location"); strings.Contains(loc, "token") || !strings.Contains(loc, "gpu=h200") {
					t.Errorf("redirect to %q: want the same view without the token", loc)
				}
				if c := hdr.Get("Set-Cookie"); !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Strict") {
					t.Errorf("cookie %q: want HttpOnly, SameSite=Strict", c)
				}
			}
		})
	}
}

func TestViews(t *testing.T) {
	ta := newTestArchive(t)
	h := newServer(ta.arc, Options{})
	cases := []struct {
		target string
		has    []string
	}{
		{"/compare?sel=" + ta.bf16 + "&sel=" + ta.int4, []string{"delivers 0.756× the decode throughput", "within ±3% (-tolerance)", "<svg ", `class="sm-bar"`, `/static/app.js`}},
		{"/compare?sel=" + ta.int4 + "&sel=" + ta.evil, []string{"&lt;script&gt;alert"}},
		{"/landscape", []string{`<svg id="landscape"`, `<a href="/run?id=`, "<title>", "tok/s per GPU"}},
		{"/landscape?gpu=RTX&ctx=8K", []string{"per GPU at", "2× RTX PRO", `<option selected>8K</option>`}},
		{"/trend", []string{"/trend?gpu="}},
		{"/trend?gpu=RTX", []string{"0.31.0", "<svg "}},
		{"/run?id=" + ta.bf16, []string{"H200", "decode", "Cells"}},
	}
	for _, c := range cases {
		t.Run(c.target, func(t *testing.T) {
			code, body, _ := get(t, h, c.target)
			if code != 200 {
				t.Fatalf("status %d: %.400s", code, body)
			}
			for _, s := range c.has {
				if !strings.Contains(body, s) {
					t.Errorf("body lacks %q", s)
				}
			}
			if strings.Contains(body, `<script>alert`) {
				t.Errorf("a run title's markup is in the page unescaped")
			}
		})
	}
}

// TestArchiveChangesUnderneath drops a run after the listing was cached:
// the next page reads the new snapshot and the dropped run is a 404
// with the reason, not a 500.
func TestArchiveChangesUnderneath(t *testing.T) {
	ta := newTestArchive(t)
	h := newServer(ta.arc, Options{})
	if code, _, _ := get(t, h, "/runs"); code != 200 {
		t.Fatal(code)
	}
	other, err := archive.Open(ta.dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Drop(context.Background(), []string{ta.evil}); err != nil {
		t.Fatal(err)
	}
	code, body, _ := get(t, h, "/compare?sel="+ta.int4+"&sel="+ta.evil)
	if code != 404 || !strings.Contains(body, "run "+ta.evil+" is not in the archive") {
		t.Errorf("status %d: %.400s", code, body)
	}
	_, body, _ = get(t, h, "/runs")
	if n := len(rowsOf(body)); n != ta.n-1 {
		t.Errorf("%d rows after the drop, want %d", n, ta.n-1)
	}
}

// TestDamagedFileNamed puts a file that is not Parquet among the runs:
// the page names it and lists the other runs.
func TestDamagedFileNamed(t *testing.T) {
	ta := newTestArchive(t)
	bad := filepath.Join(ta.dir, "runs", "part-20260101T000000Z-host-1-00000000.parquet")
	if err := os.WriteFile(bad, []byte("not parquet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newServer(ta.arc, Options{})
	code, body, _ := get(t, h, "/runs")
	if code != 200 {
		t.Fatalf("status %d: %.400s", code, body)
	}
	if !strings.Contains(body, "Damaged archive files") || !strings.Contains(body, filepath.Base(bad)) {
		t.Errorf("the page does not name the damaged file")
	}
	if n := len(rowsOf(body)); n != ta.n {
		t.Errorf("%d rows, want %d", n, ta.n)
	}
}
