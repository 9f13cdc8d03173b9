// Package source is what package parse (documents) and package peers
// (other tools' result files) both say about an input they read: the
// positioned error they return (Error: a problem at a line, reading
// "file:line: message" like a compiler's) and the stamp every run read
// from a file carries (Stamp: its path, hash, format and schema version;
// Identify: its content id). It lives apart so that parse, which
// dispatches to peers, and peers share them without an import cycle;
// parse.Error and peers.Error are this Error.
package source
