// Package importrules holds no code: its test enforces the rules of
// CONTRIBUTING.md and DESIGN.md on which package of the module may
// import which (faces → libraries → schema; schema imports nothing of
// ours; only archive, the faces and the libraries behind them
// that store or read an archive (ingest, dashboard) link arrow-go; render and parse never
// import each other; …). The rules are a table in importrules_test.go:
// a new rule is one line.
//
// The test reads the import graph from `go list -deps -json ./...` (the
// packages' non-test imports) and fails naming, for each broken rule,
// the chain of imports that breaks it.
package importrules
