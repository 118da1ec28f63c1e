package formats

import "testing"

func TestViewSQLHasCatalogPlaceholder(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want bool
	}{
		{"SELECT i, j FROM {DUCKLAKE_CATALOG}.main.base", true},
		{"SELECT * FROM {DUCKLAKE_CATALOG}.t JOIN {DUCKLAKE_CATALOG}.s.u USING (k)", true},
		{"SELECT i FROM base", false},
		{"SELECT '{DUCKLAKE_CATALOG}.x' AS s", false},                // a string constant
		{"SELECT 'it''s {DUCKLAKE_CATALOG}.x' AS s", false},          // '' inside a string
		{`SELECT E'\' {DUCKLAKE_CATALOG}.x' AS s`, false},            // backslash escape in E''
		{`SELECT "{DUCKLAKE_CATALOG}.x" FROM t`, false},              // a quoted identifier
		{`SELECT """{DUCKLAKE_CATALOG}.x" FROM t`, false},            // "" inside an identifier
		{"SELECT $$ {DUCKLAKE_CATALOG}.x $$ AS s", false},            // dollar quoting
		{"SELECT $q$ {DUCKLAKE_CATALOG}.x $q$ AS s", false},          // tagged dollar quoting
		{"SELECT 1 -- {DUCKLAKE_CATALOG}.x\n", false},                // a line comment
		{"SELECT 1 /* /* {DUCKLAKE_CATALOG}.x */ */", false},         // nested block comments
		{"SELECT 1 /* c */ FROM {DUCKLAKE_CATALOG}.t", true},         // after a comment
		{"SELECT 'a' FROM {DUCKLAKE_CATALOG}.t WHERE s = 'b'", true}, // between strings
		{"SELECT {ducklake_catalog}.t", false},                       // replaced case-sensitively only
		{"SELECT * FROM {DUCKLAKE_CATALOG} .t", false},               // the dot belongs to it
		{"SELECT $1 FROM {DUCKLAKE_CATALOG}.t", true},                // $1 is no dollar quote
		{"SELECT a$b FROM {DUCKLAKE_CATALOG}.t", true},               // $ inside an identifier
		{"SELECT 'unterminated {DUCKLAKE_CATALOG}.t", false},         // no string end
	} {
		if got := ViewSQLHasCatalogPlaceholder(tc.sql); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.sql, got, tc.want)
		}
	}
}
