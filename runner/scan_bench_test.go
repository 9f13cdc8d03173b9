package runner

import "testing"

// BenchmarkScanChunk measures the JSON scan of one vLLM chunk alone.
func BenchmarkScanChunk(b *testing.B) {
	p := []byte(`{"id":"chatcmpl-0123456789abcdef","object":"chat.completion.chunk","created":1764000000,"model":"ling","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":8203,"total_tokens":8300,"completion_tokens":97}}`)
	var ch chunk
	b.SetBytes(int64(len(p)))
	cpu0 := processCPU()
	for b.Loop() {
		if scanChunk(p, &ch) != nil || ch.completionTokens != 97 {
			b.Fatal("bad")
		}
	}
	b.ReportMetric(float64(b.N)/(processCPU()-cpu0).Seconds(), "events/cpu-s")
}
