package parse

import "testing"

// BenchmarkReadRows reads the All measurements table of each seed (46
// rows) from its extracted text: readRange alone, the rows' share of a
// parse (cells, figures, measurements and their printed texts).
func BenchmarkReadRows(b *testing.B) {
	for _, name := range []string{seed000, seed001} {
		raw, err := extractText(readSeed(b, name), name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name[:3], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := readRange(raw, 0, len(raw.Table.Rows), false, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(raw.Table.Rows)), "ns/row")
		})
	}
}

// BenchmarkExtractText extracts the text of each seed: its lines,
// sections, fields and tables, before any row is read, in a scratch
// reused as a parse reuses it.
func BenchmarkExtractText(b *testing.B) {
	benchSeeds(b, func(doc []byte, name string) error {
		sc := getScratch()
		_, err := extractOwnedText(doc, name, sc)
		sc.release()
		return err
	})
}
