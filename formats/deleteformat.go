package formats

import (
	"database/sql"
	"strings"
)

// Delete file formats: how the real reader of a format opens a delete file
// (DuckLakeDeleteFilter), declared once for the proof (compare) and the
// converter's checks.
const (
	DeleteFormatParquet = "parquet"
	DeleteFormatPuffin  = "puffin"
)

// DeleteFileFormats are the values of ducklake_delete_file.format that the
// readers which read the column know, matched in ASCII letter case
// (StringUtil::CIEquals in DeleteFileFormatFromString,
// src/common/ducklake_data_file.cpp, v1.5-variegata and main, first in
// 415a9ebd, DuckDB 1.5.2). NULL reads as the first (the default).
var DeleteFileFormats = []string{DeleteFormatParquet, DeleteFormatPuffin}

// ReadsDeleteFileFormat tells whether v's readers read the delete file's
// format column: 1.0 and later (CapPuffinDeletes). Readers before 1.0
// (DuckDB 1.3-1.5.1) never select it (GetFileSelectList("del")) and open
// every delete file as Parquet, whatever it says.
func (v *Version) ReadsDeleteFileFormat() bool { return v.Has(CapPuffinDeletes) }

// DeleteFileFormat is how v's readers open a delete file whose format
// column holds label: DeleteFormatParquet or DeleteFormatPuffin, or, where
// they read the column and know no such value (the empty string
// included), label as stored: every read of the file fails ("Unknown
// delete file format").
func (v *Version) DeleteFileFormat(label sql.NullString) string {
	if !v.ReadsDeleteFileFormat() || !label.Valid {
		return DeleteFileFormats[0]
	}
	for _, known := range DeleteFileFormats {
		if ASCIILower(label.String) == known {
			return known
		}
	}
	return label.String
}

// DeleteFileFormatSQL is DeleteFileFormat as a DuckDB expression over the
// format column expr (of a catalog v's readers read): a VARCHAR, never
// NULL.
func (v *Version) DeleteFileFormatSQL(expr string) string {
	if !v.ReadsDeleteFileFormat() {
		return "'" + DeleteFileFormats[0] + "'"
	}
	var b strings.Builder
	b.WriteString("CASE WHEN " + expr + " IS NULL THEN '" + DeleteFileFormats[0] + "'")
	for _, known := range DeleteFileFormats {
		b.WriteString(" WHEN " + ASCIILowerSQL(expr) + " = '" + known + "' THEN '" + known + "'")
	}
	b.WriteString(" ELSE " + expr + " END")
	return b.String()
}
