package runner

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRequestIDsNameEveryRequest runs a small matrix and checks that every
// completion request carried an X-Request-Id with the client's prefix, no
// id twice, and that decode requests name their cell, so that a request
// can be matched to its cell and to an engine's log line.
func TestRequestIDsNameEveryRequest(t *testing.T) {
	var (
		mu  sync.Mutex
		ids []string
	)
	_, c := startFaulty(t, fastProfile(), func(f *faulty, w http.ResponseWriter, r *http.Request) bool {
		if isGenerate(r) {
			mu.Lock()
			ids = append(ids, r.Header.Get(RequestIDHeader))
			mu.Unlock()
		}
		return false
	})
	cfg := testConfig()
	cfg.Contexts, cfg.Concurrency, cfg.Duration, cfg.MaxTokens = []int64{1024}, []int{1, 3}, 300*time.Millisecond, 50
	m := runMatrix(t, c, cfg)
	if len(m.Measurements) == 0 {
		t.Fatal("no cells")
	}
	prefix := c.RequestIDPrefix()
	if !regexp.MustCompile(`^sm-[0-9a-f]{8}-$`).MatchString(prefix) {
		t.Fatalf("prefix %q", prefix)
	}
	mu.Lock()
	defer mu.Unlock()
	seen := map[string]bool{}
	perLabel := map[string]int{}
	form := regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `(probe|decode-1K-c1|decode-1K-c3)-\d+$`)
	for _, id := range ids {
		g := form.FindStringSubmatch(id)
		if g == nil {
			t.Errorf("request id %q: want %s<probe|decode-1K-c1|decode-1K-c3>-<n>", id, prefix)
			continue
		}
		if seen[id] {
			t.Errorf("request id %q sent twice", id)
		}
		seen[id] = true
		perLabel[g[1]]++
	}
	// Every decode cell sent at least C requests; probes calibrated the
	// prompt and measured prefill.
	if perLabel["decode-1K-c1"] < 1 || perLabel["decode-1K-c3"] < 3 || perLabel["probe"] < 1 {
		t.Errorf("requests per label %v", perLabel)
	}
	// A second client never shares the prefix.
	if c2, err := NewClient(ClientConfig{URL: "http://127.0.0.1:1"}); err != nil || c2.RequestIDPrefix() == prefix || !strings.HasPrefix(c2.RequestIDPrefix(), "sm-") {
		t.Errorf("second client prefix %q (err %v), first %q", c2.RequestIDPrefix(), err, prefix)
	}
}
