package fdljson

import (
	"errors"
	"fmt"
)

// ErrInvalid is matched by every error the Parse functions return: the file
// is not valid JSON, or a field is missing or malformed.
var ErrInvalid = errors.New("invalid FDL file")

// Error is a validation failure in one field of one file.
type Error struct {
	File  string // the file as the caller named it ("versions/<id>/version.json")
	Field string // a JSON path ("formats[1].until"); empty for the whole file
	Err   error
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.File, e.Field, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes every *Error match ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Hint tells the user what to do next.
func (e *Error) Hint() string {
	return fmt.Sprintf("fix %s (see docs/fdl-json.md and the FDL Versions page)", e.File)
}

func fieldErr(file, field, format string, args ...any) *Error {
	return &Error{File: file, Field: field, Err: fmt.Errorf(format, args...)}
}
