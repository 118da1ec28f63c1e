package convert

import (
	"context"
	"testing"
)

// TestWorkFacts: each fact reads false on empty tables, and true once a row
// that a check would select is written (read again after the write, not
// kept); a fact whose table is missing answers true (the check runs).
func TestWorkFacts(t *testing.T) {
	ctx := context.Background()
	r := workRun(t, ctx)
	for _, f := range workFacts {
		if !r.mayFind(f) {
			t.Errorf("%s: false without its tables", f.cond)
		}
	}
	for _, q := range []string{
		`CREATE TABLE ducklake_name_mapping (mapping_id BIGINT, column_id BIGINT, source_name VARCHAR, target_field_id BIGINT, parent_column BIGINT, is_partition BOOLEAN)`,
		`CREATE TABLE ducklake_table_column_stats (table_id BIGINT, column_id BIGINT, contains_null BOOLEAN, contains_nan BOOLEAN, min_value VARCHAR, max_value VARCHAR)`,
		`CREATE TABLE ducklake_table_stats (table_id BIGINT, record_count BIGINT, next_row_id BIGINT, file_size_bytes BIGINT)`,
		`CREATE TABLE ducklake_column (column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, table_id BIGINT, column_order BIGINT, column_name VARCHAR, column_type VARCHAR, initial_default VARCHAR, default_value VARCHAR, nulls_allowed BOOLEAN, parent_column BIGINT)`,
		`CREATE TABLE ducklake_view (view_id BIGINT, view_uuid UUID, begin_snapshot BIGINT, end_snapshot BIGINT, schema_id BIGINT, view_name VARCHAR, dialect VARCHAR, sql VARCHAR, column_aliases VARCHAR)`,
		`CREATE TABLE ducklake_file_column_stats (data_file_id BIGINT, table_id BIGINT, column_id BIGINT, column_size_bytes BIGINT, value_count BIGINT, null_count BIGINT, min_value VARCHAR, max_value VARCHAR, contains_nan BOOLEAN, extra_stats VARCHAR)`,
		`CREATE TABLE ducklake_delete_file (delete_file_id BIGINT, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, data_file_id BIGINT, path VARCHAR)`,
	} {
		if err := r.w.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range workFacts {
		if r.mayFind(f) {
			t.Errorf("%s: true on empty tables", f.cond)
		}
	}
	for _, tc := range []struct {
		fact *workFact
		rows []string
	}{
		// Bounds of a table with a live delete file, then without one.
		{&factPlainStringBounds, []string{`INSERT INTO ducklake_delete_file VALUES (1, 1, 1, NULL, 1, 'd.parquet')`,
			`INSERT INTO ducklake_table_column_stats VALUES (1, 9, false, false, 'a', 'b')`, `UPDATE ducklake_delete_file SET end_snapshot = 2`}},
		{&factHivePartitions, []string{`INSERT INTO ducklake_name_mapping VALUES (1, 1, 'a', 1, NULL, false)`, `INSERT INTO ducklake_name_mapping VALUES (1, 2, 'p', 2, NULL, true)`}},
		{&factTableStatsOneBound, []string{`INSERT INTO ducklake_table_column_stats VALUES (1, 1, false, false, '1', '2')`, `INSERT INTO ducklake_table_column_stats VALUES (1, 2, false, false, NULL, '2')`}},
		{&factTableStatsNoBounds, []string{`INSERT INTO ducklake_table_column_stats VALUES (1, 3, false, false, NULL, NULL)`}},
		// Table 1 has column statistics; table 2 has none.
		{&factStructColumns, []string{`INSERT INTO ducklake_column VALUES (1, 1, NULL, 1, 1, 's', 'int32', NULL, NULL, true, NULL)`,
			`INSERT INTO ducklake_column VALUES (3, 1, NULL, 1, 1, 'n', 'struct', NULL, NULL, true, 2)`, `INSERT INTO ducklake_column VALUES (2, 1, NULL, 1, 2, 's', ' STRUCT', NULL, NULL, true, NULL)`}},
		{&factViewPlaceholder, []string{`INSERT INTO ducklake_view VALUES (1, uuid(), 1, NULL, 0, 'v', 'duckdb', 'SELECT 1', NULL)`,
			`INSERT INTO ducklake_view VALUES (2, uuid(), 1, NULL, 0, 'w', 'duckdb', 'SELECT * FROM {DUCKLAKE_CATALOG}.main.t', NULL)`}},
		{&factValueCountZero, []string{`INSERT INTO ducklake_file_column_stats VALUES (1, 1, 1, 10, 3, 0, '1', '2', NULL, NULL)`, `INSERT INTO ducklake_file_column_stats VALUES (1, 1, 2, 10, NULL, NULL, NULL, NULL, NULL, NULL)`,
			`INSERT INTO ducklake_file_column_stats VALUES (1, 1, 3, 0, 0, 0, NULL, NULL, NULL, NULL)`}},
		{&factTimeNSColumns, []string{`INSERT INTO ducklake_column VALUES (4, 1, NULL, 1, 3, 't', 'time', NULL, NULL, true, NULL)`,
			`INSERT INTO ducklake_column VALUES (5, 1, NULL, 1, 4, 'u', ' TIME_NS', NULL, NULL, true, NULL)`}},
		{&factTableStatsUncovered, []string{`INSERT INTO ducklake_table_stats VALUES (1, 5, 5, 100)`, `INSERT INTO ducklake_table_stats VALUES (2, NULL, 0, NULL)`, `INSERT INTO ducklake_table_stats VALUES (2, 5, 5, 100)`}},
	} {
		for i, q := range tc.rows {
			if err := r.w.exec(ctx, q); err != nil {
				t.Fatal(err)
			}
			if got, want := r.mayFind(tc.fact), i == len(tc.rows)-1; got != want {
				t.Errorf("%s after %s: %t, want %t", tc.fact.cond, q, got, want)
			}
		}
	}
}

// workRun is a conversion run on a fresh, empty working database, closed
// when the test ends: for checks of what a run reads and writes.
func workRun(t *testing.T, ctx context.Context) *run {
	t.Helper()
	conn, closeDB, err := openDuckDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeDB() })
	var db string
	if err := conn.QueryRowContext(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	return &run{ctx: ctx, w: &work{conn: conn, db: db, schema: "main"}}
}
