package compare

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestTypeNamesFoldASCIIOnly: DuckLake's readers (every release line)
// match a column_type against their type names with StringUtil::CIEquals,
// equal in ASCII letter case only. A name equal to one only in Go's
// Unicode folding (U+017F, the long s, folds to "s") is a type they cannot
// parse: a column of "ſtruct" with fields fails the load ("Unrecognized
// nested type"), one of "jſon" too ("unsupported type"). Before, the
// proof folded with strings.EqualFold: it took the first for a struct and
// the second for a type its format holds, and failed to compare both
// (an error, "unexpected type ſtruct" and "unsupported"), not naming what
// the readers refuse.
func TestTypeNamesFoldASCIIOnly(t *testing.T) {
	for _, tc := range []struct {
		name, lake, stmt, want string
	}{
		{"struct with a long s", "12_nested_types", `UPDATE ducklake_column SET column_type = 'ſtruct' WHERE lower(column_type) = 'struct'`,
			`has fields but type "ſtruct"`},
		{"json with a long s", "06_deletes", `UPDATE ducklake_column SET column_type = 'jſon' WHERE column_name = 'v'`,
			`has type "jſon", which format 1.0 readers cannot parse`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", tc.lake)
			opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
			a, b := tamper(t, catalog, tc.stmt), tamper(t, catalog, tc.stmt)
			rep, err := Catalogs(context.Background(), a, b, opts)
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "unreadable", tc.want) {
				t.Fatalf("Catalogs: %v, want an unreadable difference naming %q\n%s", err, tc.want, reportLines(rep))
			}
		})
	}
}
