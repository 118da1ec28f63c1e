package compare

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/realduckdb"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// misreadTables are VARCHAR (and one BIGINT) columns of every shape of
// NULLs, one table each, so that a probe's per-table reading names the
// column DuckDB misreads.
var misreadTables = []struct{ name, sql string }{
	{"nonull", "SELECT 'val' || (i % 5) AS v FROM range(100) r(i)"},
	{"somenull", "SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE 'val' || (i % 5) END AS v FROM range(100) r(i)"},
	{"onenull", "SELECT CASE WHEN i = 7 THEN NULL ELSE 'val' || (i % 5) END AS v FROM range(100) r(i)"},
	{"allnull", "SELECT NULL::VARCHAR AS v FROM range(100) r(i)"},
	{"distinctnull", "SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE 'a long distinct string number ' || i END AS v FROM range(3000) r(i)"},
	{"bignull", "SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE 'val' || (i % 50) END AS v FROM range(300000) r(i)"},
	{"few", "SELECT * FROM (VALUES ('C'), (NULL), (NULL)) t(v)"},
	{"intnull", "SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE i END AS v FROM range(100) r(i)"},
}

// writeMisreadFile saves misreadTables with DuckDB 1.5.6 at a storage
// version, dictionary-FSST compression on or off.
func writeMisreadFile(t *testing.T, ctx context.Context, conn *sql.Conn, path, storage string, dictFSST bool) {
	t.Helper()
	setting := "RESET disabled_compression_methods"
	if !dictFSST {
		setting = "SET disabled_compression_methods = 'dict_fsst'"
	}
	qs := []string{setting, fmt.Sprintf("ATTACH %s AS w (STORAGE_VERSION '%s')", sqlString(path), storage)}
	for _, tb := range misreadTables {
		qs = append(qs, fmt.Sprintf("CREATE TABLE w.%s AS %s", tb.name, tb.sql))
	}
	qs = append(qs, "DETACH w", "RESET disabled_compression_methods")
	for _, q := range qs {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestOldStorageMisreadCriterion holds misreadColumns to what real DuckDB
// 1.3.0 and 1.3.2 read: for files DuckDB 1.5.6 saves at storage v1.3.0
// with dictionary-FSST compression, the columns it names are exactly the
// tables those releases read differently from 1.5.6 (a VARCHAR column with
// some NULLs: DICT_FSST over an 'Empty Validity' mask; DICT_FSST with no
// NULL or only NULLs reads right); with the compression off, or at storage
// v1.4.0 (which 1.3 cannot open and 1.4 reads right), it names none.
func TestOldStorageMisreadCriterion(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	dir := t.TempDir()
	cases := []struct {
		name, storage string
		dictFSST      bool
		want          []string // tables misreadColumns names
	}{
		{"v1.3.0 dict_fsst", "v1.3.0", true, []string{"bignull", "distinctnull", "few", "onenull", "somenull"}},
		{"v1.3.0 no dict_fsst", "v1.3.0", false, nil},
		{"v1.4.0 dict_fsst", "v1.4.0", true, nil},
	}
	var v130 string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".duckdb")
			writeMisreadFile(t, ctx, conn, path, tc.storage, tc.dictFSST)
			if tc.storage == "v1.3.0" && tc.dictFSST {
				v130 = path
			}
			if _, err := conn.ExecContext(ctx, "ATTACH "+sqlString(path)+" AS cat (READ_ONLY)"); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(ctx, "DETACH cat") //nolint:errcheck // the next case attaches anew
			got, err := misreadColumns(ctx, conn, path)
			if err != nil {
				t.Fatal(err)
			}
			var tables []string
			for _, m := range got {
				if m.Column != "v" || m.Storage != tc.storage || m.Rows <= 0 {
					t.Errorf("misread %+v", m)
				}
				tables = append(tables, m.Table)
			}
			if !slices.Equal(tables, tc.want) {
				t.Errorf("misread tables %v, want %v", tables, tc.want)
			}
		})
	}
	if testing.Short() || v130 == "" {
		return // the real releases below build a program each
	}
	ref, err := realduckdb.ReadLinked(ctx, db, []string{v130})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range realduckdb.Releases[:2] { // 1.3.0, 1.3.2: the releases storage v1.3.0 admits before 1.4
		bin, err := realduckdb.Build(ctx, rel)
		if err != nil {
			t.Fatal(err)
		}
		got, err := realduckdb.Read(ctx, bin, []string{v130})
		if err != nil {
			t.Fatal(err)
		}
		var differ []string
		w := ref.File(v130)
		for _, g := range got.File(v130).Tables {
			for _, wt := range w.Tables {
				if wt.Name == g.Name && (wt.Digest != g.Digest || wt.Rows != g.Rows) {
					differ = append(differ, g.Name)
				}
			}
		}
		slices.Sort(differ)
		if want := cases[0].want; !slices.Equal(differ, want) {
			t.Errorf("DuckDB %s misreads tables %v; misreadColumns names %v", rel.DuckDB, differ, want)
		}
	}
}
