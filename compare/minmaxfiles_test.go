package compare

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestScannedMinMaxByFile checks scannedMinMax, which reads a table's
// min/max file by file (kept per read plan) and combines them, against
// one scan of the whole table, for every folded column (VARCHAR too,
// which DuckDB 2.0 folds) of every table at every snapshot of each
// conformance lake's newest version (deletes, partial files, inlined rows,
// renames, type promotion, nested columns beside), read twice: the second
// answer comes from the kept per-file answers.
func TestScannedMinMaxByFile(t *testing.T) {
	ctx := context.Background()
	everySnapshot := map[string]bool{"lakes-0.3-compaction": true, "lakes/06_deletes": true, "lakes/07_updates_merge": true,
		"lakes/17_compaction": true, "lakes/20_time_travel": true, "lakes-1.1-dev1/24_deletion_vectors": true}
	engines := readerDBs
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1", "lakes-0.3-compaction"} {
		for _, lake := range testlakes.Lakes(t, archive) {
			name := filepath.Base(lake)
			if name == "zz_storage_v2_unreadable" {
				continue
			}
			t.Run(archive+"/"+name, func(t *testing.T) {
				m := readManifest(t, lake)
				v := m.Versions[len(m.Versions)-1]
				r, err := Open(ctx, filepath.Join(lake, "versions", v.ID, "ducklake.duckdb"), ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: engines})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				snaps, err := r.Snapshots(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !everySnapshot[archive] && !everySnapshot[archive+"/"+name] {
					// The proof asks only at the latest snapshot; the lakes
					// below keep the states in between (deletes, partial and
					// merged files) covered.
					snaps = snaps[len(snaps)-1:]
				}
				checked := 0
				wholes := map[string]map[int64]minMax{}
				for _, s := range snaps {
					tables, err := r.Tables(ctx, s.ID)
					if err != nil {
						t.Fatal(err)
					}
					for _, tb := range tables {
						cols, err := r.Columns(ctx, tb.ID, s.ID)
						if err != nil {
							t.Fatal(err)
						}
						var need []*Column
						for _, c := range cols {
							if dt, err := c.DuckType(); err == nil && len(c.Children) == 0 && (foldedTypes[dt] || dt == foldedString || strings.HasPrefix(dt, "DECIMAL(")) {
								need = append(need, c)
							}
						}
						if len(need) == 0 {
							continue
						}
						want, err := wholeMinMax(ctx, r, tb, s.ID, need, wholes)
						if err != nil {
							if _, ok := AsUnreadable(err); ok {
								continue
							}
							t.Fatalf("snapshot %d, %s: %v", s.ID, tb.FullName(), err)
						}
						for round := 0; round < 2; round++ {
							got, err := r.scannedMinMax(ctx, tb, s.ID, need)
							if err != nil {
								t.Fatalf("snapshot %d, %s: %v", s.ID, tb.FullName(), err)
							}
							for _, c := range need {
								if got[c.ID] != want[c.ID] {
									t.Errorf("snapshot %d, %s, column %s (round %d): by file %v, whole %v", s.ID, tb.FullName(), c.Name, round, got[c.ID], want[c.ID])
								}
							}
						}
						checked++
					}
				}
				t.Logf("%d tables x snapshots", checked)
			})
		}
	}
}

// wholeMinMax is min and max of cols in one scan of the table's rows,
// kept by query in kept: the same query reads the same rows (a table
// unchanged since an earlier snapshot is not scanned again).
func wholeMinMax(ctx context.Context, r *Reader, t Table, snap int64, cols []*Column, kept map[string]map[int64]minMax) (map[int64]minMax, error) {
	if err := r.refusal(ctx, t, snap); err != nil {
		return nil, err
	}
	q, err := r.Query(ctx, t, snap, ScanOptions{})
	if err != nil {
		return nil, err
	}
	sel := make([]string, 0, 2*len(cols))
	for _, c := range cols {
		sel = append(sel, fmt.Sprintf("min(%[1]s)::VARCHAR, max(%[1]s)::VARCHAR", ident(c.Name)))
	}
	vals := make([]sql.NullString, 2*len(cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	whole := "SELECT " + strings.Join(sel, ", ") + " FROM (" + q + ") t"
	key := fmt.Sprint(whole, "\x00", colIDs(cols))
	if out, ok := kept[key]; ok {
		return out, nil
	}
	if err := r.conn.QueryRowContext(ctx, whole).Scan(ptrs...); err != nil {
		return nil, err
	}
	out := map[int64]minMax{}
	for i, c := range cols {
		out[c.ID] = minMax{min: textOr(nullString(vals[2*i])), max: textOr(nullString(vals[2*i+1]))}
	}
	kept[key] = out
	return out, nil
}

// colIDs is the ids of cols, in order.
func colIDs(cols []*Column) []int64 {
	out := make([]int64, len(cols))
	for i, c := range cols {
		out[i] = c.ID
	}
	return out
}

// TestScannedMinMaxKeptPerFile: a second reader of the same lake (another
// version, format or run) with the digest cache finds each data file's
// min/max under its read plan and scans nothing; before, every proof that
// needed a scan of min/max read the whole table again.
func TestScannedMinMaxKeptPerFile(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "05_defaults_not_null")
	store := memStore{}
	var first map[int64]minMax
	for round := 0; round < 2; round++ {
		r, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(lake, "data"), DigestCache: store, Engines: readerDBs})
		if err != nil {
			t.Fatal(err)
		}
		snaps, err := r.Snapshots(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s := latestSnapshot(snaps)
		tb := Table{ID: 1}
		tables, err := r.Tables(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range tables {
			if x.ID == 1 {
				tb = x
			}
		}
		cols, err := r.Columns(ctx, tb.ID, s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.scannedMinMax(ctx, tb, s, cols[:1])
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			first = got
		} else {
			if r.scans != 0 {
				t.Errorf("the second reader scanned %d times, want 0 (every file's min/max kept)", r.scans)
			}
			if got[cols[0].ID] != first[cols[0].ID] {
				t.Errorf("kept answer %v, first %v", got[cols[0].ID], first[cols[0].ID])
			}
		}
		t.Logf("round %d: %v, %d scans", round, got[cols[0].ID], r.scans)
		r.Close()
	}
}
