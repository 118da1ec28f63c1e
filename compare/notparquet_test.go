package compare

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestNotParquetReadsDuckDBsWords: a delete file is taken for one that is
// not Parquet (a DeleteFileError, the real readers' refusal) by DuckDB's
// words only, never by its path. A 3-byte file in a folder named with
// the phrase DuckDB uses for a file without Parquet's magic bytes fails
// otherwise ("too small to be a Parquet file"): it was reported as the
// readers' refusal of a non-Parquet delete file. A file without the magic
// bytes in the same folder still is.
func TestNotParquetReadsDuckDBsWords(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "No magic bytes found at end of file")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := testduck.Open(t, "")
	v, err := formats.Lookup("0.4")
	if err != nil {
		t.Fatal(err)
	}
	r := &Reader{format: v}
	for _, tc := range []struct {
		name, content string
		refused       bool
	}{
		{"too small", "PAR", false},
		{"no magic bytes", "not a parquet file, long enough to have a footer", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "d.parquet")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := db.ExecContext(ctx, "SELECT * FROM read_parquet("+parquetsql.Path(path)+")")
			if err == nil {
				t.Fatalf("DuckDB read %q", tc.content)
			}
			got := r.notParquet(&DeleteFile{Path: path}, err)
			if _, refused := AsDeleteFileError(got); refused != tc.refused {
				t.Fatalf("notParquet(%v) = %v: refused %v, want %v", err, got, refused, tc.refused)
			}
		})
	}
}
