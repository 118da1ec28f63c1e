package convert

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
)

// TestPartialFieldIDsRefused: a data file without a name mapping whose
// top-level columns do not all have field ids is read by position by 1.0+
// readers (ColumnsHaveFieldIds) and by field id by 0.1-0.4 readers
// (formats.QuirkUnmappedFilesNull), so converting between them refuses it
// as it refuses files without any field id. Before, a file with one field
// id counted as having field ids and was converted; the proof then failed
// the catalog.
func TestPartialFieldIDsRefused(t *testing.T) {
	src, data, withIDs := unmappedLake(t)
	cols := query(t, src, fmt.Sprintf("SELECT name FROM parquet_schema(%s) WHERE field_id IS NOT NULL", literal(withIDs)))
	if len(cols) < 2 {
		t.Fatalf("the lake's file has %d columns, want two or more", len(cols))
	}
	partial := filepath.Join(t.TempDir(), "partial.parquet")
	execOn(t, src,
		fmt.Sprintf("COPY (SELECT * FROM read_parquet(%s)) TO %s (FORMAT parquet, FIELD_IDS {%s: 1})", literal(withIDs), literal(partial), cols[0][0]),
		fmt.Sprintf("INSERT INTO ducklake_data_file SELECT * REPLACE (6 AS data_file_id, %s AS path) FROM ducklake_data_file WHERE data_file_id = 1", literal(partial)))
	detail := unmappedRefusal(t, src, Options{DataPath: data})
	if !strings.Contains(detail, "data_file_id 6 ") {
		t.Errorf("refusal does not name data file 6, which has a field id on one column only: %s", detail)
	}
	if strings.Contains(detail, "data_file_id 4 ") {
		t.Errorf("refusal names data file 4, which has field ids on every column: %s", detail)
	}
}

// TestPartialFieldIDsReadThroughLeadingIDs: readers with
// formats.QuirkUnmappedFilesNull match an unmapped file's columns by field
// id only through the columns before the first without one (DuckDB's
// FieldIdMapper stops there). A file whose first column (old_id) has no
// field id and whose second (payload) has the catalog's id 2 reads both
// columns NULL in a faithful 0.4 conversion; with the id on old_id only,
// id reads its values and payload NULL. No conformance file has ids after
// a column without one: the model's lookup by any id passed every test.
func TestPartialFieldIDsReadThroughLeadingIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, data, _ := unmappedLake(t)
	orig := query(t, src, "SELECT path FROM c.ducklake_data_file WHERE data_file_id = 1")[0][0]
	for _, tc := range []struct {
		ids         string // FIELD_IDS of the file
		id, payload bool   // the column reads values (else NULL on every row)
	}{
		{"{payload: 2}", false, false},
		{"{old_id: 1}", true, false},
	} {
		t.Run(tc.ids, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "partial.parquet")
			cat := editedCopy(t, src, fmt.Sprintf("COPY (SELECT * FROM read_parquet(%s)) TO %s (FORMAT parquet, FIELD_IDS %s)", literal(orig), literal(file), tc.ids))
			st, err := os.Stat(file)
			if err != nil {
				t.Fatal(err)
			}
			cat = editedCopy(t, cat, "DELETE FROM ducklake_data_file WHERE data_file_id <> 1",
				fmt.Sprintf("UPDATE ducklake_data_file SET path = %s, path_is_relative = false, file_size_bytes = %d, footer_size = NULL WHERE data_file_id = 1", literal(file), st.Size()))
			out := filepath.Join(t.TempDir(), "faithful-0.4.duckdb")
			if _, err := Catalog(ctx, cat, out, formats.V0_4, Options{faithful: true}); err != nil {
				t.Fatalf("faithful 0.4: %v", err)
			}
			last, err := strconv.ParseInt(query(t, out, "SELECT max(snapshot_id) FROM c.ducklake_snapshot")[0][0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			r, err := compare.Open(ctx, out, compare.ReaderOptions{DataPath: data})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rows, err := r.Rows(ctx, "main.t", last, compare.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			n, ids, payloads := 0, 0, 0
			for rows.Next() {
				var id, payload any
				if err := rows.Scan(&id, &payload); err != nil {
					t.Fatal(err)
				}
				n++
				if id != nil {
					ids++
				}
				if payload != nil {
					payloads++
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Fatal("main.t has no rows: the test tests nothing")
			}
			if (ids > 0) != tc.id || (payloads > 0) != tc.payload {
				t.Errorf("%d rows, %d with id and %d with payload; want id read %v, payload read %v", n, ids, payloads, tc.id, tc.payload)
			}
		})
	}
}
