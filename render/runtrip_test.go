package render

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"speedmatrix/schema"
)

// columnView flattens a measurement to column name → value: the identity
// columns, every nullable figure under its JSON tag, and the Extra
// metrics under their names (an Extra metric named like a column stands
// for that column). It is what a reader of the archive sees, whichever
// of the two places a reader put a figure in.
func columnView(x *schema.Measurement) map[string]string {
	v := map[string]string{
		"phase": string(x.Phase), "context_label": x.ContextLabel, "status": string(x.Status),
	}
	if x.StatusReason != "" {
		v["status_reason"] = x.StatusReason
	}
	rv := reflect.ValueOf(x).Elem()
	for i := 0; i < rv.NumField(); i++ {
		f := rv.Field(i)
		if f.Kind() != reflect.Pointer || f.IsNil() {
			continue
		}
		name, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
		switch e := f.Elem(); e.Kind() {
		case reflect.Float64:
			v[name] = strconv.FormatFloat(e.Float(), 'g', -1, 64)
		case reflect.Int64, reflect.Int32:
			v[name] = strconv.FormatInt(e.Int(), 10)
		default:
			v[name] = fmt.Sprint(e.Interface())
		}
	}
	for _, e := range x.Extra {
		if _, typed := v[e.Name]; !typed {
			v[e.Name] = strconv.FormatFloat(e.Value, 'g', -1, 64)
		}
	}
	return v
}

// knownParseGaps are columns package parse does not read back yet (see
// the render report): context_tokens is always label × 1024 and a
// status_reason column is dropped. Differences in them are logged, not
// failed, so the test follows parse as it closes them.
var knownParseGaps = map[string]bool{"context_tokens": true, "status_reason": true}

// TestRunRoundTrip renders a matrix as a measuring run makes it (no
// printed metadata, full-precision figures, percentile and error columns,
// nulls, every status) and parses it back: every figure must come back
// exactly, and every run fact must come back as its column or as a
// printed pair.
func TestRunRoundTrip(t *testing.T) {
	want := synthRun()
	for _, f := range roundTripForms {
		t.Run(f.ext, func(t *testing.T) {
			back := renderParse(t, want, f.ext, f.format)
			if len(back.Measurements) != len(want.Measurements) {
				t.Fatalf("%d measurements, want %d", len(back.Measurements), len(want.Measurements))
			}
			asExtra := map[string]bool{}
			for i := range want.Measurements {
				for _, e := range back.Measurements[i].Extra {
					asExtra[e.Name] = true
				}
				g, w := columnView(&back.Measurements[i]), columnView(&want.Measurements[i])
				for k := range union(g, w) {
					if g[k] == w[k] {
						continue
					}
					msg := fmt.Sprintf("row %d (%s %s %s): %s = %q, want %q", i, w["phase"], w["context_label"], w["concurrency"], k, g[k], w[k])
					if knownParseGaps[k] {
						t.Log("known parse gap: " + msg)
					} else {
						t.Error(msg)
					}
				}
			}
			if len(asExtra) > 0 {
				t.Logf("columns parse read back as Extra metrics, not as their typed fields: %v", slices.Sorted(maps.Keys(asExtra)))
			}
			r, wr := back.Run, want.Run
			for _, c := range []struct {
				name      string
				got, want any
			}{
				{"title", r.Title, title(&wr)}, {"model", r.Model, wr.Model}, {"model_id", r.ModelID, wr.ModelID},
				{"gpu", r.GPU, wr.GPU}, {"vram_gb", deref(r.VRAMGB), deref(wr.VRAMGB)},
				{"hardware_type", r.HardwareType, wr.HardwareType}, {"os", r.OS, wr.OS},
				{"engine", r.Engine, wr.Engine}, {"engine_version", r.EngineVersion, wr.EngineVersion},
				{"quantization", r.Quantization, wr.Quantization}, {"served_model", r.ServedModel, wr.ServedModel},
				{"bench_tool", r.BenchTool, wr.BenchTool}, {"bench_version", r.BenchVersion, wr.BenchVersion},
				{"decode_test", r.DecodeTest, wr.DecodeTest}, {"prefill_mode", r.PrefillMode, wr.PrefillMode},
				{"measure_seconds", deref(r.MeasureSeconds), deref(wr.MeasureSeconds)},
				{"max_output_tokens", deref(r.MaxOutputTokens), deref(wr.MaxOutputTokens)},
			} {
				if c.got != c.want {
					t.Errorf("run %s = %v, want %v", c.name, c.got, c.want)
				}
			}
			// Facts parse has no column mapping for must at least survive as
			// printed pairs.
			printed := map[string]string{}
			for _, fl := range r.Metadata {
				printed[fl.Key] = fl.Value
			}
			for key, val := range map[string]string{
				"Host": wr.Host, "Server URL": wr.ServerURL, "Endpoint": wr.Endpoint, "Dataset": wr.Dataset,
				"Client version": wr.ClientVersion, "Started": "2026-12-02T15:00:00Z", "Finished": "2026-12-02T15:07:01.5Z",
				"KV budget": "200,000 tokens", "Max model length": "32,768 tokens",
			} {
				if printed[key] != val {
					t.Errorf("printed pair %q = %q, want %q", key, printed[key], val)
				}
			}
		})
	}
}

func union(a, b map[string]string) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
