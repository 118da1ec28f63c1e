package convert

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCatalogRowFieldsKeptApart: the converter reads some listings of the
// catalog as rows of several fields. A NULL field (a data file without a
// table_id) made the row NULL and the conversion panicked (index out of
// range), and a unit separator (0x1f, which joined the fields in one text)
// in a table or view name shifted the fields. Each field is now read as a
// column of its own: the conversion ends, a result or an error, without a
// panic.
func TestCatalogRowFieldsKeptApart(t *testing.T) {
	lakes := testlakes.Dir(t, "lakes")
	for name, edit := range map[string]string{
		"data file without table_id": "UPDATE c.main.ducklake_data_file SET table_id = NULL WHERE data_file_id = (SELECT min(data_file_id) FROM c.main.ducklake_data_file)",
		"separator in a table name":  "UPDATE c.main.ducklake_table SET table_name = table_name || chr(31) || 'x' || chr(31) || 'y'",
		"separator in a view name":   "UPDATE c.main.ducklake_view SET view_name = view_name || chr(31) || 'x'",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			lake := "06_deletes"
			if strings.Contains(name, "view") {
				lake = "09_views"
			}
			vs := versionCatalogs(t, filepath.Join(lakes, lake))
			src := filepath.Join(t.TempDir(), "ducklake.duckdb")
			copyFile(t, vs[len(vs)-1], src)
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lakes, lake, "data"), data)
			db := testduck.Open(t, "")
			if _, err := db.Exec("ATTACH " + literal(src) + " AS c; " + edit + "; DETACH c"); err != nil {
				t.Fatal(err)
			}
			db.Close()
			for _, to := range []*formats.Version{formats.V0_3, formats.V0_4, formats.V1_1} {
				_, err := Catalog(context.Background(), src, filepath.Join(t.TempDir(), to.Name+".duckdb"), to, Options{DataPath: data, RewriteDeletes: true, Lossy: LossyOptions})
				t.Logf("to %s: %.300v", to.Name, err)
			}
		})
	}
}
