package convert

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
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
	catalog, data, edit := threeColumnDeletes(t)
	opts := Options{DataPath: data, RewriteDeletes: true}
	src04 := as04(t, catalog, opts)
	asParquet := editedCopy(t, src04, edit, `UPDATE ducklake_delete_file SET format = 'parquet' WHERE delete_file_id = 6`)
	for _, label := range []string{"puffin", "PUFFIN", "orc"} {
		t.Run(label, func(t *testing.T) {
			src := editedCopy(t, src04, edit, `UPDATE ducklake_delete_file SET format = '`+label+`' WHERE delete_file_id = 6`)
			// 0.4 readers open every delete file as Parquet.
			proveEquivalent(t, asParquet, src, data)
			refusedFor03(t, src, opts, "delete-files-two-columns-only", "delete_file_id 6 ")
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
	out04 := as04(t, src, Options{faithful: true, DataPath: data})
	opts := Options{DataPath: data}
	for _, label := range []string{"parquet", "puffin", "Puffin"} {
		t.Run(label, func(t *testing.T) {
			edited := editedCopy(t, out04, `UPDATE ducklake_delete_file SET format = '`+label+`'`)
			// Read as a source (DuckDB 1.5.1 keeps skipped levels apart),
			// it holds the lake's rows.
			proveEquivalent(t, edited, src, data)
			refusedFor03(t, edited, opts, "struct-nulls-after-skipped-vector", "snapshot 3")
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
	src := editedCopy(t, as04(t, vs[len(vs)-1], opts), `UPDATE ducklake_delete_file SET format = 'puffin' WHERE delete_file_id IN (6, 13)`)
	refusedFor03(t, src, opts, "partial-delete-files", "delete_file_id 6 ", "delete_file_id 13 ")
	opts.RewriteDeletes = true
	out := filepath.Join(t.TempDir(), "out.duckdb")
	if _, err := Catalog(ctx, src, out, formats.V0_3, opts); err != nil {
		t.Fatalf("with --rewrite-deletes: %v", err)
	}
	proveEquivalent(t, src, out, data)
}

// as04 is catalog converted to 0.4 with opts.
func as04(t *testing.T, catalog string, opts Options) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "0.4.duckdb")
	if _, err := Catalog(context.Background(), catalog, out, formats.V0_4, opts); err != nil {
		t.Fatal(err)
	}
	return out
}

// refusedFor03 fails the test unless src's conversion to 0.3 with opts is
// refused for code, its message naming each of names.
func refusedFor03(t *testing.T, src string, opts Options, code string, names ...string) {
	t.Helper()
	_, err := Check(context.Background(), src, formats.V0_3, opts)
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), code) {
		t.Fatalf("convert to 0.3: %v, want refused for %s", err, code)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Fatalf("convert to 0.3: %v, want refused for %s naming %q", err, code, n)
		}
	}
}
