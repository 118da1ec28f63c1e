package convert

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// The converter's checks read a delete file as the source's readers open it
// (formats.Version.DeleteFileFormat, the proof's rule too): readers before
// 1.0 never read ducklake_delete_file.format and open every delete file as
// Parquet, so a 0.4 catalog's Parquet delete file labelled 'puffin' is
// Parquet to them and to the proof. Before, the checks went by the label
// whatever the source's format.

// TestDeleteLabelTwoColumns: 06_deletes as 0.4 whose delete file 6 is a
// 3-column Parquet file labelled 'puffin' is refused for 0.3
// (delete-files-two-columns-only), as the same file labelled 'parquet' is,
// and the proof reads both 0.4 catalogs alike. Before, the check skipped
// the file and the conversion was written.
func TestDeleteLabelTwoColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(t.TempDir(), "data")
	copyTree(t, filepath.Join(lake, "data"), data)
	dir := filepath.Join(data, "main", "del")
	orig := filepath.Join(dir, "ducklake-01a229fa-2545-7538-9741-e13cab5207c7-delete.parquet")
	three := filepath.Join(dir, "ducklake-three-columns-delete.parquet")
	db := testduck.Open(t, "")
	_, err := db.Exec(fmt.Sprintf(`COPY (SELECT file_path, pos, 3::BIGINT AS "row" FROM read_parquet('%s') ORDER BY pos) TO '%s' (FORMAT parquet)`, orig, three))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(three)
	if err != nil {
		t.Fatal(err)
	}
	footer := binary.LittleEndian.Uint32(b[len(b)-8:])
	opts := Options{DataPath: data, RewriteDeletes: true}
	src04 := filepath.Join(t.TempDir(), "0.4.duckdb")
	if _, err := Catalog(ctx, vs[len(vs)-1], src04, formats.V0_4, opts); err != nil {
		t.Fatal(err)
	}
	edit := fmt.Sprintf(`UPDATE ducklake_delete_file SET path = '%s', partial_max = NULL, file_size_bytes = %d, footer_size = %d WHERE delete_file_id = 6`, filepath.Base(three), len(b), footer)
	asParquet := editedCopy(t, src04, edit, `UPDATE ducklake_delete_file SET format = 'parquet' WHERE delete_file_id = 6`)
	for _, label := range []string{"puffin", "PUFFIN", "orc"} {
		t.Run(label, func(t *testing.T) {
			src := editedCopy(t, src04, edit, `UPDATE ducklake_delete_file SET format = '`+label+`' WHERE delete_file_id = 6`)
			if _, err := compare.Catalogs(ctx, asParquet, src, compare.Options{DataPath: data}); err != nil {
				t.Fatalf("compare the 0.4 catalogs labelled parquet and %s: %v, want equivalent (0.4 readers open every delete file as Parquet)", label, err)
			}
			_, err := Check(ctx, src, formats.V0_3, opts)
			var refused *RefusedError
			if !errors.As(err, &refused) || !strings.Contains(err.Error(), "delete-files-two-columns-only") || !strings.Contains(err.Error(), "delete_file_id 6 ") {
				t.Fatalf("convert to 0.3: %v, want refused for delete-files-two-columns-only naming delete_file_id 6", err)
			}
		})
	}
}

// TestDeleteLabelStructSkip: a 0.4 catalog whose delete file (Parquet)
// makes a 0.3 reader read STRUCT values NULL is refused for 0.3
// (struct-nulls-after-skipped-vector) whether its format column says
// 'parquet' or 'puffin', and the proof reads each as the lake's own
// catalog. Before, the 'puffin' one failed the run: the check read the Parquet file as a
// deletion vector.
func TestDeleteLabelStructSkip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	structCol := lakegen.Column{Name: "col", Type: "STRUCT", Fields: []lakegen.Column{{Name: "a", Type: "VARCHAR"}, {Name: "b", Type: "DOUBLE"}}}
	dir := filepath.Join(t.TempDir(), "lake")
	snaps := []lakegen.Snapshot{
		{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "BIGINT"}, structCol}}},
		{lakegen.Insert{Table: "t", Select: "SELECT i, CASE WHEN i >= 2048 AND i < 4096 THEN NULL ELSE {a: 'hello', b: 42.0} END FROM range(8192) t(i)"}},
		{lakegen.Delete{Table: "t", Where: "col IS NULL"}},
	}
	if _, err := lakegen.Repository(ctx, dir, lakegen.Spec{Name: "skip", Versions: []lakegen.Version{{Message: "v1", Snapshots: snaps}}}); err != nil {
		t.Fatal(err)
	}
	vs := versionCatalogs(t, dir)
	src, data := vs[len(vs)-1], filepath.Join(dir, "data")
	out04 := filepath.Join(t.TempDir(), "0.4.duckdb")
	if _, err := Catalog(ctx, src, out04, formats.V0_4, Options{faithful: true, DataPath: data}); err != nil {
		t.Fatal(err)
	}
	opts := Options{DataPath: data}
	for _, label := range []string{"parquet", "puffin", "Puffin"} {
		t.Run(label, func(t *testing.T) {
			edited := editedCopy(t, out04, `UPDATE ducklake_delete_file SET format = '`+label+`'`)
			// Read as a source (DuckDB 1.5.1 keeps skipped levels apart),
			// it holds the lake's rows.
			if _, err := compare.Catalogs(ctx, edited, src, compare.Options{DataPath: data}); err != nil {
				t.Fatalf("compare the 0.4 catalog labelled %s with the lake's own: %v, want equivalent", label, err)
			}
			_, err := Check(ctx, edited, formats.V0_3, opts)
			var refused *RefusedError
			if !errors.As(err, &refused) || !strings.Contains(err.Error(), "struct-nulls-after-skipped-vector") || !strings.Contains(err.Error(), "snapshot 3") {
				t.Fatalf("convert to 0.3: %v, want refused for struct-nulls-after-skipped-vector at snapshot 3", err)
			}
		})
	}
}

// TestDeleteLabelPartialFiles: 06_deletes as 0.4 whose partial deletion
// files (6 and 13) are labelled 'puffin' is refused for 0.3
// (partial-delete-files) naming both, as with 'parquet', and with
// --rewrite-deletes is written and proved. Before, the 0.4 -> 0.3 step and
// the two-column check skipped them: the conversion was written with the
// 3-column files carried as they are.
func TestDeleteLabelPartialFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(t.TempDir(), "data")
	copyTree(t, filepath.Join(lake, "data"), data)
	opts := Options{DataPath: data}
	src04 := filepath.Join(t.TempDir(), "0.4.duckdb")
	if _, err := Catalog(ctx, vs[len(vs)-1], src04, formats.V0_4, opts); err != nil {
		t.Fatal(err)
	}
	src := editedCopy(t, src04, `UPDATE ducklake_delete_file SET format = 'puffin' WHERE delete_file_id IN (6, 13)`)
	_, err := Check(ctx, src, formats.V0_3, opts)
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "partial-delete-files") || !strings.Contains(err.Error(), "delete_file_id 6 ") || !strings.Contains(err.Error(), "delete_file_id 13 ") {
		t.Fatalf("convert to 0.3: %v, want refused for partial-delete-files naming delete files 6 and 13", err)
	}
	opts.RewriteDeletes = true
	out := filepath.Join(t.TempDir(), "out.duckdb")
	if _, err := Catalog(ctx, src, out, formats.V0_3, opts); err != nil {
		t.Fatalf("with --rewrite-deletes: %v", err)
	}
	proveEquivalent(t, src, out, data)
}
