package compare

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// openRead opens a catalog for the test (closed when it ends) and reads it
// whole, as a proof does before anything else.
func openRead(t *testing.T, catalog, data string) *Reader {
	t.Helper()
	ctx := context.Background()
	r := openForTest(t, catalog, data)
	if err := r.ReadEveryTable(ctx); err != nil {
		t.Fatal(err)
	}
	return r
}

// detach takes the catalog away from a reader: any later query of it
// fails, so what the reader still answers it answers from what it kept.
func detach(t *testing.T, r *Reader) {
	t.Helper()
	if _, err := r.conn.ExecContext(context.Background(), "DETACH cat"); err != nil {
		t.Fatal(err)
	}
}

// queryLog turns on DuckDB's query log of a reader's database and returns
// a function that gives, and then forgets, the statements run since.
func queryLog(t *testing.T, r *Reader) func() []string {
	t.Helper()
	ctx := context.Background()
	// The log starts empty, and is off again before the reader gives its
	// database back (readerDBs).
	if _, err := r.conn.ExecContext(ctx, "CALL enable_logging('QueryLog'); CALL truncate_duckdb_logs()"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := r.conn.ExecContext(ctx, "CALL disable_logging(); CALL truncate_duckdb_logs()"); err != nil {
			t.Errorf("query log left on: %v", err)
		}
	})
	return func() []string {
		t.Helper()
		var out []string
		err := r.eachRow(ctx, "SELECT message FROM duckdb_logs() WHERE type = 'QueryLog' AND NOT contains(message, 'duckdb_logs')", func(rows *sql.Rows) error {
			var m string
			if err := rows.Scan(&m); err != nil {
				return err
			}
			// The optimizer switched off and on around a plain read
			// (plainQuery) is not a read.
			if m = strings.TrimSpace(m); m != optimizerOff && m != optimizerOn {
				out = append(out, m)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.conn.ExecContext(ctx, "CALL truncate_duckdb_logs()"); err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// TestBookkeepingReadWithEveryTable: after ReadEveryTable, Bookkeeping
// answers from what that pass read (no query: the catalog is detached),
// exactly what its own queries answer on a fresh reader, rules broken or
// not; a snapshot column that is not a BIGINT (an inlined data table's:
// a metadata table's is refused when the catalog is opened,
// formats.TypeDiffs) is left to those queries, whose cast says what it
// always said.
func TestBookkeepingReadWithEveryTable(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	inlinedLake, inlinedCatalog := lastVersion(t, "lakes", "16_data_inlining")
	for _, tc := range []struct {
		name      string
		catalog   func(t *testing.T) string
		data      string
		queries   bool   // Bookkeeping must still query the catalog
		wantError string // both readers' error contains it
		check     func(t *testing.T, b *Bookkeeping)
	}{
		{name: "as written", catalog: func(*testing.T) string { return catalog }, data: lake, check: func(t *testing.T, b *Bookkeeping) {
			if len(b.Snapshots) == 0 || len(b.Later) != 0 || len(b.Inlined) != 0 {
				t.Errorf("bookkeeping %+v, want snapshots and no breach", b)
			}
		}},
		{name: "inlined rows", catalog: func(*testing.T) string { return inlinedCatalog }, data: inlinedLake, check: func(t *testing.T, b *Bookkeeping) {
			if len(b.Inlined) == 0 {
				t.Errorf("bookkeeping %+v, want inlined rows", b)
			}
		}},
		{name: "rows after the last snapshot", catalog: func(t *testing.T) string {
			return tamper(t, catalog, "UPDATE ducklake_data_file SET end_snapshot = 1000 WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)",
				"UPDATE ducklake_column SET begin_snapshot = 999 WHERE column_id = (SELECT max(column_id) FROM ducklake_column)")
		}, data: lake, check: func(t *testing.T, b *Bookkeeping) {
			want := []SnapshotRef{{"ducklake_column", "begin_snapshot", 999}, {"ducklake_data_file", "end_snapshot", 1000}}
			if !reflect.DeepEqual(b.Later, want) {
				t.Errorf("later %+v, want %+v", b.Later, want)
			}
		}},
		{name: "a snapshot column of text", catalog: func(t *testing.T) string {
			// '9' sorts after '10' as text: the largest is 9, as the
			// cast after max() reads it.
			return tamper(t, inlinedCatalog, "ALTER TABLE ducklake_inlined_data_1_2 ALTER end_snapshot TYPE VARCHAR",
				"UPDATE ducklake_inlined_data_1_2 SET end_snapshot = '9' WHERE row_id = (SELECT min(row_id) FROM ducklake_inlined_data_1_2)")
		}, data: inlinedLake, queries: true, check: func(t *testing.T, b *Bookkeeping) {
			i := slices.IndexFunc(b.Later, func(s SnapshotRef) bool { return s.Table == "ducklake_inlined_data_1_2" && s.Column == "end_snapshot" })
			last, _ := b.Last()
			if (i >= 0) != (9 > last) {
				t.Errorf("later %+v (last snapshot %d)", b.Later, last)
			}
		}},
		{name: "a look-alike of an inlined table's snapshot column", catalog: func(t *testing.T) string {
			// "end_ſnapshot" (the long s) is another column to DuckDB,
			// which binds names in ASCII letter case only: the reader
			// does not read it, whatever it holds.
			return tamper(t, inlinedCatalog, "ALTER TABLE ducklake_inlined_data_1_2 ADD COLUMN \"end_ſnapshot\" BIGINT",
				"UPDATE ducklake_inlined_data_1_2 SET \"end_ſnapshot\" = 999")
		}, data: inlinedLake, check: func(t *testing.T, b *Bookkeeping) {
			if len(b.Later) != 0 {
				t.Errorf("later %+v, want none", b.Later)
			}
		}},
		{name: "a snapshot column that does not cast", catalog: func(t *testing.T) string {
			return tamper(t, inlinedCatalog, "ALTER TABLE ducklake_inlined_data_1_2 ALTER end_snapshot TYPE VARCHAR",
				"UPDATE ducklake_inlined_data_1_2 SET end_snapshot = 'never'")
		}, data: inlinedLake, queries: true, wantError: "read the bookkeeping of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.catalog(t)
			data := filepath.Join(tc.data, "data")
			fresh, err := Open(ctx, path, ReaderOptions{DataPath: data, Engines: readerDBs})
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			want, wantErr := fresh.Bookkeeping(ctx)
			r := openRead(t, path, data)
			if _, err := r.Snapshots(ctx); err != nil {
				t.Fatal(err)
			}
			if !tc.queries {
				detach(t, r)
			}
			got, err := r.Bookkeeping(ctx)
			if tc.wantError != "" {
				if err == nil || wantErr == nil || err.Error() != wantErr.Error() || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("errors %v and %v (fresh reader), want the same, naming %q", err, wantErr, tc.wantError)
				}
				return
			}
			if err != nil || wantErr != nil {
				t.Fatalf("bookkeeping: %v; fresh reader: %v", err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after ReadEveryTable %+v, fresh reader %+v", got, want)
			}
			tc.check(t, got)
		})
	}
}

// TestReaderAnswersKept: the snapshots and the ducklake_schema_versions
// rows are read once per reader (asked again with the catalog detached,
// the same answers, which the caller may change), and the partition values
// are not read at all when ReadEveryTable found their table empty.
func TestReaderAnswersKept(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		lake       string
		partitions bool // the lake has partition values: they are read
	}{
		{"06_deletes", false},
		{"03_renames", false},
		{"08_partitioning", true},
	} {
		t.Run(tc.lake, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", tc.lake)
			data := filepath.Join(lake, "data")
			fresh, err := Open(ctx, catalog, ReaderOptions{DataPath: data, Engines: readerDBs})
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			wantSnaps, err := fresh.readSnapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			wantVersions, err := fresh.readSchemaVersionEntries(ctx)
			if err != nil {
				t.Fatal(err)
			}
			r := openRead(t, catalog, data)
			if tc.partitions {
				parts, err := r.partitionValues(ctx)
				if err != nil || len(parts) == 0 {
					t.Fatalf("partition values %v, %v; want some", parts, err)
				}
			}
			for round := range 2 {
				snaps, err := r.Snapshots(ctx)
				if err != nil || !reflect.DeepEqual(snaps, wantSnaps) {
					t.Fatalf("round %d: snapshots %v, %v; want %v", round, snaps, err, wantSnaps)
				}
				versions, err := r.schemaVersionEntries(ctx)
				if err != nil || !maps.Equal(versions, wantVersions) {
					t.Fatalf("round %d: schema versions %v, %v; want %v", round, versions, err, wantVersions)
				}
				snaps[0].ID = -1 // callers may change what they get
				for k := range versions {
					delete(versions, k)
				}
				if round == 0 {
					detach(t, r)
				}
			}
			if !tc.partitions {
				parts, err := r.partitionValues(ctx)
				if err != nil || len(parts) != 0 {
					t.Fatalf("partition values %v, %v; want none, read from nothing", parts, err)
				}
			}
		})
	}
}

// TestStatisticsReadTogether: a reader reads the statistics tables a
// comparison asks for in one statement, each table's entries exactly as
// read alone (a key with two rows too); when that statement fails, each
// table is read alone and the error names the table.
func TestStatisticsReadTogether(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	twice := tamper(t, catalog, "INSERT INTO ducklake_table_column_stats SELECT * FROM ducklake_table_column_stats WHERE column_id = (SELECT min(column_id) FROM ducklake_table_column_stats)",
		"UPDATE ducklake_table_column_stats SET max_value = 'zz' WHERE rowid = (SELECT max(rowid) FROM ducklake_table_column_stats)")
	for _, tc := range []struct {
		name       string
		catalog    string
		bad        bool // one ask names a column the table lacks
		statements int
	}{
		{"as written", catalog, false, 1},
		{"a key with two rows", twice, false, 1},
		{"a column the table lacks", catalog, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := openRead(t, tc.catalog, data)
			asks := statsAsksOf(r)
			if tc.bad {
				asks[1].cols = append(slices.Clone(asks[1].cols), "no_such_column")
			}
			var want []entries
			var wantErr error
			for _, a := range asks {
				e, err := r.readStatsEntries(ctx, a.label, a.table, a.keys, a.cols)
				if err != nil {
					wantErr = err
					break
				}
				want = append(want, e)
			}
			log := queryLog(t, r)
			got, err := r.statsEntriesAll(ctx, asks)
			stmts := log()
			if tc.bad {
				if err == nil || wantErr == nil || err.Error() != wantErr.Error() || !strings.Contains(err.Error(), asks[1].table) {
					t.Fatalf("error %v, want %v (naming %s)", err, wantErr, asks[1].table)
				}
				return
			}
			if err != nil || wantErr != nil {
				t.Fatal(err, wantErr)
			}
			if len(asks) < 2 || len(want[0]) == 0 {
				t.Fatalf("asks %v, entries %v: want several statistics tables with rows", asks, want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read together %v\nalone %v", got, want)
			}
			if len(stmts) != tc.statements {
				t.Errorf("%d statements, want %d: %q", len(stmts), tc.statements, stmts)
			}
			if tc.catalog == twice && !slices.ContainsFunc(slices.Collect(maps.Values(got[1])), func(v string) bool { return strings.Contains(v, " | ") }) {
				t.Errorf("no key with two rows in %v", got[1])
			}
		})
	}
}

// TestPathsRelativeReadWithEveryTable: after ReadEveryTable,
// allPathsRelative answers from what that pass counted (no query: the
// catalog is detached), as its own query answers on a fresh reader. A
// path_is_relative that is not a BOOLEAN, once left to that query, is
// refused when the catalog is opened (formats.TypeDiffs).
func TestPathsRelativeReadWithEveryTable(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name    string
		stmts   []string
		refused bool // the catalog is not opened
		want    bool
	}{
		{"as written", nil, false, true},
		{"an absolute data file", []string{"UPDATE ducklake_data_file SET path_is_relative = false, path = '/elsewhere/' || path WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)"}, false, false},
		{"an absolute delete file", []string{"UPDATE ducklake_delete_file SET path_is_relative = false, path = '/elsewhere/' || path WHERE delete_file_id = (SELECT min(delete_file_id) FROM ducklake_delete_file)"}, false, false},
		{"path_is_relative as text", []string{"ALTER TABLE ducklake_table ALTER path_is_relative TYPE VARCHAR"}, true, true},
		{"path_is_relative as text, false", []string{"ALTER TABLE ducklake_table ALTER path_is_relative TYPE VARCHAR", "UPDATE ducklake_table SET path_is_relative = 'false'"}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := catalog
			if tc.stmts != nil {
				path = tamper(t, catalog, tc.stmts...)
			}
			fresh, err := Open(ctx, path, ReaderOptions{DataPath: data, Engines: readerDBs})
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), "ducklake_table.path_is_relative is VARCHAR") {
					t.Fatalf("Open = %v, want the column's type refused", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			if got := fresh.allPathsRelative(ctx); got != tc.want {
				t.Fatalf("fresh reader: all relative %v, want %v", got, tc.want)
			}
			r := openRead(t, path, data)
			detach(t, r)
			if got := r.allPathsRelative(ctx); got != tc.want {
				t.Errorf("after ReadEveryTable: all relative %v, want %v", got, tc.want)
			}
		})
	}
}

// statsAsksOf asks for every statistics table r has, with every column but
// the keys, as a comparison with a catalog of the same layout does.
func statsAsksOf(r *Reader) []statsAsk {
	var asks []statsAsk
	for _, st := range statsTables {
		name := r.statsName(st)
		if name == "" {
			continue
		}
		cols := slices.DeleteFunc(slices.Clone(r.layout[name]), func(c string) bool { return slices.Contains(st.keys, c) })
		asks = append(asks, statsAsk{label: st.names[0], table: name, keys: st.keys, cols: cols})
	}
	return asks
}

// TestColumnRowsReadOnce: what a reader asks of ducklake_column as a whole
// (the tables with column rows and their spans, which every Tables call
// needs; the column types HasColumnOfType and hasLakeType answer from) is
// one statement per reader, however many type sets are asked, and each
// answer is what its own query over the rows answers. Each was a
// statement of its own, three or four per catalog a backfill proves.
func TestColumnRowsReadOnce(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "12_nested_types")
	data := filepath.Join(lake, "data")
	// A type written with spaces and in upper case.
	odd := tamper(t, catalog, "UPDATE ducklake_column SET column_type = ' DECIMAL(9,2) ' WHERE column_id = (SELECT min(column_id) FROM ducklake_column)")
	sets := [][]string{{"variant"}, {"decimal"}, {"integer", "bigint"}, {"struct"}, {"varchar"}, {"time_ns"}, {"decimal(9"}}
	for _, path := range []string{catalog, odd} {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			r := openForTest(t, path, data)
			snaps, err := r.Snapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Each answer by its own query over the rows.
			var want []bool
			for _, types := range sets {
				var conds []string
				for _, x := range types {
					conds = append(conds, fmt.Sprintf("t = %[1]s OR starts_with(t, %[1]s || '(')", sqlString(x)))
				}
				var has bool
				if err := r.conn.QueryRowContext(ctx, `SELECT count(*) > 0 FROM (SELECT lower(trim(column_type)) AS t FROM cat.ducklake_column) WHERE `+strings.Join(conds, " OR ")).Scan(&has); err != nil {
					t.Fatal(err)
				}
				lakeTypes, err := r.strings(ctx, `SELECT DISTINCT lower(column_type) FROM cat.ducklake_column WHERE column_type IS NOT NULL`)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, has, slices.ContainsFunc(types, func(x string) bool { return slices.Contains(lakeTypes, x) }))
			}
			log := queryLog(t, r)
			c := &comparison{ctx: ctx}
			var got []bool
			for round := range 2 {
				got = got[:0]
				if _, err := r.Tables(ctx, snaps[len(snaps)-1].ID); err != nil {
					t.Fatal(err)
				}
				for _, types := range sets {
					has, err := r.HasColumnOfType(ctx, types...)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, has, r.hasLakeType(c, types))
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("round %d: answers %v, by their own queries %v (type sets %q)", round, got, want, sets)
				}
			}
			if !slices.Contains(want, true) || !slices.Contains(want, false) {
				t.Errorf("answers %v: want some types found and some not", want)
			}
			var read []string
			for _, q := range log() {
				// The epochs' change points read ducklake_column's
				// snapshots too, not its types.
				if strings.Contains(q, "ducklake_column") && strings.Contains(q, "column_type") {
					read = append(read, q)
				}
			}
			if len(read) != 1 {
				t.Errorf("%d statements read ducklake_column's types, want 1: %q", len(read), read)
			}
		})
	}
}

// TestColumnTreeReadWhereNeeded: the load rules' column tree (the rows of
// the tables with a nested field or a negative column_id, for
// formats.ParentRefusal) is read by a statement of its own only where the
// reader's one read of ducklake_column saw such a row: a catalog without
// (most) runs none, one with nested fields reads it and has the rows.
func TestColumnTreeReadWhereNeeded(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		lake string
		tree bool
	}{
		{"06_deletes", false},
		{"12_nested_types", true},
	} {
		t.Run(tc.lake, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", tc.lake)
			r := openForTest(t, catalog, filepath.Join(lake, "data"))
			var n int
			if err := r.conn.QueryRowContext(ctx, `SELECT count(*) FROM cat.ducklake_column WHERE parent_column IS NOT NULL OR column_id < 0`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if (n > 0) != tc.tree {
				t.Fatalf("%s has %d column tree rows: not the case this test needs", tc.lake, n)
			}
			log := queryLog(t, r)
			rows, err := r.loadRows(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var read int
			for _, q := range log() {
				if strings.Contains(q, "parent_column IS NOT NULL OR column_id < 0)") {
					read++
				}
			}
			want := 0
			if tc.tree {
				want = 1
			}
			if read != want || (len(rows.ColumnTree) > 0) != tc.tree {
				t.Errorf("column tree read by %d statement(s), want %d; %d rows", read, want, len(rows.ColumnTree))
			}
		})
	}
}
