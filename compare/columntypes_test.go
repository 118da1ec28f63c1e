package compare

import (
	"context"
	"path/filepath"
	"testing"
)

// TestHasColumnOfType: check reads a frozen catalog's footers for a footer
// quirk only when the catalog has (or had) a column of the quirk's types
// (formats.FooterQuirk.ColumnTypes); a catalog without a VARIANT column
// had every data file's footer read for the VARIANT quirks of format 1.0
// (through a remote store: every data file downloaded before the proofs).
func TestHasColumnOfType(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lake  string
		types []string
		want  bool
	}{
		{"13_variant", []string{"variant"}, true},
		{"06_deletes", []string{"variant"}, false},
		{"01_primitive_types", []string{"decimal"}, true}, // DECIMAL(4,1) and others, by their name
		{"01_primitive_types", []string{"variant", "decimal"}, true},
		{"01_primitive_types", []string{"dec"}, false}, // a name, not a prefix
		{"06_deletes", nil, false},
	} {
		lake, catalog := lastVersion(t, "lakes", c.lake)
		r := openForTest(t, catalog, filepath.Join(lake, "data"))
		got, err := r.HasColumnOfType(context.Background(), c.types...)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s has a column of %v: %t, want %t", c.lake, c.types, got, c.want)
		}
	}
}
