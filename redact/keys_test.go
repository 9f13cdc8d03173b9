package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestTextKeyedSpellings redacts every spelling of issue 22 that Text's
// inline patterns missed (each kept its secret before keyedText), and
// checks the text around it is kept.
func TestTextKeyedSpellings(t *testing.T) {
	const s = "Kq9plantedSecret01"
	b64 := base64.StdEncoding.EncodeToString([]byte("alice:" + s))
	for in, want := range map[string]string{
		`curl -H 'x-api-key: ` + s + `' http://h`:             `curl -H 'x-api-key: <redacted>' http://h`,
		`curl -H "api-key: ` + s + `" http://h`:               `curl -H "api-key: <redacted>" http://h`,
		`Proxy-Authorization: Basic ` + b64:                   `Proxy-Authorization: Basic <redacted>`,
		`{"detail": "bad credential Basic ` + b64 + `"}`:      `{"detail": "bad credential Basic <redacted>"}`,
		`{"api_key": "` + s + `", "max_tokens": 128}`:         `{"api_key": "<redacted>", "max_tokens": 128}`,
		`{"hf_token": "` + s + `", "time_to_first_token": 1}`: `{"hf_token": "<redacted>", "time_to_first_token": 1}`,
		`export OPENAI_API_KEY=` + s:                          `export OPENAI_API_KEY=<redacted>`,
		`aiperf profile --api-key ` + s + ` --model m`:        `aiperf profile --api-key <redacted> --model m`,
		`Namespace(api_key='` + s + `', model='m')`:           `Namespace(api_key='<redacted>', model='m')`,
		`GET /v1?access_token=` + s + `&x=1`:                  `GET /v1?access_token=<redacted>&x=1`,
		`{"auth": {"password": "` + s + `"}}`:                 `{"auth": {"password": "<redacted>"}}`,
		`sh -c "vllm serve m --token ` + s + `"`:              `sh -c "vllm serve m --token <redacted>"`,
		`--env=HF_TOKEN=` + s:                                 `--env=HF_TOKEN=<redacted>`,
		`client_secret: ` + s:                                 `client_secret: <redacted>`,
		`Cookie: session=` + s:                                `Cookie: <redacted>`,
		`key AKIAABCDEFGHIJKLMNOP here`:                       `key <redacted> here`,
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

// TestTextKeepsFigures checks that keys about tokens as a unit, and
// values that carry nothing, are kept.
func TestTextKeepsFigures(t *testing.T) {
	for _, in := range []string{
		`{"max_tokens": 128, "output_token_throughput": 512.5, "tokenizer": "org/t", "inter_token_latency": 3}`,
		`--max-num-batched-tokens 8192 --tokenizer org/t --tokenizer-mode auto`,
		`use_auth_token: true`, `api_key: null`, `--api-key <redacted> --port 8000`,
		`the output tokens were 512; total token count: 1234`, `Authorization: Bearer <redacted>`,
		`basic test of the key idea`, `eos_token: </s>`,
	} {
		if got := Text(in); got != in {
			t.Errorf("Text(%q) = %q, want it unchanged", in, got)
		}
	}
}

func TestSecretKey(t *testing.T) {
	for _, k := range []string{"api_key", "apiKey", "x-api-key", "API key", "hf_token", "HF_TOKEN", "accessToken", "token",
		"Authorization", "Proxy-Authorization", "password", "db_passwd", "client_secret", "credentials", "Cookie", "auth",
		"OPENAI_KEY", "private_key", "parameters.api_key", "use_auth_token"} {
		if !SecretKey(k) {
			t.Errorf("SecretKey(%q) = false", k)
		}
	}
	for _, k := range []string{"max_tokens", "output_tokens", "tokenizer", "time_to_first_token", "output_token_throughput",
		"Output token throughput (tok/s)", "eos_token", "sort_key", "key", "model", "Served model", "--max-num-batched-tokens",
		"TOKENIZERS_PARALLELISM", "inter_token_latency_ms"} {
		if SecretKey(k) {
			t.Errorf("SecretKey(%q) = true", k)
		}
	}
}

// TestURLSecretsBasic checks that the Basic credential Go sends for a
// URL's user information is a known secret, padded and not.
func TestURLSecretsBasic(t *testing.T) {
	sc := NewScrubber(URLSecrets("http://alice:pa55wordXY@gpu:8000")...)
	b64 := base64.StdEncoding.EncodeToString([]byte("alice:pa55wordXY"))
	for _, in := range []string{"echo " + b64, "echo " + strings.TrimRight(b64, "=") + " end"} {
		if got := sc.String(in); strings.Contains(got, strings.TrimRight(b64, "=")) {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
}
