package compare

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestEpochAnswersMatchDirectReads walks every snapshot of the newest version of
// each conformance lake, in both directions, and requires the answers
// kept by epoch (tables, columns, data and delete files, the schema
// description) to equal what a direct read at that very snapshot returns.
// The lakes hold drops, renames, type changes, tags, views, macros,
// compactions and partial files: a change point missed by the epochs shows
// up as a stale answer here. The tables and the schemas' entries are those
// the queries per snapshot return (checkTablesMatchSQL: renamed and
// dropped schemas and tables, table paths, every format) at every
// snapshot, one before the first and one past the last.
func TestEpochAnswersMatchDirectReads(t *testing.T) {
	ctx := context.Background()
	archives := []string{"lakes", "lakes-0.3", "lakes-1.1-dev1", "lakes-0.3-compaction", "migrations"}
	engines := testEngines(t)
	for _, archive := range archives {
		t.Run(archive, func(t *testing.T) {
			lakes := testlakes.Lakes(t, archive)
			if len(lakes) == 0 {
				t.Fatalf("no lakes in %s", archive)
			}
			for _, lake := range lakes {
				name := filepath.Base(lake)
				if name == "zz_storage_v2_unreadable" {
					continue
				}
				// The newest version holds every snapshot of the lake.
				cats, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
				slices.Sort(cats)
				if len(cats) > 1 {
					cats = cats[len(cats)-1:]
				}
				more, _ := filepath.Glob(filepath.Join(lake, "*.duckdb"))
				for i, cat := range append(cats, more...) {
					t.Run(name+"/"+filepath.Base(filepath.Dir(cat)), func(t *testing.T) {
						t.Parallel() // a reader of its own on a catalog it only reads
						// The newest version's catalog must open.
						checkEpochs(ctx, t, cat, filepath.Join(lake, "data"), engines, i < len(cats))
					})
				}
			}
		})
	}
}

func checkEpochs(ctx context.Context, t *testing.T, catalog, data string, engines *Engines, mustOpen bool) {
	r, err := Open(ctx, catalog, ReaderOptions{DataPath: data, Engines: engines})
	if err != nil {
		if mustOpen {
			t.Fatal(err)
		}
		t.Skipf("not a readable catalog: %v", err) // other tests cover unreadable ones
	}
	defer r.Close()
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every snapshot once: the even ones forwards, then the odd ones
	// backwards, so that answers are asked for in both directions.
	var order, odd []int64
	for i, s := range snaps {
		if i%2 == 0 {
			order = append(order, s.ID)
		} else {
			odd = append(odd, s.ID)
		}
	}
	slices.Reverse(odd)
	for _, s := range append(order, odd...) {
		if err := sameAsDirect(ctx, r, s); err != nil {
			t.Fatalf("%s snapshot %d: %v", catalog, s, err)
		}
	}
	// Then, in order, one before the first and one past the last too.
	for _, s := range snapshotIDsAround(snaps) {
		if err := tablesMatchSQLAt(ctx, r, s); err != nil {
			t.Errorf("%s: %v", catalog, err)
		}
	}
}

// keptMatchesRead compares an answer kept by epoch with a direct read.
func keptMatchesRead[T any](what string, kept, read func() (T, error)) error {
	k, err := kept()
	if err != nil {
		return err
	}
	d, err := read()
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(k, d) {
		return fmt.Errorf("%s: kept %v, read %v", what, k, d)
	}
	return nil
}

// schemaEntriesBySQL is readSchemaEntries with the partition specs', tags',
// views' and macros' rows those visible at the snapshot by SQL (visible),
// not all of them filtered in Go (visibleRow): both must describe the same.
func schemaEntriesBySQL(ctx context.Context, r *Reader, s int64) (entries, error) {
	x := schemaExtras{parts: []partRow{}, colTags: []tagRow{}, tags: []tagRow{}, views: []viewRow{}, macros: []macroRow{}}
	var err error
	if !r.empty("ducklake_partition_column") && !r.empty("ducklake_partition_info") {
		if x.parts, err = r.readPartitionRows(ctx, visible("i", s)); err != nil {
			return nil, err
		}
	}
	if !r.empty("ducklake_column_tag") {
		if x.colTags, err = r.readTagRows(ctx, true, visible("x", s)); err != nil {
			return nil, err
		}
	}
	if !r.empty("ducklake_tag") {
		if x.tags, err = r.readTagRows(ctx, false, visible("x", s)); err != nil {
			return nil, err
		}
	}
	if !r.empty("ducklake_view") {
		if x.views, err = r.readViewRows(ctx, visible("v", s)); err != nil {
			return nil, err
		}
	}
	if !r.empty("ducklake_macro") && !r.empty("ducklake_macro_impl") {
		if x.macros, err = r.readMacroRows(ctx, visible("m", s)); err != nil {
			return nil, err
		}
	}
	kept := r.meta.extras
	r.meta.extras = x
	defer func() { r.meta.extras = kept }()
	return r.readSchemaEntries(ctx, s)
}

func sameAsDirect(ctx context.Context, r *Reader, s int64) error {
	if err := keptMatchesRead("schema description",
		func() (entries, error) { return r.schemaEntries(ctx, s) },
		func() (entries, error) { return schemaEntriesBySQL(ctx, r, s) }); err != nil {
		return err
	}
	tables, err := r.Tables(ctx, s)
	if err != nil {
		return err
	}
	// Every table's data files (and their delete files) visible at s, by
	// table, in one query.
	filesBySQL := map[int64][]string{}
	err = r.eachRow(ctx, fmt.Sprintf(`SELECT d.table_id, d.data_file_id::VARCHAR || ':' || coalesce((SELECT x.delete_file_id::VARCHAR FROM cat.ducklake_delete_file x
		WHERE x.data_file_id = d.data_file_id AND x.table_id = d.table_id AND %[1]s), '-')
		FROM cat.ducklake_data_file d WHERE %[2]s ORDER BY d.table_id, d.data_file_id`, visible("x", s), visible("d", s)), func(rows *sql.Rows) error {
		var id int64
		var f string
		if err := rows.Scan(&id, &f); err != nil {
			return err
		}
		filesBySQL[id] = append(filesBySQL[id], f)
		return nil
	})
	if err != nil {
		return err
	}
	for _, tb := range tables {
		if err := keptMatchesRead("columns of "+tb.FullName(),
			func() ([]*Column, error) { return r.Columns(ctx, tb.ID, s) },
			func() ([]*Column, error) { return r.readColumns(ctx, tb.ID, s, false) }); err != nil {
			return err
		}
		if err := keptMatchesRead("files of "+tb.FullName(),
			func() ([]string, error) {
				files, err := r.Files(ctx, tb, s)
				var ids []string
				for _, f := range files {
					d := "-"
					if f.Delete != nil {
						d = fmt.Sprint(f.Delete.ID)
					}
					ids = append(ids, fmt.Sprintf("%d:%s", f.ID, d))
				}
				return ids, err
			},
			func() ([]string, error) { return filesBySQL[tb.ID], nil }); err != nil {
			return err
		}
	}
	return nil
}
