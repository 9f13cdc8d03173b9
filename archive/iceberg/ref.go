package iceberg

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
)

// Catalog kinds a reference names.
const (
	// KindSQLite is the SQL catalog in one SQLite file (pure Go driver).
	KindSQLite = "sqlite"
	// KindPostgres is the SQL catalog in a PostgreSQL database.
	KindPostgres = "postgres"
	// KindREST is an Iceberg REST catalog (Polaris, Nessie, Unity, Glue,
	// S3 Tables, Lakekeeper…).
	KindREST = "rest"
)

// Prefix starts every table reference; anything else given where a
// reference or an archive directory is accepted is a directory.
const Prefix = "iceberg+"

// DefaultNamespace is the namespace of a reference without a #fragment.
const DefaultNamespace = "speedmatrix"

// Ref is a parsed table reference: which catalog holds the namespace of
// the three tables, where their files go, and the namespace.
//
//	iceberg+sqlite:///var/lib/speedmatrix/catalog.db?warehouse=file:///var/lib/speedmatrix/warehouse#speedmatrix
//	iceberg+sqlite:catalog.db                                   (relative path; warehouse beside it)
//	iceberg+postgres://bench@db.lan:5432/iceberg?sslmode=require&warehouse=s3://bench/speedmatrix#speedmatrix
//	iceberg+rest://polaris.lan:8181/api/catalog?warehouse=bench#speedmatrix
//	iceberg+rest+http://127.0.0.1:8181?warehouse=s3://bench/wh (plain HTTP)
//
// Credentials are never part of a reference's stored form: PostgreSQL
// takes its password from PGPASSWORD or ~/.pgpass (a password in the URL
// is accepted but never printed), S3 from the standard AWS chain
// (AWS_ACCESS_KEY_ID…, a profile, an instance role), a REST catalog from
// ICEBERG_REST_TOKEN or ICEBERG_REST_CREDENTIAL (client_id:secret).
type Ref struct {
	// Kind is KindSQLite, KindPostgres or KindREST.
	Kind string
	// Path is the SQLite database file (KindSQLite).
	Path string
	// DSN is the PostgreSQL connection URL (KindPostgres) or the REST
	// catalog's base URL (KindREST), userinfo included: never print it,
	// print Ref.String.
	DSN string
	// Warehouse is where table files go: file:///path, s3://bucket/prefix,
	// or a REST catalog's warehouse name.
	Warehouse string
	// S3Endpoint and S3Region are the s3.endpoint and s3.region query
	// parameters (else AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL and
	// AWS_REGION apply).
	S3Endpoint, S3Region string
	// Namespace holds the runs, measurements and samples tables.
	Namespace string

	text string // the reference, userinfo redacted
}

// String returns the reference as given, with any userinfo redacted.
func (r Ref) String() string { return r.text }

// IsRef reports whether s is a table reference (starts with Prefix)
// rather than a directory.
func IsRef(s string) bool { return strings.HasPrefix(s, Prefix) }

var namespaceRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseRef parses a table reference (see Ref). Errors are one line and
// never hold userinfo.
func ParseRef(s string) (Ref, error) {
	shown := Redact(s)
	fail := func(format string, a ...any) (Ref, error) {
		return Ref{}, fmt.Errorf("table reference %q: %s", shown, fmt.Sprintf(format, a...))
	}
	if !IsRef(s) {
		return fail("does not start with %q (e.g. iceberg+sqlite:///path/catalog.db)", Prefix)
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fail("not a URL: %v", err)
	}
	r := Ref{text: shown, Namespace: DefaultNamespace}
	if u.Fragment != "" {
		r.Namespace = u.Fragment
	}
	if !namespaceRE.MatchString(r.Namespace) {
		return fail("namespace %q after # is not a plain identifier (letters, digits, _)", r.Namespace)
	}
	q := u.Query()
	take := func(k string) string {
		v := q.Get(k)
		q.Del(k)
		return v
	}
	r.Warehouse = take("warehouse")
	r.S3Endpoint = take("s3.endpoint")
	r.S3Region = take("s3.region")
	if wu, err := url.Parse(r.Warehouse); r.Warehouse != "" && (err != nil || wu.User != nil) {
		return fail("warehouse must be a URL without credentials (file:///path or s3://bucket/prefix)")
	}
	if eu, err := url.Parse(r.S3Endpoint); r.S3Endpoint != "" && (err != nil || eu.User != nil || eu.Host == "") {
		return fail("s3.endpoint must be a URL without credentials, e.g. http://127.0.0.1:7070")
	}
	switch kind := strings.TrimPrefix(u.Scheme, Prefix); kind {
	case KindSQLite:
		if u.User != nil || u.Host != "" {
			return fail("a SQLite catalog is a local file: iceberg+sqlite:///abs/path.db or iceberg+sqlite:rel/path.db")
		}
		path := u.Path
		if u.Opaque != "" {
			path = u.Opaque
		}
		if path == "" {
			return fail("no catalog file (iceberg+sqlite:///path/catalog.db)")
		}
		if len(q) > 0 {
			return fail("unknown parameter %q (known: warehouse, s3.endpoint, s3.region)", firstKey(q))
		}
		r.Kind, r.Path = KindSQLite, filepath.Clean(path)
		if r.Warehouse == "" {
			abs, err := filepath.Abs(filepath.Join(filepath.Dir(r.Path), "warehouse"))
			if err != nil {
				return fail("%v", err)
			}
			r.Warehouse = "file://" + filepath.ToSlash(abs)
		}
	case KindPostgres:
		if u.Host == "" || strings.Trim(u.Path, "/") == "" {
			return fail("a PostgreSQL catalog needs a host and a database: iceberg+postgres://host:5432/db?warehouse=s3://bucket/prefix")
		}
		if r.Warehouse == "" {
			return fail("a PostgreSQL catalog needs ?warehouse=s3://bucket/prefix (or file:///shared/path)")
		}
		d := *u
		d.Scheme, d.Fragment, d.RawFragment = "postgres", "", ""
		d.RawQuery = q.Encode() // libpq parameters (sslmode, …) go to the driver
		r.Kind, r.DSN = KindPostgres, d.String()
	case KindREST, KindREST + "+http":
		if u.Host == "" {
			return fail("a REST catalog needs a host: iceberg+rest://host:8181/prefix")
		}
		if u.User != nil {
			return fail("put REST catalog credentials in ICEBERG_REST_TOKEN or ICEBERG_REST_CREDENTIAL, not in the URL")
		}
		if len(q) > 0 {
			return fail("unknown parameter %q (known: warehouse, s3.endpoint, s3.region)", firstKey(q))
		}
		d := *u
		d.Scheme, d.Fragment, d.RawFragment, d.RawQuery = "https", "", "", ""
		if kind == KindREST+"+http" {
			d.Scheme = "http"
		}
		r.Kind, r.DSN = KindREST, d.String()
	default:
		return fail("unknown catalog %q (known: iceberg+sqlite, iceberg+postgres, iceberg+rest, iceberg+rest+http)", kind)
	}
	if !strings.HasPrefix(r.Warehouse, "file://") && !strings.HasPrefix(r.Warehouse, "s3://") && r.Kind != KindREST {
		return fail("warehouse %q is neither file:///path nor s3://bucket/prefix", r.Warehouse)
	}
	return r, nil
}

func firstKey(q url.Values) string {
	for k := range q {
		return k
	}
	return ""
}

// userinfoRE finds the userinfo of URLs in free text (scheme://user:pw@).
var userinfoRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)[^/@\s"']*@`)

// passwordParamRE finds password-like query parameters.
var passwordParamRE = regexp.MustCompile(`(?i)((?:password|passwd|secret|token|credential)[A-Za-z_.\-]*=)[^&\s"'#]*`)

// Redact returns s with the userinfo of every URL in it replaced by
// "REDACTED@" and password-like query parameters emptied, for messages.
func Redact(s string) string {
	s = userinfoRE.ReplaceAllString(s, "${1}REDACTED@")
	return passwordParamRE.ReplaceAllString(s, "${1}REDACTED")
}
