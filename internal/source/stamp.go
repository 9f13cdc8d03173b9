package source

import (
	"crypto/sha256"
	"encoding/hex"

	"speedmatrix/schema"
)

// Stamp sets a parsed matrix's source: its path, the SHA-256 of its
// bytes, its format and the schema version it was read into.
func Stamp(m *schema.Matrix, sum [sha256.Size]byte, name, format string) {
	m.Run.SchemaVersion = schema.Version
	m.Run.SourcePath = name
	m.Run.SourceSHA256 = hex.EncodeToString(sum[:])
	m.Run.SourceFormat = format
}

// Identify sets the run id of a parsed matrix (schema.ComputeRunID) and
// of its measurements.
func Identify(m *schema.Matrix) *schema.Matrix {
	m.Run.RunID = schema.ComputeRunID(m)
	for i := range m.Measurements {
		m.Measurements[i].RunID = m.Run.RunID
	}
	return m
}

// Finish stamps a matrix read from b and sets its id.
func Finish(m *schema.Matrix, b []byte, name, format string) *schema.Matrix {
	Stamp(m, sha256.Sum256(b), name, format)
	return Identify(m)
}
