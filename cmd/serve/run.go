package servecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"speedmatrix/archive/store"
	"speedmatrix/dashboard"
	"speedmatrix/internal/archivepath"
	"speedmatrix/internal/cliflag"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// options are the parsed flags.
type options struct {
	archive, addr, token string
	open                 bool
}

// usageError is a bad command line: exit status 2.
type usageError struct{ msg string }

// Error implements error.
func (e usageError) Error() string { return e.msg }

func parseFlags(args []string, stdout, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.archive, "archive", "", "archive `DIR` or table reference (iceberg+…) to serve, read-only (default $"+archivepath.EnvVar+", else ./archive when it exists)")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen on `host:port` (a non-loopback host needs -token or -open)")
	fs.StringVar(&o.token, "token", "", "require this `token` on every request (?token= once, then a cookie; or Authorization: Bearer)")
	fs.BoolVar(&o.open, "open", false, "serve a non-loopback address without a token: anyone who reaches it reads the archive")
	if err := cliflag.Parse(fs, args, help, stdout); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, usageError{fmt.Sprintf("unexpected argument %q: serve takes flags only", fs.Arg(0))}
	case o.token != "" && o.open:
		return nil, usageError{"-token and -open do not go together: -open serves without a token"}
	}
	where := archivepath.Resolve(o.archive)
	if err := where.ForRead(); err != nil {
		return nil, usageError{err.Error()}
	}
	o.archive = where.Path
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return nil, usageError{fmt.Sprintf("-addr %q: %v", o.addr, err)}
	}
	if !loopback(host) && o.token == "" && !o.open {
		return nil, usageError{fmt.Sprintf("-addr %s is not a loopback address: give -token T (checked on every request) or -open (anyone who reaches it reads the archive)", o.addr)}
	}
	return o, nil
}

// loopback reports whether host names only the loopback interface. An
// empty host or 0.0.0.0 listens on every interface: not loopback.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stdout, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(stderr, "serve:", ue.msg)
			fmt.Fprintln(stderr, "speedmatrix serve -h prints every flag")
		}
		return exitUsage
	}
	if err := serve(ctx, o, stdout); err != nil {
		fmt.Fprintln(stderr, "serve:", err)
		return exitFail
	}
	return exitOK
}

// tableRecheck is how long serve trusts a table's state before checking
// the catalog again.
//
// Note: a check loads the three tables' metadata (three catalog calls,
// three metadata files that grow with the snapshot history); per request
// that is a round trip to a remote catalog on every page. A new run takes
// minutes to measure, so seeing it within 5 s is soon enough. A directory
// is checked on every request: a readlink and a stat.
const tableRecheck = 5 * time.Second

// open opens the archive o names (a directory or a table, store.Open)
// and the dashboard over it; close releases the archive.
func open(ctx context.Context, o *options) (h http.Handler, name string, close func() error, err error) {
	st, err := store.Open(ctx, o.archive, store.Options{})
	if err != nil {
		return nil, "", nil, err
	}
	opt := dashboard.Options{Token: o.token}
	if store.Table(st) != nil {
		opt.Recheck = tableRecheck
	}
	srv := dashboard.New(st, opt)
	if d := store.Dir(st); d != nil {
		d.LockTimeout = 10 * time.Second
		d.SkipDamaged, d.OnDamaged = true, srv.Damaged
	}
	// Note: the listing is read before serve listens, so the first page
	// answers from the cache: at 100,000 runs its read takes seconds
	// (docs/serve.md), which a reader would otherwise wait on the first
	// page; the damaged-file notices it records show on every page.
	if err := srv.Warm(ctx); err != nil {
		st.Close()
		return nil, "", nil, err
	}
	return srv, st.String(), st.Close, nil
}

// serve opens the archive, listens and serves until ctx ends.
func serve(ctx context.Context, o *options, stdout io.Writer) error {
	h, name, closeArchive, err := open(ctx, o)
	if err != nil {
		return err
	}
	defer closeArchive()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
	}
	url := "http://" + ln.Addr().String() + "/runs"
	switch {
	case o.token != "":
		fmt.Fprintf(stdout, "serve: archive %s on %s (a token is required on every request: open %s?token=… with the token you gave)\n", name, url, url)
	case o.open:
		fmt.Fprintf(stdout, "serve: archive %s on %s, OPEN: no token, anyone who can reach this address can read the archive\n", name, url)
	default:
		fmt.Fprintf(stdout, "serve: archive %s on %s (loopback only)\n", name, url)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}
