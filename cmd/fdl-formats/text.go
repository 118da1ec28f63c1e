package main

import (
	"fmt"
	"io"
	"reflect"
	"unicode/utf8"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// Names, paths, keys and values of a repository reach the report lines:
// a table named "t\n::error::x" printed as it is starts a line of its own
// (a GitHub Actions workflow command in a CI log), one holding ESC
// sequences acts on the terminal. The report lines are written with
// reportf and textf, which escape each argument's text (oneline.Escape:
// "t\n::error::x" is printed `t\n::error::x`): the format's own "\n" are
// the report's only line breaks. The error a run ends with is printed
// with oneline.Message (renderError), and the logs' text handler quotes
// such values itself. What still slips through to stdout or into a log
// record (DEL, C1 in JSON) is escaped by controlEscaper.

// reportf is fmt.Fprintf with each argument's text escaped (safeArgs).
func reportf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format, safeArgs(args)...)
}

// textf is fmt.Sprintf with each argument's text escaped (safeArgs).
func textf(format string, args ...any) string {
	return fmt.Sprintf(format, safeArgs(args)...)
}

// safeArgs replaces each string (of any string type), error and
// fmt.Stringer among args by its text escaped; numbers and the rest are
// kept.
func safeArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case error:
			out[i] = oneline.Escape(v.Error())
		case fmt.Stringer:
			out[i] = oneline.Escape(v.String())
		default:
			if rv := reflect.ValueOf(a); rv.IsValid() && rv.Kind() == reflect.String {
				out[i] = oneline.Escape(rv.String())
			} else {
				out[i] = a
			}
		}
	}
	return out
}

// controlEscaper is the last guard of stdout (runMain) and of the logs
// (loggerTo, reportError): a control character
// other than "\n" and "\t" (C0, DEL, C1) in a report line that did not
// come through reportf or textf, or in a --json string (encoding/json
// writes DEL and C1 as they are), is written as its JSON escape
// ("\u001b"), which a --json report decodes to the same string; a byte
// that is no UTF-8 (never in --json, which writes U+FFFD) as "\xNN".
type controlEscaper struct{ w io.Writer }

func (c controlEscaper) Write(p []byte) (int, error) {
	clean := true
	for i := 0; i < len(p) && clean; {
		r, n := utf8.DecodeRune(p[i:])
		clean = !escapedOnStdout(r, n)
		i += n
	}
	if clean {
		return c.w.Write(p)
	}
	buf := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			buf = fmt.Appendf(buf, `\x%02x`, p[i])
		case escapedOnStdout(r, n):
			buf = fmt.Appendf(buf, `\u%04x`, r)
		default:
			buf = append(buf, p[i:i+n]...)
		}
		i += n
	}
	if _, err := c.w.Write(buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapedOnStdout: the rune r, n bytes long, is one controlEscaper
// escapes.
func escapedOnStdout(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r == '\n', r == '\t':
		return false
	}
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}
