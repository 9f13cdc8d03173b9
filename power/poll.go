package power

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// pollMeter takes a reading every interval, each bounded by
// Timeouts.Request, until Close or until the context it started with
// ends. A failed reading is kept as the meter's last error (a window
// whose edges it leaves without readings reports it) and sampling goes
// on.
type pollMeter struct {
	s      *series
	wait   time.Duration
	cancel context.CancelFunc
	done   chan struct{}
}

// startPoll takes a first reading (Start fails when the source does not
// answer), then samples in the background.
func startPoll(ctx context.Context, interval time.Duration, t Timeouts, read func(context.Context) (Reading, error)) (*pollMeter, error) {
	t = t.withDefaults()
	once := func(ctx context.Context) (Reading, error) {
		rctx, cancel := context.WithTimeout(ctx, t.Request)
		defer cancel()
		return read(rctx)
	}
	first, err := once(ctx)
	if err != nil {
		return nil, err
	}
	mctx, cancel := context.WithCancel(ctx)
	m := &pollMeter{s: newSeries(interval), wait: t.Wait, cancel: cancel, done: make(chan struct{})}
	m.s.add(first)
	go func() {
		defer close(m.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-mctx.Done():
				m.s.stop(nil)
				return
			case <-tick.C:
			}
			r, err := once(mctx)
			switch {
			case mctx.Err() != nil:
			case err != nil:
				m.s.fail(err)
			default:
				m.s.add(r)
			}
		}
	}()
	return m, nil
}

func (m *pollMeter) Window(ctx context.Context, from, to time.Time) (Energy, error) {
	return m.s.window(ctx, from, to, m.wait)
}

func (m *pollMeter) Close() error {
	m.cancel()
	<-m.done
	return nil
}

// getBody fetches u with ctx's bound and returns its body (at most 16
// MiB), failing on a status other than 200.
func getBody(ctx context.Context, client *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := readLimited(resp.Body, 16<<20)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", displayURL(u), err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", displayURL(u), resp.StatusCode)
	}
	return b, nil
}

// displayURL is u without its user information (a name or password in
// the URL is never written into a run).
func displayURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "<unparsable URL>"
	}
	p.User = nil
	return p.String()
}
