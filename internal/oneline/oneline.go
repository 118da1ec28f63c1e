// Package oneline shortens messages (DuckDB errors, SQL) to one line for
// reports and logs, and escapes the text a repository supplies (names,
// paths, keys, values) so that it can neither start a line nor send a
// terminal a control sequence.
package oneline

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// First returns s up to its first newline.
func First(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Brief returns the first line of s, cut to at most n bytes (and "…").
func Brief(s string, n int) string {
	line := First(s)
	if len(line) > n {
		return line[:n] + "…"
	}
	return line
}

// escaped reports whether Escape writes r as an escape: control
// characters (C0 with \n, \r and \t, DEL, C1), the line and paragraph
// separators, and the bidirectional embeddings, overrides, isolates and
// marks, which reorder how the rest of a line is shown.
func escaped(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == '\u2028', r == '\u2029', r == '\u061c', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// needsEscape reports whether Escape changes s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || escaped(r) {
			return true
		}
		i += n
	}
	return false
}

// Escape returns s with each character that could break a line of output
// or act on a terminal written as its Go escape: "\n", "\r", "\t",
// "\x1b", "\u0085", "\u202e"; a byte that is no UTF-8 as "\x9b". Other
// text, a backslash included, is kept as it is, so that an ordinary name
// reads the same. The tool's messages pass every name, path and value of
// a repository through it (or through Name) before they print it.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(s[i])&0xf, 16))
		case escaped(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Name is a name (a table, a column, a view, a path, a key) as a message
// shows it: as it is when Escape would keep it, else Go-quoted ("a\nb"),
// so that the reader sees where it starts and ends.
func Name(s string) string {
	if !needsEscape(s) {
		return s
	}
	return strconv.Quote(s)
}

// Lines is implemented by an error whose message is several lines of the
// tool's own (a list of reasons, one a line): Error() is Lines() joined by
// "\n".
type Lines interface {
	Lines() []string
}

// Message is err's message to print: escaped (Escape), so one line, but
// where err is, or wraps at the end of its message, an error made of
// Lines: those keep their line breaks, each line escaped.
func Message(err error) string {
	msg := err.Error()
	var ml Lines
	if errors.As(err, &ml) {
		lines := ml.Lines()
		whole := strings.Join(lines, "\n")
		if len(lines) > 1 && strings.HasSuffix(msg, whole) {
			out := make([]string, len(lines))
			out[0] = Escape(msg[:len(msg)-len(whole)] + lines[0])
			for i, l := range lines[1:] {
				out[i+1] = Escape(l)
			}
			return strings.Join(out, "\n")
		}
	}
	return Escape(msg)
}
