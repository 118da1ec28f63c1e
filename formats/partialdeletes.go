package formats

// PartialDeleteSnapshotColumn is the third column of a partial deletion
// file: per deleted position, the snapshot that deleted it.
const PartialDeleteSnapshotColumn = "_ducklake_internal_snapshot_id"

// The field ids DuckLake's writers give a delete file's columns
// (src/storage/ducklake_delete.cpp): DuckDB's reserved ids for a delete
// file's file_path and pos, and LAST_UPDATED_SEQUENCE_NUMBER_ID for a
// partial deletion file's snapshot column.
const (
	DeleteFilePathFieldID        = 2147483646
	DeletePosFieldID             = 2147483645
	PartialDeleteSnapshotFieldID = 2147483539
)

// IsPartialDeleteFile reports whether a Parquet delete file whose
// top-level columns have these names and DuckDB types is a partial
// deletion file, as every reader that reads per-row snapshots (0.4+)
// decides it: DuckLakeDeleteFilter::ScanDeleteFile
// (src/storage/ducklake_delete_filter.cpp, v1.5-variegata and the commits
// DuckDB 1.5.0-1.5.5 pin) takes the snapshots from a file of exactly three
// columns whose third is PartialDeleteSnapshotColumn of type BIGINT. The
// catalog's partial_max does not decide it: DuckLake's own
// ducklake_flush_inlined_data writes such files with partial_max NULL
// (DuckLakeDeleteFileWriter::WriteDeleteFileWithSnapshots sets no
// max_snapshot). The converter and the proof both ask this.
func IsPartialDeleteFile(names, types []string) bool {
	return len(names) == 3 && len(types) == 3 && names[2] == PartialDeleteSnapshotColumn && types[2] == "BIGINT"
}
