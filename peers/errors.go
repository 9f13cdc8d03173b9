package peers

import "speedmatrix/internal/source"

// Error is a problem with a result file, positioned at a line: "file:line:
// message". It is parse.Error too, so a caller tells a bad input from a
// failed read the same way whatever the file.
type Error = source.Error

// errorf returns an *Error at file:line.
func errorf(file string, line int, format string, args ...any) *Error {
	return source.Errorf(file, line, format, args...)
}
