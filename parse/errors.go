package parse

import "speedmatrix/internal/source"

// Error is a problem with an input document, positioned at a line.
// Its text reads "file:line: message", like a compiler's. Other tools'
// result files (package peers) report the same type.
type Error = source.Error

// errorf returns an *Error at file:line.
func errorf(file string, line int, format string, args ...any) *Error {
	return source.Errorf(file, line, format, args...)
}
