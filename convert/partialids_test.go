package convert

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
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
