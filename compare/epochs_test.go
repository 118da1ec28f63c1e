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
	engines := readerDBs
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
	// What the queries per snapshot return, asked for every snapshot up
	// front (one planning per query, not one per snapshot): none of them
	// touches what the reader keeps.
	around := snapshotIDsAround(snaps)
	direct, err := readDirect(ctx, r, around)
	if err != nil {
		t.Fatalf("%s: %v", catalog, err)
	}
	for _, s := range append(order, odd...) {
		if err := sameAsDirect(ctx, r, s, direct); err != nil {
			t.Fatalf("%s snapshot %d: %v", catalog, s, err)
		}
	}
	// Then, in order, one before the first and one past the last too.
	for _, s := range around {
		if err := tablesMatchSQLAt(ctx, r, s, direct.tables); err != nil {
			t.Errorf("%s: %v", catalog, err)
		}
	}
}

// directReads is what the direct reads of sameAsDirect and tablesMatchSQLAt
// found by SQL at each snapshot asked for (readDirect), and the rows of
// the schema description's extras tables read by SQL so far.
type directReads struct {
	tables tablesBySQLOf
	// files is every table's data files (and their delete files) visible
	// at a snapshot, by table, as "data_file_id:delete_file_id" ("-"
	// without one).
	files map[int64]map[int64][]string
	// rowSets is, by extras table and snapshot, the rowids of the table's
	// rows visible at the snapshot by SQL (visible): the rows a read
	// filtered by visible at the snapshot takes.
	rowSets map[string]map[int64]string
	// extras is what each read of an extras table filtered by visible
	// returned, by table and row set (rowSets): a read at another
	// snapshot with the same rows visible returns the same (the filter
	// is its only use of the snapshot).
	extras map[string]any
	// columnSets is, by snapshot and table, the rowids of the table's rows
	// of ducklake_column visible at the snapshot by SQL; columns is what
	// readColumns returned for a table and such a set (the visible rows
	// of the table are all it reads).
	columnSets map[int64]map[int64]string
	columns    map[string][]*Column
	// sorts and viewColTags are what the direct description read of
	// them first (read whole, the same at every snapshot).
	sorts       []sortRow
	viewColTags []tagRow
}

// extrasTables are the tables, with their alias in the reads of
// schemaEntriesBySQL, whose rows that description takes filtered by
// visible.
var extrasTables = map[string]string{"ducklake_partition_info": "i", "ducklake_column_tag": "x", "ducklake_tag": "x", "ducklake_view": "v", "ducklake_macro": "m"}

// readDirect reads by SQL, for each of snaps (in one query each), the
// tables and schemas visible (tablesBySQL, schemasBySQL), every table's
// visible data and delete files, and which rows of each extras table are
// visible.
func readDirect(ctx context.Context, r *Reader, snaps []int64) (*directReads, error) {
	d := &directReads{files: map[int64]map[int64][]string{}, rowSets: map[string]map[int64]string{}, extras: map[string]any{},
		columnSets: map[int64]map[int64]string{}, columns: map[string][]*Column{}}
	var err error
	if d.tables, err = readTablesBySQL(ctx, r, snaps); err != nil {
		return nil, err
	}
	err = r.eachRow(ctx, fmt.Sprintf(`SELECT q.snap, d.table_id, d.data_file_id::VARCHAR || ':' || coalesce((SELECT x.delete_file_id::VARCHAR FROM cat.ducklake_delete_file x
		WHERE x.data_file_id = d.data_file_id AND x.table_id = d.table_id AND %[1]s), '-')
		FROM %[3]s JOIN cat.ducklake_data_file d ON %[2]s ORDER BY q.snap, d.table_id, d.data_file_id`, visibleAtQ("x"), visibleAtQ("d"), snapsFrom(snaps)), func(rows *sql.Rows) error {
		var snap, id int64
		var f string
		if err := rows.Scan(&snap, &id, &f); err != nil {
			return err
		}
		if d.files[snap] == nil {
			d.files[snap] = map[int64][]string{}
		}
		d.files[snap][id] = append(d.files[snap][id], f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = r.eachRow(ctx, fmt.Sprintf(`SELECT q.snap, c.table_id, string_agg(c.rowid::VARCHAR, ',' ORDER BY c.rowid) FROM %s JOIN cat.ducklake_column c ON %s GROUP BY q.snap, c.table_id`,
		snapsFrom(snaps), visibleAtQ("c")), func(rows *sql.Rows) error {
		var snap, table int64
		var set string
		if err := rows.Scan(&snap, &table, &set); err != nil {
			return err
		}
		if d.columnSets[snap] == nil {
			d.columnSets[snap] = map[int64]string{}
		}
		d.columnSets[snap][table] = set
		return nil
	})
	if err != nil {
		return nil, err
	}
	for table, alias := range extrasTables {
		if r.empty(table) {
			continue
		}
		sets := map[int64]string{}
		err := r.eachRow(ctx, fmt.Sprintf(`SELECT q.snap, string_agg(%[1]s.rowid::VARCHAR, ',' ORDER BY %[1]s.rowid) FROM %[2]s JOIN cat.%[3]s %[1]s ON %[4]s GROUP BY q.snap`,
			alias, snapsFrom(snaps), table, visibleAtQ(alias)), func(rows *sql.Rows) error {
			var snap int64
			var set string
			if err := rows.Scan(&snap, &set); err != nil {
				return err
			}
			sets[snap] = set
			return nil
		})
		if err != nil {
			return nil, err
		}
		d.rowSets[table] = sets
	}
	return d, nil
}

// readColumns is r.readColumns of a table at s, read once per set of the
// table's columns visible (directReads.columnSets).
func (d *directReads) readColumns(ctx context.Context, r *Reader, table, s int64) ([]*Column, error) {
	key := fmt.Sprint(table, "\x00", d.columnSets[s][table])
	if cols, ok := d.columns[key]; ok {
		return cols, nil
	}
	cols, err := r.readColumns(ctx, table, s, false)
	if err != nil {
		return nil, err
	}
	d.columns[key] = cols
	return cols, nil
}

// readVisible is read(visible(alias, s)) of an extras table, read once per
// set of the table's rows visible (directReads.rowSets).
func readVisible[T any](d *directReads, table string, s int64, read func(where string) ([]T, error)) ([]T, error) {
	key := table + "\x00" + d.rowSets[table][s]
	if rows, ok := d.extras[key]; ok {
		return rows.([]T), nil
	}
	rows, err := read(visible(extrasTables[table], s))
	if err != nil {
		return nil, err
	}
	d.extras[key] = rows
	return rows, nil
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
// The rows of a table are read by SQL once for each set of them visible
// (readVisible), the sort hints and view column tags (read whole) once.
func schemaEntriesBySQL(ctx context.Context, r *Reader, s int64, d *directReads) (entries, error) {
	x := schemaExtras{parts: []partRow{}, colTags: []tagRow{}, tags: []tagRow{}, views: []viewRow{}, macros: []macroRow{}, sorts: d.sorts, viewColTags: d.viewColTags}
	var err error
	if !r.empty("ducklake_partition_column") && !r.empty("ducklake_partition_info") {
		if x.parts, err = readVisible(d, "ducklake_partition_info", s, func(where string) ([]partRow, error) { return r.readPartitionRows(ctx, where) }); err != nil {
			return nil, err
		}
	}
	if !r.empty("ducklake_column_tag") {
		if x.colTags, err = readVisible(d, "ducklake_column_tag", s, func(where string) ([]tagRow, error) { return r.readTagRows(ctx, true, where) }); err != nil {
			return nil, err
		}
	}
	if !r.empty("ducklake_tag") {
		if x.tags, err = readVisible(d, "ducklake_tag", s, func(where string) ([]tagRow, error) { return r.readTagRows(ctx, false, where) }); err != nil {
			return nil, err
		}
	}
	if !r.empty("ducklake_view") {
		if x.views, err = readVisible(d, "ducklake_view", s, func(where string) ([]viewRow, error) { return r.readViewRows(ctx, where) }); err != nil {
			return nil, err
		}
	}
	if !r.empty("ducklake_macro") && !r.empty("ducklake_macro_impl") {
		if x.macros, err = readVisible(d, "ducklake_macro", s, func(where string) ([]macroRow, error) { return r.readMacroRows(ctx, where) }); err != nil {
			return nil, err
		}
	}
	kept := r.meta.extras
	r.meta.extras = x
	defer func() {
		d.sorts, d.viewColTags = r.meta.extras.sorts, r.meta.extras.viewColTags
		r.meta.extras = kept
	}()
	return r.readSchemaEntries(ctx, s)
}

func sameAsDirect(ctx context.Context, r *Reader, s int64, d *directReads) error {
	if err := keptMatchesRead("schema description",
		func() (entries, error) { return r.schemaEntries(ctx, s) },
		func() (entries, error) { return schemaEntriesBySQL(ctx, r, s, d) }); err != nil {
		return err
	}
	tables, err := r.Tables(ctx, s)
	if err != nil {
		return err
	}
	filesBySQL := d.files[s]
	for _, tb := range tables {
		if err := keptMatchesRead("columns of "+tb.FullName(),
			func() ([]*Column, error) { return r.Columns(ctx, tb.ID, s) },
			func() ([]*Column, error) { return d.readColumns(ctx, r, tb.ID, s) }); err != nil {
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
