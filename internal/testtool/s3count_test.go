package testtool

import (
	"net/http/httptest"
	"testing"
)

func TestRequestCounter(t *testing.T) {
	var c RequestCounter
	for _, u := range []string{"GET /b/k", "GET /b?list-type=2", "PUT /b/k", "GET /b/j"} {
		var m, p string
		for i := range u {
			if u[i] == ' ' {
				m, p = u[:i], u[i+1:]
				break
			}
		}
		c.Count(httptest.NewRequest(m, p, nil))
	}
	if got, want := c.Take(), "4 (GET=2 LIST=1 PUT=1)"; got != want {
		t.Errorf("Take() = %q, want %q", got, want)
	}
	if got, want := c.Take(), "0 ()"; got != want {
		t.Errorf("second Take() = %q, want %q", got, want)
	}
}
