package formats

import (
	"database/sql"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestDeleteFileFormatRule: DeleteFileFormat and DeleteFileFormatSQL (the
// proof's and the converter's reading of a delete file's format column)
// agree for every format and value: readers before 1.0 open every delete
// file as Parquet, 1.0+ readers 'parquet' and 'puffin' in ASCII letter
// case (CIEquals), NULL as Parquet, and keep any other value (its reads
// fail).
func TestDeleteFileFormatRule(t *testing.T) {
	t.Parallel()
	db := testduck.Open(t, "")
	labels := []sql.NullString{{}, {String: "parquet", Valid: true}, {String: "PUFFIN", Valid: true}, {String: "Puffin", Valid: true},
		{String: "puffin", Valid: true}, {String: "", Valid: true}, {String: "orc", Valid: true}, {String: "PUFF\u0130N", Valid: true}, {String: "Parquet", Valid: true}}
	for _, v := range All {
		for _, label := range labels {
			want := "parquet"
			if v.Has(CapPuffinDeletes) && label.Valid {
				switch label.String {
				case "PUFFIN", "Puffin", "puffin":
					want = "puffin"
				case "parquet", "Parquet":
				default:
					want = label.String
				}
			}
			if got := v.DeleteFileFormat(label); got != want {
				t.Errorf("%s: DeleteFileFormat(%v) = %q, want %q", v.Name, label, got, want)
			}
			var got string
			if err := db.QueryRow(`SELECT `+v.DeleteFileFormatSQL("f")+` FROM (SELECT ?::VARCHAR AS f)`, label).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s: DeleteFileFormatSQL(%v) = %q, want %q", v.Name, label, got, want)
			}
		}
	}
}
