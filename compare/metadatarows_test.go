package compare

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// TestMetadataRows: DuckLake's readers load every ducklake_metadata row
// (LoadDuckLake, LoadExistingDuckLake; formats/metadata.go): each global
// version row is checked, each encrypted row applied (the last in scan
// order wins), a scope other than schema or table fails the ATTACH. The
// proof's reader took the first row of each key, so a published catalog
// (B, a tampered copy of a real catalog, as a conversion leaves it) with a
// second version row, a second encrypted value or an unknown scope was
// equivalent to its source (trial findings repro-8, repro-9). Now such a
// catalog cannot be read (a "catalog" difference naming it, the key and
// the rows); rows the readers load alike (a repeated value, valid scoped
// settings) stay equivalent.
func TestMetadataRows(t *testing.T) {
	lake, enc := lastVersion(t, "lakes", "15_encryption")
	encData := filepath.Join(lake, "data")
	stamp04 := `UPDATE ducklake_metadata SET value = '0.4' WHERE key = 'version'`
	for _, tc := range []struct {
		name string
		a, b []string
		want string // "" equivalent, else in the catalog difference
	}{
		{"0.4, a second version row '1.0' (repro-9)", []string{stamp04},
			[]string{stamp04, `INSERT INTO ducklake_metadata VALUES ('version', '1.0', NULL, NULL)`},
			"key 'version', rows ('version', '0.4'), ('version', '1.0'): every DuckLake release checks each version row"},
		{"1.0, the version row twice", nil,
			[]string{`INSERT INTO ducklake_metadata VALUES ('version', '1.0', NULL, NULL)`}, ""},
		{"encrypted 'true' then 'false' (repro-8)", nil,
			[]string{`INSERT INTO ducklake_metadata VALUES ('encrypted', 'false', NULL, NULL)`},
			"key 'encrypted', rows ('encrypted', 'true'), ('encrypted', 'false'): DuckLake applies every row, the last in table scan order wins"},
		{"encrypted 'true' twice", nil,
			[]string{`INSERT INTO ducklake_metadata VALUES ('encrypted', 'true', NULL, NULL)`}, ""},
		{"encrypted 'TRUE'", nil,
			[]string{`UPDATE ducklake_metadata SET value = 'TRUE' WHERE key = 'encrypted'`},
			`key 'encrypted', rows ('encrypted', 'TRUE'): every DuckLake release fails its ATTACH on a value other than 'true' or 'false'`},
		{"an unknown scope (repro-8)", nil,
			[]string{`INSERT INTO ducklake_metadata VALUES ('foo', 'bar', 'weird', 1)`},
			`key 'foo', rows ('foo', 'bar', 'weird', 1): scope 'weird' is neither 'schema' nor 'table'`},
		{"a scope in upper case", nil,
			[]string{`INSERT INTO ducklake_metadata VALUES ('data_inlining_row_limit', '10', 'TABLE', 1)`},
			`scope 'TABLE' is neither 'schema' nor 'table'`},
		{"a schema setting without scope_id", nil,
			[]string{`INSERT INTO ducklake_metadata VALUES ('data_inlining_row_limit', '10', 'schema', NULL)`},
			"rows ('data_inlining_row_limit', '10', 'schema', NULL): a schema setting without a scope_id"},
		{"schema and table settings", nil,
			[]string{`INSERT INTO ducklake_metadata VALUES ('data_inlining_row_limit', '10', 'schema', 0), ('data_inlining_row_limit', '20', 'table', 1), ('data_inlining_row_limit', '30', 'table', 1)`}, ""},
		// With a DATA_PATH (and OVERRIDE_DATA_PATH), as a repository's
		// readers attach, the catalog's data_path rows are not read.
		{"two data_path values under a data path override", nil,
			[]string{`INSERT INTO ducklake_metadata VALUES ('data_path', '/elsewhere/', NULL, NULL)`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ca, cb := enc, tamper(t, enc, tc.b...)
			if tc.a != nil {
				ca = tamper(t, enc, tc.a...)
			}
			rep, err := Catalogs(context.Background(), ca, cb, Options{DataPath: encData, Engines: readerDBs})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Catalogs: %v, want equivalent\n%s", err, reportLines(rep))
				}
				return
			}
			wantCatalogDifference(t, rep, err, cb, tc.want)
			if !errors.Is(err, formats.ErrMetadataRows) {
				t.Errorf("Catalogs: %v, want it to match formats.ErrMetadataRows", err)
			}
		})
	}
}

// TestMetadataDataPath: read without a data path override, the catalog's
// data_path rows are taken as the format's readers take them
// (formats.DataPathRule): two different values are refused for every
// format; one value twice is refused where the readers compare the second
// row to the first as they keep it, with its trailing '/' (1.0: from 1.5.2
// trailing slashes are trimmed to one), and read otherwise.
func TestMetadataDataPath(t *testing.T) {
	_, catalog := lastVersion(t, "lakes", "06_deletes")
	for _, tc := range []struct {
		name  string
		stmts []string
		want  string // "" opens, else in the error
		path  string // the data path read
	}{
		{"one row", nil, "", "https://fdl.example/06_deletes/data/"},
		{"the same value twice", []string{`INSERT INTO ducklake_metadata SELECT key, value, scope, scope_id FROM ducklake_metadata WHERE key = 'data_path'`}, "", "https://fdl.example/06_deletes/data/"},
		{"two values", []string{`INSERT INTO ducklake_metadata VALUES ('data_path', '/elsewhere/', NULL, NULL)`},
			"key 'data_path', rows ('data_path', 'https://fdl.example/06_deletes/data/'), ('data_path', '/elsewhere/'): from DuckDB 1.4 DuckLake fails the ATTACH", ""},
		{"a value without its slash, twice", []string{`UPDATE ducklake_metadata SET value = '/lake/data' WHERE key = 'data_path'`,
			`INSERT INTO ducklake_metadata VALUES ('data_path', '/lake/data', NULL, NULL)`},
			"format 1.0's readers keep the first as '/lake/data/' and fail the ATTACH", ""},
		{"a value with two slashes, twice", []string{`UPDATE ducklake_metadata SET value = '/lake/data//' WHERE key = 'data_path'`,
			`INSERT INTO ducklake_metadata VALUES ('data_path', '/lake/data//', NULL, NULL)`},
			"format 1.0's readers keep the first as '/lake/data/'", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := catalog
			if tc.stmts != nil {
				c = tamper(t, catalog, tc.stmts...)
			}
			r, err := Open(context.Background(), c, ReaderOptions{Engines: readerDBs})
			if r != nil {
				defer r.Close()
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Open: %v, want it read", err)
				}
				if r.DataPath() != tc.path {
					t.Errorf("data path %q, want %q", r.DataPath(), tc.path)
				}
				return
			}
			if !errors.Is(err, ErrIncomparable) || !errors.Is(err, formats.ErrMetadataRows) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), c) {
				t.Fatalf("Open: %v, want a refusal naming %s and %q", err, c, tc.want)
			}
		})
	}
}
