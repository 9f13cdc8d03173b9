package iceberg

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Ref // Kind, Path, DSN, Warehouse, Namespace compared
		err  string
	}{
		{in: "iceberg+sqlite:///var/sm/catalog.db?warehouse=file:///var/sm/wh#bench",
			want: Ref{Kind: KindSQLite, Path: "/var/sm/catalog.db", Warehouse: "file:///var/sm/wh", Namespace: "bench"}},
		{in: "iceberg+sqlite:///var/sm/catalog.db",
			want: Ref{Kind: KindSQLite, Path: "/var/sm/catalog.db", Warehouse: "file:///var/sm/warehouse", Namespace: DefaultNamespace}},
		{in: "iceberg+postgres://bench:hunter2@db.lan:5432/iceberg?sslmode=require&warehouse=s3://bucket/prefix#speedmatrix",
			want: Ref{Kind: KindPostgres, DSN: "postgres://bench:hunter2@db.lan:5432/iceberg?sslmode=require",
				Warehouse: "s3://bucket/prefix", Namespace: "speedmatrix"}},
		{in: "iceberg+rest://polaris.lan:8181/api/catalog?warehouse=bench",
			want: Ref{Kind: KindREST, DSN: "https://polaris.lan:8181/api/catalog", Warehouse: "bench", Namespace: DefaultNamespace}},
		{in: "iceberg+rest+http://127.0.0.1:8181?warehouse=s3://b/w",
			want: Ref{Kind: KindREST, DSN: "http://127.0.0.1:8181", Warehouse: "s3://b/w", Namespace: DefaultNamespace}},
		{in: "archive", err: `does not start with "iceberg+"`},
		{in: "iceberg+mysql://h/db?warehouse=s3://b", err: `unknown catalog "mysql"`},
		{in: "iceberg+postgres://h/db", err: "needs ?warehouse="},
		{in: "iceberg+postgres:///db?warehouse=s3://b", err: "needs a host and a database"},
		{in: "iceberg+postgres://u:pw@h/db?warehouse=s3://k:s@b/p", err: "warehouse must be a URL without credentials"},
		{in: "iceberg+sqlite://host/x.db", err: "a SQLite catalog is a local file"},
		{in: "iceberg+sqlite:///x.db?color=red", err: `unknown parameter "color"`},
		{in: "iceberg+sqlite:///x.db#bad-name", err: "not a plain identifier"},
		{in: "iceberg+sqlite:///x.db?warehouse=gs://b", err: "neither file:///path nor s3://"},
		{in: "iceberg+rest://tok:secret@h/", err: "ICEBERG_REST_TOKEN"},
		{in: "iceberg+postgres://u:pw@h:bad/db?warehouse=s3://b", err: "not a URL"},
	} {
		got, err := ParseRef(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseRef(%q) = %v, want error containing %q", c.in, err, c.err)
			}
			if err != nil && (strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "\n")) {
				t.Errorf("ParseRef(%q): error %q shows a credential or is not one line", c.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRef(%q): %v", c.in, err)
			continue
		}
		got.text = ""
		got.S3Endpoint, got.S3Region = "", ""
		if got != c.want {
			t.Errorf("ParseRef(%q) =\n %+v, want\n %+v", c.in, got, c.want)
		}
	}
	r, err := ParseRef("iceberg+postgres://bench:hunter2@db.lan/iceberg?warehouse=s3://b/p")
	if err != nil {
		t.Fatal(err)
	}
	if s := r.String(); strings.Contains(s, "hunter2") || strings.Contains(s, "bench@") {
		t.Errorf("String() = %q shows the userinfo", s)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"dial postgres://u:pw@h:5/db failed":  "dial postgres://REDACTED@h:5/db failed",
		"host=h password=pw1 user=u":          "host=h password=REDACTED user=u",
		"GET http://a/b?X-Amz-Credential=abc": "GET http://a/b?X-Amz-Credential=REDACTED",
		"s3://bucket/prefix":                  "s3://bucket/prefix",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{
		"iceberg+sqlite:///var/sm/catalog.db?warehouse=file:///var/sm/wh#bench",
		"iceberg+postgres://bench:hunter2@db.lan:5432/iceberg?sslmode=require&warehouse=s3://bucket/prefix",
		"iceberg+rest://polaris.lan:8181/api/catalog?warehouse=bench",
		"iceberg+sqlite:rel.db",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if r.Kind == "" || r.Namespace == "" || r.Warehouse == "" {
			t.Fatalf("ParseRef(%q) = %+v: incomplete", s, r)
		}
		if strings.Contains(r.String(), "@") && !strings.Contains(r.String(), "REDACTED@") {
			t.Fatalf("String() %q shows userinfo", r.String())
		}
	})
}

// TestCreateRace: the errors PostgreSQL gives the loser of two first
// opens that create the catalog's tables at once are retried; others
// are not.
func TestCreateRace(t *testing.T) {
	for _, c := range []struct {
		msg  string
		race bool
	}{
		{`ERROR: relation "iceberg_namespace_properties" already exists (SQLSTATE 42P07)`, true},
		{`ERROR: duplicate key value violates unique constraint "pg_type_typname_nsp_index" (SQLSTATE 23505)`, true},
		{`ERROR: duplicate key value violates unique constraint "iceberg_tables_pkey" (SQLSTATE 23505)`, false},
		{`ERROR: password authentication failed for user "bench" (SQLSTATE 28P01)`, false},
	} {
		if got := createRace(errors.New(c.msg)); got != c.race {
			t.Errorf("createRace(%q) = %v, want %v", c.msg, got, c.race)
		}
	}
}
