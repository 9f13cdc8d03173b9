// Package docspec holds what render writes and parse reads of a
// speed-test document, kept in one place so that the two directions
// cannot drift apart (as Prometheus' expfmt keeps its encoder and
// decoder together):
//
//   - the server launch command a document prints (ParseLaunch: tokenized
//     like a shell would, secrets redacted by package redact, the model,
//     tensor parallelism, maximum length and other settings taken from
//     it), which render compares with a run's own fields, parse reads
//     into them and cmd/run stores;
//   - the rate table's columns (ServeColumns: header, kind, the figure of
//     a serve row each shows), which render prints and parse checks
//     against the All measurements rows.
//
// It imports only schema and redact: render and parse both import it and
// never each other.
package docspec
