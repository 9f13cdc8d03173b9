// Package redact removes secrets from text before it is stored or
// printed: by form (an "Authorization: Bearer …" header, sk-… and hf_…
// keys, the user information of a URL), by position in a shell command
// (the value of --api-key, of HF_TOKEN=…, after &&, ;, | and inside
// bash -c "…"), and by value (the API key the client itself sends, which
// a server may echo in an error), by flag (curl -u/--user user:password),
// and by key: the value of any key that
// names a secret (SecretKey: api_key, x-api-key, hf_token, password,
// authorization, … at any depth of JSON or YAML, in key=value, in a
// header, in a schema.KV or schema.Field pair), Basic credentials, and
// the base64 of the user:password pairs it knows. Walk applies it to
// every string of a *schema.Matrix: parse calls it on every matrix any
// reader returns (parse/trust.go), the runner on every matrix it hands
// out. docs/security.md lists every door and what is redacted there.
//
// Note: it is a package of its own, importing nothing of this module,
// because both the readers of other people's documents (parse) and the
// load generator and its command (runner, cmd/run) need the same rules,
// and runner does not import parse. One Scrubber applied where a run's
// matrix is finished, and around the command's stdout and stderr, covers
// every stored or printed text, instead of a call at each place a text
// is made.
package redact
