package convert

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestNullRequiredFieldsRefused: a conformance catalog (of 1.0 and of 0.3,
// with data and delete files) with NULL in one field DuckLake's writers
// always fill (the registry's Column.NullRead of the source's format, each
// in turn, in the table's first row) is no DuckLake catalog: convert to
// every other format refuses it before writing anything (ErrNotCatalog,
// exit 6), naming the file, the table, the column and the row, and the
// proof's reader refuses to open it (an OpenError, compare exit 6). Before,
// such catalogs converted (a NULL table_id or begin_snapshot was copied
// along) and the proof reported differences, or failed without the table.
// A column DuckDB itself keeps NULL out of (a PRIMARY KEY) is passed over.
func TestNullRequiredFieldsRefused(t *testing.T) {
	ctx := context.Background()
	for _, lake := range []string{"lakes/06_deletes", "lakes-0.3/06_deletes"} {
		archive, name, _ := strings.Cut(lake, "/")
		vs := versionCatalogs(t, filepath.Join(testlakes.Dir(t, archive), name))
		orig := vs[len(vs)-1]
		from, err := Detect(ctx, orig)
		if err != nil {
			t.Fatal(err)
		}
		nullable := map[[2]string]bool{}
		conn := attach(t, orig, "READ_ONLY")
		rows, err := conn.QueryContext(ctx, "SELECT table_name, column_name, is_nullable FROM duckdb_columns() WHERE database_name = 'c' AND schema_name = 'main'")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var tb, col string
			var ok bool
			if err := rows.Scan(&tb, &col, &ok); err != nil {
				t.Fatal(err)
			}
			nullable[[2]string{tb, col}] = ok
		}
		rows.Close()
		n := 0
		for _, tb := range from.Tables {
			for _, col := range tb.Columns {
				if col.NullRead == "" {
					continue
				}
				if !nullable[[2]string{tb.Name, col.Name}] {
					t.Logf("%s: %s.%s is NOT NULL in DuckDB's own table: passed over", lake, tb.Name, col.Name)
					continue
				}
				n++
				t.Run(name+"/"+from.Name+"/"+tb.Name+"."+col.Name, func(t *testing.T) {
					t.Parallel()
					src := editedCopy(t, orig, "UPDATE "+tb.Name+" SET "+col.Name+" = NULL WHERE rowid = (SELECT min(rowid) FROM "+tb.Name+")")
					want := tb.Name + "." + col.Name + " is NULL in the row "
					for _, to := range formats.All.Releases() {
						if to == from {
							continue
						}
						dir := t.TempDir()
						out := filepath.Join(dir, to.Name+".duckdb")
						_, err := Catalog(ctx, src, out, to, Options{RewriteDeletes: true, DataPath: t.TempDir(), Lossy: LossyOptions})
						if !errors.Is(err, ErrNotCatalog) || !errors.Is(err, formats.ErrNullField) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), ", rowid ") {
							t.Errorf("convert %s to %s: %v, want not a DuckLake catalog naming %s, %q and the row", from.Name, to.Name, err, src, want)
						}
						if ents, _ := os.ReadDir(dir); len(ents) > 0 {
							t.Errorf("convert %s to %s: %d files written (%s), want none", from.Name, to.Name, len(ents), ents[0].Name())
						}
					}
					rd, err := compare.Open(ctx, src, compare.ReaderOptions{})
					if rd != nil {
						rd.Close()
					}
					var oe *compare.OpenError
					if !errors.As(err, &oe) || oe.Cause != compare.OpenNullFields || !strings.Contains(oe.Reason(), want) {
						t.Errorf("reader: %v, want an OpenError (OpenNullFields) naming %q", err, want)
					}
				})
			}
		}
		if n < 15 {
			t.Errorf("%s: %d required fields edited, want at least 15", lake, n)
		}
	}
}
