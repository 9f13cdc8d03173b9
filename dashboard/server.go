package dashboard

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"speedmatrix/archive"
)

//go:embed assets/*.html assets/static/*
var assets embed.FS

// templates are the views' templates, parsed once.
var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"date":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") },
	"short": short,
	"add":   func(a, b int) int { return a + b },
	"half":  func(a int) int { return a / 2 },
	// css marks a palette colour (never user data) as safe CSS.
	"css": func(c string) template.CSS { return template.CSS(c) },
}).ParseFS(assets, "assets/*.html"))

// staticTypes are the embedded files /static/ serves, by exact name,
// with their content types: nothing else is ever served from disk or
// from the embedded tree.
var staticTypes = map[string]string{
	"style.css": "text/css; charset=utf-8",
	"app.js":    "text/javascript; charset=utf-8",
}

// TokenCookie is the cookie that carries the token after the first
// request gave it as ?token=.
const TokenCookie = "speedmatrix_token"

// csp lets a page load only the server's own script and stylesheet,
// inline styles and SVG (the report's page carries both), and the font
// as a data URL: no network access beyond the server itself.
const csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src data:; connect-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Options configure a Server.
type Options struct {
	// Token, when set, must come with every request: as ?token= (then
	// kept in an HttpOnly cookie) or as "Authorization: Bearer TOKEN".
	Token string
	// Recheck is how long the archive's state, once checked
	// (Source.Refresh), is trusted before a request checks it again:
	// 0 checks on every request.
	Recheck time.Duration
}

// Server is the dashboard's http.Handler over one archive. It is safe
// for concurrent use.
type Server struct {
	src     Source
	token   []byte
	recheck time.Duration
	mux     *http.ServeMux
	cache   listingCache

	damageMu sync.Mutex
	damaged  map[string]string // path → what is wrong, from archive.OnDamaged
}

// New returns the dashboard over src. For a directory archive, set its
// SkipDamaged and make Damaged its OnDamaged, so that a damaged file is
// left out and named on every page (a table has no damaged batches: a
// commit is whole or absent).
func New(src Source, opt Options) *Server {
	s := &Server{src: src, token: []byte(opt.Token), recheck: opt.Recheck, mux: http.NewServeMux(), damaged: map[string]string{}}
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/runs", http.StatusSeeOther)
	})
	s.mux.Handle("GET /runs", s.view(s.runs))
	s.mux.Handle("GET /run", s.view(s.run))
	s.mux.Handle("GET /compare", s.view(s.compare))
	s.mux.Handle("GET /landscape", s.view(s.landscape))
	s.mux.Handle("GET /trend", s.view(s.trend))
	s.mux.HandleFunc("GET /static/{name}", s.static)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			s.fail(w, &pageError{http.StatusMethodNotAllowed, r.Method + ": the dashboard is read-only (GET only)"})
			return
		}
		s.fail(w, notFound("no view at %s: the views are /runs, /compare, /landscape, /trend and /run", r.URL.Path))
	})
	return s
}

// Warm reads the archive's run listing now, so that the first page a
// reader asks for answers from the cache (serve calls it before it
// listens: a 100,000-run archive's listing takes seconds to read).
func (s *Server) Warm(ctx context.Context) error {
	_, err := s.get(ctx)
	return err
}

// Damaged records a damaged file of a directory archive (its
// OnDamaged): every page names it.
func (s *Server) Damaged(d archive.Damage) {
	s.damageMu.Lock()
	defer s.damageMu.Unlock()
	s.damaged[d.Path] = fmt.Sprintf("%s file %s (batch %s): %v", d.Table, d.Path, d.Stem, d.Err)
}

// ServeHTTP checks the path and the token, then routes the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if reason := badPath(r); reason != "" {
		s.fail(w, badRequest("path refused: %s", reason))
		return
	}
	if len(s.token) > 0 && !s.authorized(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// badPath says why a request's path is refused before routing: any ".."
// segment, backslash, NUL, or encoded slash, backslash or dot (which a
// router could decode into a traversal), "" when it is fine.
func badPath(r *http.Request) string {
	raw := r.URL.EscapedPath()
	low := strings.ToLower(raw)
	for _, bad := range []string{"%2f", "%5c", "%2e", "%00", "\\"} {
		if strings.Contains(low, bad) {
			return fmt.Sprintf("%q holds an encoded slash, backslash, dot or NUL", raw)
		}
	}
	p := r.URL.Path
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." || seg == "." {
			return fmt.Sprintf("%q holds a %q segment", raw, seg)
		}
	}
	if path.Clean(p) != p && p != "/" && !strings.HasSuffix(p, "/") {
		return fmt.Sprintf("%q is not a clean path", raw)
	}
	return ""
}

// authorized checks the request's token (constant-time), answering 401
// when it is missing or wrong. A right ?token= sets the cookie and
// redirects to the same URL without it, so the token does not stay in
// the address bar, the history or a shared link.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if q := r.URL.Query(); q.Has("token") {
		if !s.tokenOK(q.Get("token")) {
			s.fail(w, &pageError{http.StatusUnauthorized, "wrong token: this dashboard needs the token its serve command was started with"})
			return false
		}
		http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: q.Get("token"), Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return false
	}
	var given string
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
		given = strings.TrimPrefix(a, "Bearer ")
	} else if c, err := r.Cookie(TokenCookie); err == nil {
		given = c.Value
	}
	if given == "" || !s.tokenOK(given) {
		s.fail(w, &pageError{http.StatusUnauthorized, "token required: open the dashboard with ?token=TOKEN (the token its serve command was started with) or send Authorization: Bearer TOKEN"})
		return false
	}
	return true
}

// tokenOK compares a given token with the server's in constant time.
func (s *Server) tokenOK(given string) bool {
	return subtle.ConstantTimeCompare([]byte(given), s.token) == 1
}

// static serves an embedded asset by exact name.
func (s *Server) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	ct, ok := staticTypes[name]
	if !ok {
		s.fail(w, notFound("no static file %q", name))
		return
	}
	b, err := fs.ReadFile(assets, "assets/static/"+name)
	if err != nil {
		s.fail(w, notFound("no static file %q", name))
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Write(b)
}

// layout is what every view's page holds around its body.
type layout struct {
	Title   string
	Active  string // the nav entry of this view
	Damaged []string
	Nav     url.Values // the Runs filters and selection, kept across views
	Body    any
	Status  int
	Error   string
}

// NavQuery is the query string the nav links carry.
func (l *layout) NavQuery() string {
	if len(l.Nav) == 0 {
		return ""
	}
	return "?" + l.Nav.Encode()
}

// viewFunc builds a view: the template to run and its layout, or an
// error the page states.
type viewFunc func(r *http.Request) (tmpl string, l *layout, err error)

// view runs a viewFunc and writes its page, or the error page.
func (s *Server) view(f viewFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tmpl, l, err := f(r)
		if err != nil {
			s.fail(w, err)
			return
		}
		l.Damaged = s.damages()
		if tmpl == "" { // a report page, already rendered
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(l.Body.([]byte))
			return
		}
		s.write(w, http.StatusOK, tmpl, l)
	})
}

// write renders tmpl into a buffer first, so a template error is a
// page, not half a page.
func (s *Server) write(w http.ResponseWriter, status int, tmpl string, l *layout) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, tmpl, l); err != nil {
		status = http.StatusServiceUnavailable
		buf.Reset()
		templates.ExecuteTemplate(&buf, "error.html", &layout{Title: "Error", Status: status, Error: "rendering the page failed: " + err.Error()})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// fail writes the error page for err: its status and reason.
func (s *Server) fail(w http.ResponseWriter, err error) {
	var pe *pageError
	if !errors.As(err, &pe) {
		pe = archiveError(s.src.String(), err).(*pageError)
	}
	s.write(w, pe.Status, "error.html", &layout{Title: http.StatusText(pe.Status), Status: pe.Status, Error: pe.Reason, Damaged: s.damages()})
}

// damages lists the damaged files seen so far, sorted.
func (s *Server) damages() []string {
	s.damageMu.Lock()
	defer s.damageMu.Unlock()
	out := make([]string, 0, len(s.damaged))
	for _, d := range s.damaged {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
