package source

import "fmt"

// Error is a problem with an input document, positioned at a line.
// Its text reads "file:line: message", like a compiler's.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem has no single line
	Msg  string
}

// Error returns "file:line: message" (or "file: message" without a line).
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Errorf returns an *Error at file:line.
func Errorf(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}
