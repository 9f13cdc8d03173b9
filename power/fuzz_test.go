package power

import (
	"bytes"
	"os"
	"testing"
)

func seed(f *testing.F, files ...string) {
	for _, name := range files {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzParseDCGM(f *testing.F) {
	seed(f, "dcgm-exporter-t4.txt")
	f.Add([]byte("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 1\nDCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseDCGM(bytes.NewReader(b), "fuzz")
		if err == nil {
			_, _ = s.Reading(t0)
		}
	})
}

func FuzzParseNvidiaSMI(f *testing.F) {
	seed(f, "nvidia-smi-h100-590.48.01.csv")
	f.Add([]byte("timestamp, index, power.draw [W]\n2026/12/07 06:00:00.000, 0, [N/A]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ParseNvidiaSMI(bytes.NewReader(b), "fuzz")
		for _, r := range rows {
			if err == nil && r.HasPower && r.PowerW < 0 {
				t.Fatalf("negative power %v", r.PowerW)
			}
		}
	})
}

func FuzzParseAMDSMI(f *testing.F) {
	seed(f, "amd-smi-metric-p-rocm-changelog.json")
	f.Add([]byte(`{"gpu_data":[{"gpu":0,"energy":{"total_energy_consumption":{"value":1,"unit":"J"}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		gpus, err := ParseAMDSMI(b, "fuzz")
		if err == nil {
			_, _ = amdReading(gpus, t0)
		}
	})
}

func FuzzParsePromQuery(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"2"]}]}}`))
	f.Add([]byte(`{"status":"error","errorType":"bad_data","error":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParsePromQuery(b, "fuzz")
	})
}
