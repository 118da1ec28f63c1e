package repo

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestFooterStandInReadsAsFile: what plan's conversion check reads of a
// data file the cache lacks comes from a stand-in holding only its footer
// (standIn), so DuckDB's parquet_metadata, parquet_schema and
// parquet_kv_metadata must answer for it exactly as for the file, every
// column but the file's name, and so must parquetfooter.ReadFooter: the conformance lakes' data and delete files
// (structs, lists, maps, variants, geometry, partitions, several writers).
// Files with an encrypted footer ("PARE") are left out: no check reads
// them.
func TestFooterStandInReadsAsFile(t *testing.T) {
	t.Parallel()
	root := testlakes.Dir(t, "lakes")
	dir := t.TempDir()
	var files, stands []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") || !strings.Contains(filepath.ToSlash(p), "/data/") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 12 || string(b[len(b)-4:]) != footerMagic {
			return nil
		}
		n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
		s := filepath.Join(dir, fmt.Sprintf("%d.parquet", len(stands)))
		if err := os.WriteFile(s, standIn(b[len(b)-8-n:]), 0o644); err != nil {
			t.Fatal(err)
		}
		files, stands = append(files, p), append(stands, s)
		return nil
	})
	t.Logf("%d data and delete files", len(files))
	if len(files) < 100 {
		t.Fatalf("%d Parquet files in the conformance lakes, want their data files", len(files))
	}
	db := testduck.Open(t, "")
	defer db.Close()
	rows := func(fn, path string) []string {
		res, err := db.Query(fmt.Sprintf("SELECT (COLUMNS(* EXCLUDE (file_name)))::VARCHAR FROM %s(%s)", fn, parquetsql.Path(path)))
		if err != nil {
			t.Fatalf("%s(%s): %v", fn, path, err)
		}
		defer res.Close()
		cols, _ := res.Columns()
		var out []string
		for res.Next() {
			vals := make([]sql.NullString, len(cols))
			dst := make([]any, len(cols))
			for i := range vals {
				dst[i] = &vals[i]
			}
			if err := res.Scan(dst...); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(vals))
		}
		if err := res.Err(); err != nil {
			t.Fatalf("%s(%s): %v", fn, path, err)
		}
		return out
	}
	for i, f := range files {
		for _, fn := range []string{"parquet_metadata", "parquet_schema", "parquet_kv_metadata"} {
			want, got := rows(fn, f), rows(fn, stands[i])
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s of %s's stand-in:\n%s\nof the file:\n%s", fn, f, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
		// The footer checks' own reader of row groups and chunks.
		want, err := parquetfooter.ReadFooter(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := parquetfooter.ReadFooter(context.Background(), stands[i]); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("the footer of %s's stand-in read in Go: %+v (%v), of the file: %+v", f, got, err, want)
		}
	}
}
