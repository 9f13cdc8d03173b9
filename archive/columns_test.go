package archive

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"speedmatrix/internal/testtool"
	"speedmatrix/schema"
)

// fill sets every field of v (a struct) to a value derived from seed:
// pointers non-nil, lists of two elements, times at microsecond
// precision. Fields added to schema/types.go are covered without editing
// the test.
func fill(t testing.TB, v reflect.Value, seed int) {
	t.Helper()
	for i := 0; i < v.NumField(); i++ {
		fillValue(t, v.Field(i), v.Type().Field(i).Name, seed+i)
	}
}

func fillValue(t testing.TB, f reflect.Value, name string, seed int) {
	t.Helper()
	if f.Type() == timeType {
		f.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(seed) * time.Microsecond)))
		return
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(fmt.Sprintf("%s-%d ünïcode", name, seed))
	case reflect.Int32, reflect.Int64:
		f.SetInt(int64(seed*1000 + 7))
	case reflect.Float64:
		f.SetFloat(float64(seed) + 0.25)
	case reflect.Bool:
		f.SetBool(seed%2 == 0)
	case reflect.Pointer:
		p := reflect.New(f.Type().Elem())
		fillValue(t, p.Elem(), name, seed)
		f.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(f.Type(), 2, 2)
		for k := 0; k < 2; k++ {
			fill(t, s.Index(k), seed*10+k)
		}
		f.Set(s)
	case reflect.Struct:
		fill(t, f, seed)
	default:
		t.Fatalf("fill: field %s has unsupported kind %s", name, f.Kind())
	}
}

// filled returns a T with every field set.
func filled[T any](t testing.TB, seed int) T {
	var x T
	fill(t, reflect.ValueOf(&x).Elem(), seed)
	return x
}

// roundTrip writes rows to a file and reads them back.
func roundTrip[T Row](t *testing.T, rows []T) []T {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(f, rows); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile[T](p)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func checkRoundTrip[T Row](t *testing.T, rows []T) {
	t.Helper()
	got := roundTrip(t, rows)
	if len(rows) == 0 && len(got) == 0 {
		return
	}
	if !reflect.DeepEqual(got, rows) {
		for i := range rows {
			if i < len(got) && !reflect.DeepEqual(got[i], rows[i]) {
				t.Fatalf("row %d:\n got %+v\nwant %+v", i, got[i], rows[i])
			}
		}
		t.Fatalf("got %d rows, want %d", len(got), len(rows))
	}
}

func TestRoundTrip(t *testing.T) {
	inf := filled[schema.Measurement](t, 3)
	inf.TotalTokS = schema.F64(math.Inf(1))
	inf.RequestRate = schema.F64(math.Inf(1))
	inf.TTFTMs = schema.F64(math.Inf(-1))
	inf.Extra = []schema.Metric{{Name: "p99.9_ttft_ms", Value: math.Inf(1)}}
	emptyLists := filled[schema.Run](t, 4)
	emptyLists.LaunchFlags = []schema.KV{}
	emptyLists.Metadata = []schema.Field{}
	ns := filled[schema.Run](t, 5)
	ns.IngestedAt = time.Date(2026, 12, 2, 15, 4, 5, 123456789, time.UTC)
	nsWant := ns
	nsWant.IngestedAt = ns.IngestedAt.Truncate(time.Microsecond)
	zone := filled[schema.Run](t, 6)
	zone.IngestedAt = time.Date(2026, 12, 2, 17, 0, 0, 0, time.FixedZone("CET", 3600))
	zoneWant := zone
	zoneWant.IngestedAt = zone.IngestedAt.UTC()

	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"runs/every field set", func(t *testing.T) {
			checkRoundTrip(t, []schema.Run{filled[schema.Run](t, 1), filled[schema.Run](t, 2)})
		}},
		{"runs/every field zero or null", func(t *testing.T) { checkRoundTrip(t, []schema.Run{{}, {}}) }},
		{"runs/empty lists stay empty, not null", func(t *testing.T) { checkRoundTrip(t, []schema.Run{emptyLists, {}}) }},
		{"runs/no rows", func(t *testing.T) { checkRoundTrip(t, []schema.Run{}) }},
		{"measurements/every field set", func(t *testing.T) {
			checkRoundTrip(t, []schema.Measurement{filled[schema.Measurement](t, 1), {}, filled[schema.Measurement](t, 2)})
		}},
		{"measurements/infinities", func(t *testing.T) { checkRoundTrip(t, []schema.Measurement{inf, {}}) }},
		{"samples/every field set", func(t *testing.T) {
			checkRoundTrip(t, []schema.Sample{filled[schema.Sample](t, 1), {}, filled[schema.Sample](t, 2)})
		}},
		{"runs/nanoseconds truncate to microseconds", func(t *testing.T) {
			got := roundTrip(t, []schema.Run{ns})
			if !reflect.DeepEqual(got, []schema.Run{nsWant}) {
				t.Fatalf("ingested_at %v, want %v", got[0].IngestedAt, nsWant.IngestedAt)
			}
		}},
		{"runs/other zones read back as UTC", func(t *testing.T) {
			got := roundTrip(t, []schema.Run{zone})
			if !reflect.DeepEqual(got, []schema.Run{zoneWant}) {
				t.Fatalf("ingested_at %v, want %v", got[0].IngestedAt, zoneWant.IngestedAt)
			}
		}},
		{"measurements/NaN stays NaN", func(t *testing.T) {
			got := roundTrip(t, []schema.Measurement{{TBTMs: schema.F64(math.NaN())}})
			if got[0].TBTMs == nil || !math.IsNaN(*got[0].TBTMs) {
				t.Fatalf("tbt_ms %v, want NaN", got[0].TBTMs)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

func TestReadFileWrongTable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(f, []schema.Measurement{{RunID: "x"}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadFile[schema.Run](p); err == nil || !strings.Contains(err.Error(), `holds table "measurements"`) {
		t.Fatalf("reading a measurements file as runs: err = %v", err)
	}
}

func TestColumns(t *testing.T) {
	tests := []struct {
		table, column, typ string
		nullable           bool
	}{
		{TableRuns, "run_id", "utf8", false},
		{TableRuns, "schema_version", "int32", false},
		{TableRuns, "ingested_at", "timestamp[us, tz=UTC]", false},
		{TableRuns, "started_at", "timestamp[us, tz=UTC]", true},
		{TableRuns, "vram_gb", "float64", true},
		{TableRuns, "gpu_count", "int32", true},
		{TableRuns, "max_model_len", "int64", true},
		{TableRuns, "launch_flags", "list<element: struct<key: utf8, value: utf8>>", true},
		{TableRuns, "metadata", "list<element: struct<section: utf8, key: utf8, value: utf8>>", true},
		{TableMeasurements, "phase", "utf8", false},
		{TableMeasurements, "concurrency", "int32", true},
		{TableMeasurements, "source_line", "int64", false},
		{TableMeasurements, "extra", "list<element: struct<name: utf8, value: float64>>", true},
		{TableSamples, "in_window", "bool", false},
		{TableSamples, "ttft_ms", "float64", true},
	}
	for _, tt := range tests {
		t.Run(tt.table+"."+tt.column, func(t *testing.T) {
			for _, c := range Columns(tt.table) {
				if c.Name == tt.column {
					if c.Type != tt.typ || c.Nullable != tt.nullable {
						t.Fatalf("got %s nullable=%v, want %s nullable=%v", c.Type, c.Nullable, tt.typ, tt.nullable)
					}
					return
				}
			}
			t.Fatalf("no column %s", tt.column)
		})
	}
	if Columns("nope") != nil {
		t.Fatal("Columns of an unknown table is not nil")
	}
}

// TestSchemaDoc checks that docs/schema.md describes every column of every
// table in that table's section, so a new column cannot land undocumented.
func TestSchemaDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testtool.RepoRoot(t), "docs", "schema.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	head := regexp.MustCompile("(?m)^## Table `([a-z_]+)`")
	locs := head.FindAllStringSubmatchIndex(string(b), -1)
	for i, loc := range locs {
		end := len(b)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		sections[string(b[loc[2]:loc[3]])] = string(b[loc[1]:end])
	}
	for _, table := range Tables {
		sec, ok := sections[table]
		if !ok {
			t.Errorf("docs/schema.md has no section \"## Table `%s`\"", table)
			continue
		}
		for _, c := range Columns(table) {
			row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(c.Name) + "` \\|[^\n]*\\|[^\n]*\\|[^\n]*\\S[^\n]*\\|")
			if !row.MatchString(sec) {
				t.Errorf("docs/schema.md, table %s: no row for column %s (| `%s` | type | unit | meaning |)", table, c.Name, c.Name)
			}
		}
	}
}

var update = flag.Bool("update", false, "rewrite testdata/columns.golden")

// TestColumnsGolden pins the Arrow schema of every table: a change to
// schema/types.go shows up here as a reviewed diff (go test ./archive
// -update rewrites the file).
func TestColumnsGolden(t *testing.T) {
	var b strings.Builder
	for _, table := range Tables {
		fmt.Fprintf(&b, "table %s\n", table)
		for _, c := range Columns(table) {
			null := ""
			if c.Nullable {
				null = " (nullable)"
			}
			fmt.Fprintf(&b, "  %s %s%s\n", c.Name, c.Type, null)
		}
	}
	path := filepath.Join("testdata", "columns.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./archive -update)", err)
	}
	if got := b.String(); got != string(want) {
		t.Fatalf("columns differ from %s (run go test ./archive -update if intended):\n%s", path, got)
	}
}

// TestReadFileCorrupt checks that damaged files are errors, not panics.
func TestReadFileCorrupt(t *testing.T) {
	var good strings.Builder
	if err := WriteFile(&good, []schema.Run{filled[schema.Run](t, 1)}); err != nil {
		t.Fatal(err)
	}
	g := good.String()
	tests := []struct{ name, content string }{
		{"empty", ""},
		{"junk", strings.Repeat("not parquet ", 100)},
		{"truncated", g[:len(g)/2]},
		{"footer only", "PAR1" + g[len(g)-8:]},
		{"body garbled", g[:4] + strings.Repeat("\xff", len(g)/2) + g[4+len(g)/2:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.parquet")
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadFile[schema.Run](p); err == nil {
				t.Fatal("no error")
			}
			if _, err := readRunIDs(p); err == nil {
				t.Fatal("readRunIDs: no error")
			}
		})
	}
}

// FuzzReadFile feeds damaged Parquet files to the reader: it may fail,
// never panic, and what it reads must encode again.
func FuzzReadFile(f *testing.F) {
	for _, rows := range [][]schema.Run{{filled[schema.Run](f, 1)}, {{}, filled[schema.Run](f, 2)}} {
		var b strings.Builder
		if err := WriteFile(&b, rows); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(b.String()))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := ReadFile[schema.Run](p)
		if err != nil {
			return
		}
		var b strings.Builder
		if err := WriteFile(&b, rows); err != nil {
			t.Fatalf("rows read from a file do not encode: %v", err)
		}
		readRunIDs(p)
	})
}

// TestDamagedStoredSchema reads a file whose stored Arrow schema (the
// ARROW:schema key/value entry) is garbage of the same length: the
// Parquet schema is intact, so the rows must read back. (arrow-go decodes
// such garbage without bounds checks; reading it would run out of
// memory.)
func TestDamagedStoredSchema(t *testing.T) {
	rows := []schema.Run{filled[schema.Run](t, 1)}
	var b strings.Builder
	if err := WriteFile(&b, rows); err != nil {
		t.Fatal(err)
	}
	data := b.String()
	key := "ARROW:schema"
	i := strings.Index(data, key)
	if i < 0 {
		t.Fatal("no stored Arrow schema in the file")
	}
	// The value follows the key after a thrift field header and a varint
	// length: find the base64 text that starts within a few bytes.
	start := i + len(key)
	for start < len(data) && !strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", rune(data[start])) {
		start++
	}
	start += 8 // keep the first bytes (the flatbuffer's size prefix) plausible
	end := start
	for end < len(data) && strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", rune(data[end])) {
		end++
	}
	if end-start < 100 {
		t.Fatalf("stored schema value not found (%d bytes)", end-start)
	}
	damaged := data[:start] + strings.Repeat("/", (end-start)/4*4) + data[start+(end-start)/4*4:]
	p := filepath.Join(t.TempDir(), "x.parquet")
	if err := os.WriteFile(p, []byte(damaged), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile[schema.Run](p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Fatal("rows differ")
	}
}
