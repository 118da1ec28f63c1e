package compare

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestFooterNamesFoldASCIIOnly: DuckDB matches a Parquet file's columns to
// a name mapping's sources and union_by_name's names by StringUtil::CIEquals,
// which folds ASCII letters only. A footer with "É" (or "ſ", the long s, or
// "K", the Kelvin sign) holds no column "é" (or "s", "k"), though Go's
// strings.EqualFold takes them for one; "A" and "a" stay one name. The
// same holds for a name mapping's source path against a column's names.
func TestFooterNamesFoldASCIIOnly(t *testing.T) {
	for _, c := range []struct {
		footer, want string
		found        bool
	}{
		{"É", "é", false},
		{"ſ", "s", false},
		{"\u212a", "k", false},
		{"A", "a", true},
		{"Ab_c", "aB_C", true},
	} {
		root := &pnode{Kind: "struct"}
		root.setChildren([]*pnode{{Name: c.footer, Kind: "leaf"}})
		if got := root.childByName(c.want) != nil; got != c.found {
			t.Errorf("childByName(%q) in a footer holding %q: found %v, want %v", c.want, c.footer, got, c.found)
		}
		if found, known := footerField(root, []string{c.want}); found != c.found || !known {
			t.Errorf("footerField(%q) in a footer holding %q: found %v (known %v), want %v", c.want, c.footer, found, known, c.found)
		}
		path := []*mapEntry{{source: "Outer"}, {source: c.footer}}
		if got := sourcesAre(path, []string{"outer", c.want}); got != c.found {
			t.Errorf("sourcesAre(Outer.%s, outer.%s) = %v, want %v", c.footer, c.want, got, c.found)
		}
	}
}

// TestDynamicNameFoldsASCIIOnly: DuckDB binds a table name in ASCII
// letter case only, so a catalog table "ducKlake_inlined_delete_5" (with
// the Kelvin sign) is not the inlined delete table
// "ducklake_inlined_delete_5", while "DuckLake_Inlined_Delete_5" is; both
// before the name index is built (init) and after.
func TestDynamicNameFoldsASCIIOnly(t *testing.T) {
	for _, c := range []struct {
		stored string
		found  bool
	}{
		{"duc\u212alake_inlined_delete_5", false},
		{"DuckLake_Inlined_Delete_5", true},
	} {
		r := &Reader{dynamic: map[string][]string{c.stored: nil}}
		if _, ok := r.dynamicName("ducklake_inlined_delete_5"); ok != c.found {
			t.Errorf("in init, with %q stored: found %v, want %v", c.stored, ok, c.found)
		}
		r.dynamicOf = map[string]string{}
		for n := range r.dynamic {
			r.dynamicOf[dynamicKey(n)] = n
		}
		if _, ok := r.dynamicName("ducklake_inlined_delete_5"); ok != c.found {
			t.Errorf("indexed, with %q stored: found %v, want %v", c.stored, ok, c.found)
		}
	}
}

// TestInlinedColumnNamesFoldASCIIOnly: DuckLake's readers select an inlined
// data table's columns by name, which DuckDB binds in ASCII letter case
// only, so a further column "K" (the Kelvin sign) or "begin_ſnapshot"
// (the long s) of the table is not its column k or its begin_snapshot,
// though strings.ToLower and strings.EqualFold take them for one. A B
// whose inlined table holds A's values in such a column and other values
// in the one the readers read differs from A. Before, the proof read the
// look-alike column (the last of equal names) in B and found B equivalent.
func TestInlinedColumnNamesFoldASCIIOnly(t *testing.T) {
	const tbl = "ducklake_inlined_data_1_4"
	for _, tc := range []struct {
		name  string
		stmts []string
	}{
		{"a user column", []string{
			`ALTER TABLE ` + tbl + ` ADD COLUMN "` + "\u212a" + `" DOUBLE`,
			`UPDATE ` + tbl + ` SET "` + "\u212a" + `" = k, k = k + 1000`,
		}},
		{"a system column", []string{
			`ALTER TABLE ` + tbl + ` ADD COLUMN "begin_` + "\u017f" + `napshot" BIGINT`,
			`UPDATE ` + tbl + ` SET "begin_` + "\u017f" + `napshot" = begin_snapshot, begin_snapshot = begin_snapshot + 1`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake, a := lastVersion(t, "lakes", "16_data_inlining")
			opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
			b := tamper(t, a, tc.stmts...)
			rep, err := Catalogs(context.Background(), a, b, opts)
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "rows", "rows differ") {
				t.Fatalf("Catalogs: %v, want B's rows to differ\n%s", err, reportLines(rep))
			}
		})
	}
}
