// Package redact removes secrets from text before it is stored or
// printed: by form (an "Authorization: Bearer …" header, sk-… and hf_…
// keys, the user information of a URL), by position in a shell command
// (the value of --api-key, of HF_TOKEN=…, after &&, ;, | and inside
// bash -c "…"), and by value (the API key the client itself sends, which
// a server may echo in an error).
//
// Note: it is a package of its own, importing nothing of this module,
// because both the readers of other people's documents (parse) and the
// load generator and its command (runner, cmd/run) need the same rules,
// and runner does not import parse. One Scrubber applied where a run's
// matrix is finished, and around the command's stdout and stderr, covers
// every stored or printed text, instead of a call at each place a text
// is made.
package redact
