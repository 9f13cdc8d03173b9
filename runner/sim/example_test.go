package sim_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"speedmatrix/runner/sim"
)

// Start a simulator on loopback, send one request, and compare what came
// back with the simulator's record of what it sent.
func ExampleStart() {
	p := sim.DefaultProfile()
	p.ChunkTokens = 3 // as with multi-token prediction
	srv, url, err := sim.Start(p)
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	body := `{"model":"sim","prompt":"Once upon a time","max_tokens":10,"ignore_eos":true}`
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var out struct {
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		panic(err)
	}
	rec := srv.Requests()[0]
	fmt.Println("usage:", out.Usage.PromptTokens, "prompt,", out.Usage.CompletionTokens, "completion")
	fmt.Println("truth:", rec.PromptTokens, "prompt,", rec.OutputTokens, "output,", rec.FinishReason)
	// Output:
	// usage: 4 prompt, 10 completion
	// truth: 4 prompt, 10 output, length
}
