package runcmd

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	"speedmatrix/runner/sim"
)

// simBehind starts the default simulator behind a proxy that lets
// intercept answer a request first (it returns true when it did), and
// returns the proxy's URL. Both stop with the test.
func simBehind(t *testing.T, intercept func(w http.ResponseWriter, r *http.Request, body []byte) bool) string {
	t.Helper()
	srv, simURL, err := sim.Listen(sim.DefaultProfile(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	target, _ := url.Parse(simURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !intercept(w, r, body) {
			proxy.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(front.Close)
	return front.URL
}
