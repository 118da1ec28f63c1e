package oneline

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestFirstAndBrief(t *testing.T) {
	for _, tc := range []struct {
		in          string
		n           int
		first, want string
	}{
		{"", 5, "", ""},
		{"one line", 20, "one line", "one line"},
		{"first\nsecond", 20, "first", "first"},
		{"a long first line\nsecond", 6, "a long first line", "a long…"},
	} {
		if got := First(tc.in); got != tc.first {
			t.Errorf("First(%q) = %q, want %q", tc.in, got, tc.first)
		}
		if got := Brief(tc.in, tc.n); got != tc.want {
			t.Errorf("Brief(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want, name string }{
		{"orders", "orders", "orders"},
		{`a\nb "q" é`, `a\nb "q" é`, `a\nb "q" é`}, // a backslash, quotes, letters: kept
		{"t\n::error::forged", `t\n::error::forged`, `"t\n::error::forged"`},
		{"a\r\tb\x1b[2J\x7f", `a\r\tb\x1b[2J\x7f`, `"a\r\tb\x1b[2J\x7f"`},
		{"c1\u009b31m\u0085", `c1\u009b31m\u0085`, `"c1\u009b31m\u0085"`},
		{"ls\u2028ps\u2029bidi\u202eok\u2066", `ls\u2028ps\u2029bidi\u202eok\u2066`, `"ls\u2028ps\u2029bidi\u202eok\u2066"`},
		{"bad\x9bbyte\xff", `bad\x9bbyte\xff`, `"bad\x9bbyte\xff"`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if got := Name(tc.in); got != tc.name {
			t.Errorf("Name(%q) = %s, want %s", tc.in, got, tc.name)
		}
	}
}

type linesError []string

func (e linesError) Error() string   { return strings.Join(e, "\n") }
func (e linesError) Lines() []string { return e }

func TestMessage(t *testing.T) {
	list := linesError{"refused, 2 reasons:", "  - view v\n::error::forged", "  - table \x1b[2J"}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.New("plain"), "plain"},
		// DuckDB's errors add lines of their own: one line.
		{errors.New("Binder Error: x\n::error::forged\n\nLINE 1: SELECT"), `Binder Error: x\n::error::forged\n\nLINE 1: SELECT`},
		{list, "refused, 2 reasons:\n  - view v\\n::error::forged\n  - table \\x1b[2J"},
		{fmt.Errorf("backfill\r: %w", list), "backfill\\r: refused, 2 reasons:\n  - view v\\n::error::forged\n  - table \\x1b[2J"},
		// Not at the end of the message: one line.
		{fmt.Errorf("%w (then more)", list), `refused, 2 reasons:\n  - view v\n::error::forged\n  - table \x1b[2J (then more)`},
	} {
		if got := Message(tc.err); got != tc.want {
			t.Errorf("Message(%q) =\n%s\nwant\n%s", tc.err.Error(), got, tc.want)
		}
	}
}
