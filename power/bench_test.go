package power

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkParse reads each recorded output: throughput in bytes per
// second and allocations per answer (a meter parses one every 100 ms).
func BenchmarkParse(b *testing.B) {
	for _, c := range []struct {
		file  string
		parse func([]byte) error
	}{
		{"dcgm-exporter-t4.txt", func(x []byte) error { _, err := ParseDCGM(bytes.NewReader(x), "b"); return err }},
		{"nvidia-smi-h100-590.48.01.csv", func(x []byte) error { _, err := ParseNvidiaSMI(bytes.NewReader(x), "b"); return err }},
		{"amd-smi-metric-p-rocm-changelog.json", func(x []byte) error { _, err := ParseAMDSMI(x, "b"); return err }},
	} {
		in, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.file, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if err := c.parse(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
