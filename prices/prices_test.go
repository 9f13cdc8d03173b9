package prices

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/internal/source"
	"speedmatrix/internal/testtool"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// TestParseFiles reads every file under testdata: ok_* must parse, bad_*
// must fail with a positioned error; what each gives is in parse.golden.
func TestParseFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.toml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		tab, err := Parse(data, name)
		switch {
		case strings.HasPrefix(name, "ok_") && err != nil:
			t.Errorf("%s: %v", name, err)
		case strings.HasPrefix(name, "bad_") && err == nil:
			t.Errorf("%s: parsed, want an error", name)
		case err != nil:
			var se *source.Error
			if !errors.As(err, &se) || se.Line == 0 || se.File != name {
				t.Errorf("%s: error %q has no file:line", name, err)
			}
			fmt.Fprintf(&b, "%s\n", err)
			continue
		}
		fmt.Fprintf(&b, "%s: as of %s (%q), source %q\n", name, tab.AsOf.Format("2006-01-02"), tab.AsOfText, tab.About)
		for _, e := range tab.Entries {
			fmt.Fprintf(&b, "  %q = %g (%q) at %s\n", e.GPU, e.USDPerHour, e.Text, e.Source)
		}
	}
	testtool.Golden(t, filepath.Join("testdata", "parse.golden"), []byte(b.String()), *update)
}

// TestParseExample reads the repository's example price file, the one the
// README's per-dollar example uses.
func TestParseExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "prices.toml"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Parse(data, "prices.toml")
	if err != nil {
		t.Fatal(err)
	}
	for gpu, want := range map[string]float64{"H200 NVL": 2.4, "RTX PRO 6000 Blackwell Server Edition": 1.2} {
		e, err := tab.Lookup(gpu)
		if err != nil || e.USDPerHour != want {
			t.Errorf("Lookup(%q) = %+v, %v; want %g", gpu, e, err, want)
		}
	}
}

func TestLookup(t *testing.T) {
	tab := &Table{}
	for _, e := range []string{"H200=3.5", "H20=1", "H200 NVL=3.2", "RTX PRO 6000=1.2", "Blackwell=9", "A100 80GB=1.8", "A100-SXM4=1.7", "L4=0.5"} {
		en, err := ParseEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		tab.Set(en)
	}
	for _, tt := range []struct {
		gpu, want, err string
	}{
		{gpu: "H200", want: "H200"},
		{gpu: " h200 ", want: "H200"},                    // exact, case and spaces aside
		{gpu: "H200 NVL", want: "H200 NVL"},              // exact beats contained
		{gpu: "NVIDIA H200 NVL 141GB", want: "H200 NVL"}, // longest contained
		{gpu: "NVIDIA H200", want: "H200"},
		{gpu: "NVIDIA H20", want: "H20"},
		{gpu: "H200X", err: `no price for GPU "H200X"`},                      // a letter continues the word
		{gpu: "RTX PRO 6000 Blackwell Server Edition", want: "RTX PRO 6000"}, // 12 letters beat 9
		{gpu: "NVIDIA L40S", err: `no price for GPU "NVIDIA L40S"`},          // L4 is not L40S
		{gpu: "A100-SXM4-80GB", want: "A100-SXM4"},                           // "-" ends a word
		{gpu: "A100 80GB SXM4", want: "A100 80GB"},
		{gpu: "", err: "the run does not name its GPU"},
	} {
		e, err := tab.Lookup(tt.gpu)
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("Lookup(%q) = %q, %v; want error %q", tt.gpu, e.GPU, err, tt.err)
			}
		case err != nil || e.GPU != tt.want:
			t.Errorf("Lookup(%q) = %q, %v; want %q", tt.gpu, e.GPU, err, tt.want)
		}
	}
}

func TestLookupAmbiguous(t *testing.T) {
	tab, err := Parse([]byte("as_of = 2026-12-01\n[gpu]\n\"RTX 6000\" = 1\n\"Ada 6000\" = 2\n"), "p.toml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tab.Lookup("RTX 6000 Ada 6000")
	var ae *AmbiguousError
	if !errors.As(err, &ae) || err.Error() != `GPU "RTX 6000 Ada 6000" matches both "RTX 6000" (p.toml:3) and "Ada 6000" (p.toml:4): make one key the GPU's full name` {
		t.Fatalf("got %v", err)
	}
	var nt *Table
	if _, err := nt.Lookup("H200"); !errors.As(err, new(*NoPriceError)) {
		t.Errorf("nil table: %v", err)
	}
}

func TestParseEntry(t *testing.T) {
	for _, tt := range []struct {
		in   string
		gpu  string
		usd  float64
		fail bool
	}{
		{in: "H200=3.5", gpu: "H200", usd: 3.5},
		{in: "RTX PRO 6000 = $1.2/h", gpu: "RTX PRO 6000", usd: 1.2},
		{in: "A=B=2", gpu: "A=B", usd: 2},
		{in: "H200", fail: true},
		{in: "=3", fail: true},
		{in: "H200=0", fail: true},
		{in: "H200=-1", fail: true},
		{in: "H200=NaN", fail: true},
		{in: "H200=inf", fail: true},
		{in: "H200=cheap", fail: true},
	} {
		e, err := ParseEntry(tt.in)
		if (err != nil) != tt.fail || (!tt.fail && (e.GPU != tt.gpu || e.USDPerHour != tt.usd || e.Source != "-price")) {
			t.Errorf("ParseEntry(%q) = %+v, %v", tt.in, e, err)
		}
	}
}

// TestSetOverrides checks that a -price replaces the file's entry of the
// same GPU and adds a new one after the file's.
func TestSetOverrides(t *testing.T) {
	tab, err := Parse([]byte("as_of = 2026-12-01\n[gpu]\nH200 = 3.5\nB200 = 5\n"), "p.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"h200=2.9", "L40S=0.8"} {
		e, _ := ParseEntry(s)
		tab.Set(e)
	}
	var got []string
	for _, e := range tab.Entries {
		got = append(got, fmt.Sprintf("%s=%g@%s", e.GPU, e.USDPerHour, e.Source))
	}
	if want := "h200=2.9@-price B200=5@p.toml:4 L40S=0.8@-price"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
}

// FuzzParse checks that no input panics, that an error is positioned at
// the named file, and that every price read is positive and finite.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.toml"))
	files = append(files, filepath.Join("..", "testdata", "prices.toml"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Parse(data, "fuzz.toml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.toml") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if tab.AsOf.IsZero() || len(tab.Entries) == 0 {
			t.Fatalf("accepted without a date or a price: %+v", tab)
		}
		for _, e := range tab.Entries {
			if !(e.USDPerHour > 0) || e.USDPerHour > 1e308 {
				t.Fatalf("price %v accepted", e.USDPerHour)
			}
			if _, err := tab.Lookup(e.GPU); err != nil {
				var ae *AmbiguousError
				if !errors.As(err, &ae) {
					t.Fatalf("Lookup of its own key %q: %v", e.GPU, err)
				}
			}
		}
	})
}

// BenchmarkParse reads the example price file: a price file is read once
// per compare, so this only shows that reading one costs nothing.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "prices.toml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, "prices.toml"); err != nil {
			b.Fatal(err)
		}
	}
}
