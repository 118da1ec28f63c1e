package compare

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
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

// TestFooterQuirksWithColumns: the proof of a 0.4 catalog B and check of a
// frozen one read footers for the VARIANT quirks only when the catalog has
// a VARIANT column; a quirk without column types stays.
func TestFooterQuirksWithColumns(t *testing.T) {
	t.Parallel()
	v04, err := formats.Lookup("0.4")
	if err != nil {
		t.Fatal(err)
	}
	all := v04.FooterQuirksOf(nil)
	for _, c := range []struct {
		lake    string
		variant bool
	}{{"13_variant", true}, {"06_deletes", false}} {
		lake, catalog := lastVersion(t, "lakes", c.lake)
		r := openForTest(t, catalog, filepath.Join(lake, "data"))
		got, err := r.FooterQuirksWithColumns(context.Background(), all)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, q := range got {
			names[q.Name] = true
		}
		for _, q := range all {
			want := q.ColumnTypes == nil || c.variant && slices.Contains(q.ColumnTypes, "variant")
			if names[q.Name] != want {
				t.Errorf("%s: quirk %s kept %t, want %t", c.lake, q.Name, names[q.Name], want)
			}
		}
		if !c.variant && len(got) == len(all) {
			t.Errorf("%s: every quirk of 0.4 kept (%d)", c.lake, len(all))
		}
	}
}
