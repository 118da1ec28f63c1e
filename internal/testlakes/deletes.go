package testlakes

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// DuckLake's field ids of a delete file's columns.
const (
	deleteFieldIDFilePath = 2147483646
	deleteFieldIDPos      = 2147483645
)

// DeleteRows adds to a lake's catalog (a copy the caller owns, of format
// 0.4 or later, whose schema, table and data file paths are relative) a
// snapshot that deletes positions of data file dataFileID, which has no
// delete file yet: a delete file (file_path, pos) written into dataCopy
// (the caller's copy of the data folder) beside the data file, as DuckLake
// writes one, with its ducklake_delete_file row and the snapshot's rows.
// It returns the new snapshot's id.
func DeleteRows(tb testing.TB, catalog, dataCopy string, dataFileID int64, positions []int64) int64 {
	tb.Helper()
	db := testduck.Open(tb, "")
	must := func(q string, args ...any) {
		tb.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	must("ATTACH " + quoteSQL(catalog) + " AS c")
	var table int64
	var dataPath, schemaPath, tablePath, filePath string
	var relative bool
	if err := db.QueryRow(`SELECT f.table_id, (SELECT value FROM c.ducklake_metadata WHERE key = 'data_path' AND scope IS NULL), s.path, t.path, f.path,
			s.path_is_relative AND t.path_is_relative AND f.path_is_relative
		FROM c.ducklake_data_file f JOIN c.ducklake_table t ON t.table_id = f.table_id AND t.end_snapshot IS NULL
		JOIN c.ducklake_schema s ON s.schema_id = t.schema_id AND s.end_snapshot IS NULL
		WHERE f.data_file_id = ?`, dataFileID).Scan(&table, &dataPath, &schemaPath, &tablePath, &filePath, &relative); err != nil {
		tb.Fatalf("data file %d: %v", dataFileID, err)
	}
	if !relative {
		tb.Fatalf("data file %d: a path is not relative", dataFileID)
	}
	var held int64
	if err := db.QueryRow(`SELECT count(*) FROM c.ducklake_delete_file WHERE data_file_id = ?`, dataFileID).Scan(&held); err != nil || held > 0 {
		tb.Fatalf("data file %d has %d delete files (%v)", dataFileID, held, err)
	}
	var snap, schemaVersion, nextCatalogID, nextFileID int64
	if err := db.QueryRow(`SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM c.ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1`).
		Scan(&snap, &schemaVersion, &nextCatalogID, &nextFileID); err != nil {
		tb.Fatal(err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		tb.Fatal(err)
	}
	name := "ducklake-" + id.String() + "-delete.parquet"
	local := filepath.Join(dataCopy, filepath.FromSlash(schemaPath+tablePath), name)
	pos := make([]string, len(positions))
	for i, p := range positions {
		pos[i] = fmt.Sprint(p)
	}
	must(fmt.Sprintf(`COPY (SELECT %s AS file_path, unnest([%s])::BIGINT AS pos ORDER BY pos) TO %s (FORMAT parquet, FIELD_IDS {file_path: %d, pos: %d})`,
		quoteSQL(dataPath+schemaPath+tablePath+filePath), strings.Join(pos, ", "), quoteSQL(local), deleteFieldIDFilePath, deleteFieldIDPos))
	b, err := os.ReadFile(local)
	if err != nil {
		tb.Fatal(err)
	}
	snap++
	must(`INSERT INTO c.ducklake_snapshot (snapshot_id, snapshot_time, schema_version, next_catalog_id, next_file_id) VALUES (?, now(), ?, ?, ?)`,
		snap, schemaVersion, nextCatalogID, nextFileID+1)
	must(`INSERT INTO c.ducklake_snapshot_changes (snapshot_id, changes_made) VALUES (?, ?)`, snap, fmt.Sprintf("deleted_from_table:%d", table))
	must(`INSERT INTO c.ducklake_delete_file (delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id, path, path_is_relative, format, delete_count, file_size_bytes, footer_size, encryption_key)
		VALUES (?, ?, ?, NULL, ?, ?, true, 'parquet', ?, ?, ?, NULL)`,
		nextFileID, table, snap, dataFileID, name, len(positions), len(b), binary.LittleEndian.Uint32(b[len(b)-8:]))
	must("DETACH c")
	return snap
}
