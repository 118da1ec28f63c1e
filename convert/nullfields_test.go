package convert

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
		vs := versionCatalogs(t, testlakes.Lake(t, archive, name))
		orig := vs[len(vs)-1]
		from, err := Detect(ctx, orig, 0)
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
				// Conditional fields, and those of tables the lake leaves
				// empty: TestNullRequiredElsewhereRefused and compare's
				// TestOpenNullRequiredElsewhere.
				if col.NullWhen != "" || rowsIn(t, conn, tb.Name) == 0 {
					t.Logf("%s: %s.%s is conditional or its table empty: passed over", lake, tb.Name, col.Name)
					continue
				}
				n++
				t.Run(name+"/"+from.Name+"/"+tb.Name+"."+col.Name, func(t *testing.T) {
					t.Parallel()
					src := editedCopy(t, orig, "UPDATE "+tb.Name+" SET "+col.Name+" = NULL WHERE rowid = (SELECT min(rowid) FROM "+tb.Name+")")
					want := tb.Name + "." + col.Name + " is NULL in the row "
					// Every other format in one pass, as a backfill writes a
					// version's cells: each output its own folder and its
					// own outcome (a check moved into one target's steps
					// still fails only that output).
					var outs []Output
					var dirs []string
					for _, to := range formats.All.Releases() {
						if to != from {
							dir := t.TempDir()
							dirs = append(dirs, dir)
							outs = append(outs, Output{Target: to, Dst: filepath.Join(dir, to.Name+".duckdb")})
						}
					}
					for i, got := range Catalogs(ctx, src, outs, Options{RewriteDeletes: true, DataPath: t.TempDir(), Lossy: LossyOptions}) {
						to, dir, err := outs[i].Target, dirs[i], got.Err
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

// rowsIn counts the rows of a metadata table of the catalog attached as c.
func rowsIn(t *testing.T, conn *sql.Conn, table string) int {
	t.Helper()
	var n int
	if err := conn.QueryRowContext(context.Background(), "SELECT count(*) FROM c.main."+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNullRequiredFieldsListed: the refusal lists the first 10 NULL
// fields, table by table in the registry's order and rows by rowid, and
// counts the others.
func TestNullRequiredFieldsListed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	vs := versionCatalogs(t, testlakes.Lake(t, "lakes", "06_deletes"))
	src := editedCopy(t, vs[len(vs)-1], "UPDATE ducklake_data_file SET table_id = NULL, record_count = NULL", "UPDATE ducklake_table SET table_name = NULL WHERE rowid = 0")
	var files int
	if err := attach(t, src, "READ_ONLY").QueryRowContext(ctx, "SELECT count(*) FROM c.main.ducklake_data_file").Scan(&files); err != nil {
		t.Fatal(err)
	}
	if files < 5 {
		t.Fatalf("%d data files, want at least 5", files)
	}
	_, err := Check(ctx, src, formats.V1_1, Options{})
	nf, ok := errors.AsType[*formats.NullFieldError](err)
	if !ok {
		t.Fatalf("Check: %v, want a NullFieldError", err)
	}
	if len(nf.Fields) != 10 || nf.More != 1+2*files-10 {
		t.Errorf("%d fields listed and %d more, want 10 and %d: %v", len(nf.Fields), nf.More, 1+2*files-10, err)
	}
	if f := nf.Fields[0]; f.Table != "ducklake_table" || f.Column != "table_name" || !strings.HasPrefix(f.Row, "table_id=") {
		t.Errorf("first field %+v, want ducklake_table.table_name", f)
	}
	if f := nf.Fields[1]; f.Table != "ducklake_data_file" || f.Column != "table_id" || !strings.HasPrefix(f.Row, "data_file_id=") {
		t.Errorf("second field %+v, want ducklake_data_file.table_id", f)
	}
	if f := nf.Fields[2]; f.Column != "record_count" || f.Row != nf.Fields[1].Row {
		t.Errorf("third field %+v, want the same row's record_count", f)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("%d NULL field(s)", 1+2*files)) || !strings.Contains(err.Error(), fmt.Sprintf("; and %d more", 1+2*files-10)) {
		t.Errorf("error %v, want the count and the others counted", err)
	}
}
