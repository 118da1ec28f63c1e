package compare

import (
	"context"
	"slices"
	"testing"
)

// TestColumnsVerdictOnce: the refusal of a table's columns is made once
// per table and columns epoch (columnsVerdictOf), and at every snapshot
// it is what columnsRefusal, defaultCastRefusal and the names' clash
// tell of the columns visible there: also where a column added later is
// refused (its type does not parse) and the earlier epochs are not, where
// a column's initial_default does not cast to its type, and where two
// columns' names are one in any letter case.
func TestColumnsVerdictOnce(t *testing.T) {
	ctx := context.Background()
	type tampered struct {
		stmt  string
		quirk string // the refusal of some snapshots ("": some clash)
	}
	for _, tc := range []struct {
		name  string
		edits []tampered // each a catalog of its own, beside the lake's
	}{
		{"02_add_drop_columns", []tampered{{"UPDATE ducklake_column SET column_type = 'bogus' WHERE parent_column IS NULL AND (table_id, begin_snapshot) IN (SELECT table_id, max(begin_snapshot) FROM ducklake_column GROUP BY table_id HAVING max(begin_snapshot) > min(begin_snapshot))", refusedType.Name}}},
		{"04_type_promotion", nil},
		// As TestUncastableDefaultsRefused's "1.0 initial_default".
		{"05_defaults_not_null", []tampered{{"UPDATE ducklake_column SET initial_default = 'abc' WHERE table_id = 4 AND column_id = 1", refusedDefaultCast.Name}}},
		// As TestCatalogLoadFailures' "columns named alike in any case".
		{"06_deletes", []tampered{{"UPDATE ducklake_column SET column_name = 'ID' WHERE column_name = 'v'", ""}}},
		{"17_compaction", nil},
	} {
		name := tc.name
		lake, catalog := lastVersion(t, "lakes", name)
		cats := []string{catalog}
		for _, e := range tc.edits {
			cats = append(cats, tamper(t, catalog, e.stmt))
		}
		for i, c := range cats {
			r := openForTest(t, c, lake)
			pairs, refused, clashed, epochs := 0, 0, 0, map[[2]int64]bool{}
			eachTable(t, r, func(s Snapshot, tb Table) {
				cols, err := r.Columns(ctx, tb.ID, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				got, err := r.columnsVerdictOf(ctx, tb, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				var want columnsVerdict
				if want.q, want.what = r.columnsRefusal(cols); want.what == "" {
					if want.q, want.what, err = r.defaultCastRefusal(ctx, cols); err != nil {
						t.Fatal(err)
					}
				}
				if want.what == "" {
					want.clash = columnNamesClash(cols)
				}
				if got.what != want.what || got.q.Name != want.q.Name || got.clash != want.clash {
					t.Errorf("%s: table %s at snapshot %d: %+v, want %+v", name, tb.Shown(), s.ID, got, want)
				}
				e, err := r.epoch(ctx, s.ID, tb.ID, columnsEpoch...)
				if err != nil {
					t.Fatal(err)
				}
				epochs[[2]int64{tb.ID, e}] = true
				pairs++
				if want.what != "" && (i == 0 || want.q.Name == tc.edits[i-1].quirk) {
					refused++
				}
				if want.clash != "" {
					clashed++
				}
			})
			if n := keptWith(r, func(ec *epochColumns) bool { return ec.verdict != nil }); n != len(epochs) || len(epochs) >= pairs {
				t.Errorf("%s: %d verdicts made for %d epochs of %d tables at snapshots", name, n, len(epochs), pairs)
			}
			switch {
			case i == 0 && (refused > 0 || clashed > 0):
				t.Errorf("%s: %d of %d refused, %d clash, want none", name, refused, pairs, clashed)
			case i > 0 && tc.edits[i-1].quirk != "" && (refused == 0 || refused == pairs):
				t.Errorf("%s tampered (%s): %d of %d refused as %s, want some", name, tc.edits[i-1].stmt, refused, pairs, tc.edits[i-1].quirk)
			case i > 0 && tc.edits[i-1].quirk == "" && (clashed == 0 || clashed == pairs):
				t.Errorf("%s tampered (%s): %d of %d clash, want some", name, tc.edits[i-1].stmt, clashed, pairs)
			}
		}
	}
}

// TestRowColumnsOnce: the names and types a digest hashes are made once
// per table, columns epoch and row-id option (rowColumns), and at every
// snapshot are those of the columns visible there; an append to them
// leaves the kept ones alone.
func TestRowColumnsOnce(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"02_add_drop_columns", "03_renames", "04_type_promotion"} {
		lake, catalog := lastVersion(t, "lakes", name)
		r := openForTest(t, catalog, lake)
		pairs := 0
		eachTable(t, r, func(s Snapshot, tb Table) {
			for _, rowIDs := range []bool{false, true} {
				opts := ScanOptions{RowIDs: rowIDs}
				cols, names, types, err := r.rowColumns(ctx, tb, s.ID, opts)
				if err != nil {
					t.Fatal(err)
				}
				var wantNames, wantTypes []string
				for _, c := range cols {
					dt, err := c.DuckType()
					if err != nil {
						t.Fatal(err)
					}
					wantNames, wantTypes = append(wantNames, c.Name), append(wantTypes, dt)
				}
				if rowIDs {
					wantNames, wantTypes = append(wantNames, RowIDColumn), append(wantTypes, "BIGINT")
				}
				if !slices.Equal(names, wantNames) || !slices.Equal(types, wantTypes) {
					t.Errorf("%s: table %s at snapshot %d (row ids %v): %v %v, want %v %v", name, tb.Shown(), s.ID, rowIDs, names, types, wantNames, wantTypes)
				}
				// Two callers' appends do not share a backing array.
				if x, y := append(names, "x"), append(names, "y"); x[len(names)] != "x" || y[len(names)] != "y" {
					t.Errorf("%s: table %s: appends to the kept names share their array", name, tb.Shown())
				}
				pairs++
			}
		})
		n := 0
		for _, rowIDs := range []int{0, 1} {
			n += keptWith(r, func(ec *epochColumns) bool { return ec.rows[rowIDs] != nil })
		}
		if n == 0 || n >= pairs {
			t.Errorf("%s: %d kept for %d asks", name, n, pairs)
		}
	}
}

// keptWith counts the reader's columns entries that keep what has asks.
func keptWith(r *Reader, has func(*epochColumns) bool) int {
	n := 0
	for _, ec := range r.meta.columns {
		if has(ec) {
			n++
		}
	}
	return n
}
