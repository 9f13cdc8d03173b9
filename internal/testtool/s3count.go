package testtool

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// RequestCounter counts the S3 requests a proxy in front of a store
// passes, by operation (the HTTP method; LIST for a GET that lists), for
// the benchmarks that report the requests each operation makes.
type RequestCounter struct {
	mu sync.Mutex
	n  map[string]int
}

// Count counts r.
func (c *RequestCounter) Count(r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	op := r.Method
	if r.Method == http.MethodGet && r.URL.Query().Has("list-type") {
		op = "LIST"
	}
	c.n[op]++
}

// Take returns the count since the last Take, "TOTAL (OP=N …)", and
// starts again from zero.
func (c *RequestCounter) Take() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	total := 0
	for k, v := range c.n {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
		total += v
	}
	sort.Strings(parts)
	c.n = map[string]int{}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, " "))
}
