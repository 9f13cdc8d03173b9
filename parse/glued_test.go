package parse

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestBuildGluedSplit(t *testing.T) {
	tests := []struct {
		cell, status, tok, ttft string
		wantTok, wantTTFT       string // the reading chosen; both empty for status cells
		wantErr                 string // substring of the error, "" for none
	}{
		{cell: "325.241 ms TTFT", status: "Valid", tok: "325.2", ttft: "41 ms", wantTok: "325.2", wantTTFT: "41 ms"},
		{cell: "5,319.41,644 ms TTFT", status: "Valid", tok: "5,319.4", ttft: "1,644 ms", wantTok: "5,319.4", wantTTFT: "1,644 ms"},
		{cell: "13K780 ms TTFT", status: "Valid", tok: "13K", ttft: "780 ms", wantTok: "13K", wantTTFT: "780 ms"},
		{cell: "11.4K1,372 ms TTFT", status: "Valid", tok: "11.4K", ttft: "1,372 ms", wantTok: "11.4K", wantTTFT: "1,372 ms"},
		{cell: "1,330.01,574 ms TTFT", status: "Valid", tok: "1,330.0", ttft: "1,574 ms", wantTok: "1,330.0", wantTTFT: "1,574 ms"},
		{cell: "334.744 ms TTFT", status: "Valid", tok: "334.7", ttft: "44 ms", wantTok: "334.7", wantTTFT: "44 ms"},
		{cell: "6,091.1783 ms TTFT", status: "Valid", tok: "6,091.1", ttft: "783 ms", wantTok: "6,091.1", wantTTFT: "783 ms"},
		// The same digits split differently when the table says so.
		{cell: "325.241 ms TTFT", status: "Valid", tok: "325.24", ttft: "1 ms", wantTok: "325.24", wantTTFT: "1 ms"},
		// The matrix rounds like the table: 13K is 13,012.3 at its precision.
		{cell: "13K780 ms TTFT", status: "Valid", tok: "13,012.3", ttft: "780 ms", wantTok: "13K", wantTTFT: "780 ms"},
		// Separated forms.
		{cell: "6,091.1 783 ms TTFT", status: "Valid", tok: "6,091.1", ttft: "783 ms", wantTok: "6,091.1", wantTTFT: "783 ms"},
		{cell: "6,091.1 tok/s · 783 ms TTFT", status: "Valid", tok: "6,091.1", ttft: "783 ms", wantTok: "6,091.1", wantTTFT: "783 ms"},
		{cell: "6,091.1", status: "Valid", tok: "6,091.1", ttft: "783 ms", wantTok: "6,091.1"},
		// Status cells.
		{cell: "Looped", status: "Looped", tok: "—", ttft: "—"},
		{cell: "Over capacity", status: "Over capacity", tok: "—", ttft: "—"},
		{cell: "—", status: "Skipped", tok: "—", ttft: "—"},
		// Disagreements.
		{cell: "6,091.1783 ms TTFT", status: "Valid", tok: "6,091.2", ttft: "783 ms",
			wantErr: "mini.txt:6: decode 8K×1: matrix says 6,091.1 tok/s, All measurements line 10 says 6,091.2"},
		{cell: "6,091.1783 ms TTFT", status: "Valid", tok: "6,091.1", ttft: "784 ms",
			wantErr: "mini.txt:6: decode 8K×1: matrix says TTFT 783 ms, All measurements line 10 says 784 ms"},
		{cell: "5,319.41,644 ms TTFT", status: "Valid", tok: "5,319.4", ttft: "644 ms", wantErr: "line 10"},
		{cell: "13K780 ms TTFT", status: "Valid", tok: "12K", ttft: "780 ms", wantErr: "matrix says 13K tok/s, All measurements line 10 says 12K"},
		{cell: "Looped", status: "Valid", tok: "325.2", ttft: "41 ms", wantErr: "mini.txt:6: decode 8K×1: matrix says Looped, All measurements line 10 says Valid"},
		{cell: "325.241 ms TTFT", status: "Over capacity", tok: "—", ttft: "—", wantErr: `matrix says "325.241 ms TTFT", All measurements line 10 says Over capacity`},
		{cell: "Over capacity", status: "Looped", tok: "—", ttft: "—", wantErr: "matrix says Over capacity, All measurements line 10 says Looped"},
		{cell: "—", status: "Valid", tok: "325.2", ttft: "41 ms", wantErr: "matrix has no figure"},
		{cell: "fast", status: "Valid", tok: "325.2", ttft: "41 ms", wantErr: "mini.txt:6: decode 8K×1: matrix cell \"fast\" is not a tok/s figure"},
	}
	for _, tt := range tests {
		name := tt.cell + " vs " + tt.tok + "/" + tt.ttft
		got, err := readCell(t, miniDoc(tt.cell, tt.status, tt.tok, tt.ttft))
		if tt.wantErr != "" {
			var pe *Error
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &pe) || pe.Line != 6 {
				t.Errorf("%s: error %v, want *Error at line 6 containing %q", name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var gotTok, gotTTFT string
		if got != nil {
			gotTok, gotTTFT = got.tokText, got.ttftText
		}
		if gotTok != tt.wantTok || gotTTFT != tt.wantTTFT {
			t.Errorf("%s: read as %q + %q, want %q + %q", name, gotTok, gotTTFT, tt.wantTok, tt.wantTTFT)
		}
	}
}

func TestBuildSplitGluedCandidates(t *testing.T) {
	tests := []struct {
		in   string
		want []split
	}{
		{"325.241 ms TTFT", []split{{"3", "25.241 ms"}, {"32", "5.241 ms"}, {"325.2", "41 ms"}, {"325.24", "1 ms"}}},
		{"55K149 ms TTFT", []split{{"55K", "149 ms"}}},
		{"13K780 ms TTFT", []split{{"13K", "780 ms"}}},
		{"5,319.41,644 ms TTFT", []split{{"5,319.4", "1,644 ms"}}},
		{"55K 149 ms", []split{{"55K", "149 ms"}}},
		{"1.2K3.5 s", []split{{"1.2K", "3.5 s"}}},
		{"abc", nil},
	}
	for _, tt := range tests {
		var got []split
		for _, r := range readings(splitGlued(tt.in)) {
			got = append(got, split{r.tokText, r.ttftText})
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("readings(splitGlued(%q)) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestBuildLongGluedCell(t *testing.T) {
	long := strings.Repeat("1", 100000) + " ms TTFT"
	if got := splitGlued(long); len(got) != 0 {
		t.Errorf("splitGlued of a 100,000-digit cell gave %d readings", len(got))
	}
	_, err := readCell(t, miniDoc(long, "Valid", "1", "1 ms"))
	if err == nil || !strings.Contains(err.Error(), "is not a tok/s figure followed by a TTFT") {
		t.Errorf("long cell: %v", err)
	}
}

// TestAgreesExactlyImpliesAgreement checks the shortcut of checkMatrix
// on random glued cells against random rows: whenever agreesExactly says
// a cell equals its row, agreeReading (which tries every split) finds no
// fault; and a cell glued from its row's printed texts takes the shortcut.
func TestAgreesExactlyImpliesAgreement(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	figs := []string{"0", "1", "3.1", "41", "325.2", "325.20", "1,627.8", "6,091.1", "55K", "5.5K", "1,644", "2,442", "—", "010", "9.99", "0.5"}
	pick := func() string { return figs[r.IntN(len(figs))] }
	shortcut, agreed := 0, 0
	for n := 0; n < 3000; n++ {
		tok, ttft := pick(), pick()+" ms"
		var cell string
		switch r.IntN(4) {
		case 0:
			cell = tok + ttft + " TTFT" // glued from the row
		case 1:
			cell = pick() + pick() + " ms TTFT"
		case 2:
			cell = pick() + " " + pick() + " ms"
		default:
			cell = pick() + pick() + " ms"
		}
		c, row, ok := miniRow(cell, tok, ttft)
		if !ok {
			continue
		}
		f := figure{what: "decode 8K×1", source: "matrix", line: c.Line, tok: c.TokS, ttft: c.TTFT, glued: c.Glued}
		_, _, full := agreeReading("mini.txt", f, row, colTotal)
		if full == nil {
			agreed++
		}
		if agreesExactly(f, row, colTotal) {
			shortcut++
			if full != nil {
				t.Fatalf("cell %q, row tok %q TTFT %q: the shortcut agrees, agreeReading says %v", cell, tok, ttft, full)
			}
		}
	}
	if shortcut < 300 || agreed < shortcut {
		t.Errorf("%d shortcuts of %d agreements: the test exercises too little", shortcut, agreed)
	}
}

// TestLastBlank checks lastBlank against strings.LastIndexAny on random
// strings of blanks, no-break spaces, other UTF-8 and invalid bytes.
func TestLastBlank(t *testing.T) {
	pieces := []string{" ", "\t", "\u00a0", "\xc2", "\xa0", "\xe2\x80", "\u202f", "\u2009", "a", "7", ".", "\xff", "é", "\u00a0\x80"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		s := randomText(r, pieces, 8)
		if got, want := lastBlank(s), strings.LastIndexAny(s, " \t\u00a0"); got != want {
			t.Fatalf("lastBlank(%q) = %d, LastIndexAny gives %d", s, got, want)
		}
	}
}

// TestGluedAsRowAgrees checks the shortcut of agreesExactly for cells
// glued from their row's texts: wherever gluedAsRow says so, trying the
// splits (agreesBySplits) agrees exactly too.
func TestGluedAsRowAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	figs := []string{"0", "1", "3.1", "41", "325.2", "325.20", "1,627.8", "6,091.1", "55K", "5.5K", "1,644", "2,442", "—",
		"010", "9.99", "0.5", "12,34", "1.", "1,234,567.891", "99999999999999999999", "4.5M", "1K", "0.0001", "1,000K", "325 tok/s", "3.1tok/s", "7 · 8", "1;2"}
	pick := func() string { return figs[r.IntN(len(figs))] }
	hits := 0
	for n := 0; n < 4000; n++ {
		tok, ttft := pick(), pick()+" ms"
		cell := tok + ttft + " TTFT"
		if r.IntN(4) == 0 {
			cell = pick() + pick() + " ms TTFT"
		}
		c, row, ok := miniRow(cell, tok, ttft)
		if !ok {
			continue
		}
		if gluedAsRow(c.Glued, row, colTotal) {
			hits++
			if !agreesBySplits(c.Glued, row, colTotal) {
				t.Fatalf("cell %q, row tok %q TTFT %q: gluedAsRow holds, the splits do not agree", cell, tok, ttft)
			}
		}
	}
	if hits < 500 {
		t.Errorf("%d cells took the shortcut: the test exercises too little", hits)
	}
}
