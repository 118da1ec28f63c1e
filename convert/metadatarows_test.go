package convert

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestMetadataRowsSource: the converter and the proof's reader hold a
// catalog's ducklake_metadata to one definition of what DuckLake's readers
// load (formats.CheckMetadata): a row of an unknown scope, a scoped row
// without scope_id, two encrypted values or one other than true/false is
// refused by both, naming the catalog, the key and the rows (convert: not
// a DuckLake catalog, exit 6); valid scoped settings are read by both. Two
// version rows stay the converter's own refusal ("want 1": it rewrites
// every version row); the reader refuses them when their values differ.
func TestMetadataRowsSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	vs := versionCatalogs(t, testlakes.Lake(t, "lakes", "06_deletes"))
	orig := vs[len(vs)-1]
	for _, tc := range []struct {
		name        string
		stmts       []string
		convert, rd string // "" reads, else in the error
	}{
		{"an unknown scope", []string{`INSERT INTO ducklake_metadata VALUES ('foo', 'bar', 'weird', 1)`},
			"key 'foo', rows ('foo', 'bar', 'weird', 1): scope 'weird' is neither 'schema' nor 'table'", "scope 'weird' is neither"},
		{"a table setting without scope_id", []string{`INSERT INTO ducklake_metadata VALUES ('data_inlining_row_limit', '10', 'table', NULL)`},
			"a table setting without a scope_id", "a table setting without a scope_id"},
		{"two encrypted values", []string{`INSERT INTO ducklake_metadata VALUES ('encrypted', 'true', NULL, NULL)`},
			"key 'encrypted', rows ('encrypted', 'false'), ('encrypted', 'true')", "key 'encrypted'"},
		{"encrypted 'no'", []string{`UPDATE ducklake_metadata SET value = 'no' WHERE key = 'encrypted'`},
			"other than 'true' or 'false'", "other than 'true' or 'false'"},
		{"two version values", []string{`INSERT INTO ducklake_metadata VALUES ('version', '0.4', NULL, NULL)`},
			"2 version rows in ducklake_metadata, want 1", "key 'version', rows ('version', '1.0'), ('version', '0.4')"},
		// Another type than DuckLake's writers give a column: its readers
		// bind their SQL to the type (formats.Version.TypeDiffs), so
		// convert refuses such a source as the proof refuses it; convert
		// took it before, and the proof of its output could not read A.
		{"snapshot_time VARCHAR", []string{`ALTER TABLE ducklake_snapshot ALTER snapshot_time SET DATA TYPE VARCHAR`},
			"ducklake_snapshot.snapshot_time is VARCHAR, format 1.0 has TIMESTAMP WITH TIME ZONE", "ducklake_snapshot.snapshot_time is VARCHAR"},
		{"file statistics data_file_id VARCHAR", []string{`ALTER TABLE ducklake_file_column_stats ALTER data_file_id SET DATA TYPE VARCHAR`},
			"ducklake_file_column_stats.data_file_id is VARCHAR, format 1.0 has BIGINT", "ducklake_file_column_stats.data_file_id is VARCHAR"},
		// A collation, which duckdb_columns() does not show.
		{"statistics bounds collated", []string{`ALTER TABLE ducklake_file_column_stats ALTER max_value SET DATA TYPE VARCHAR COLLATE NOCASE`},
			"ducklake_file_column_stats.max_value is VARCHAR COLLATE NOCASE, format 1.0 has VARCHAR", "ducklake_file_column_stats.max_value is VARCHAR COLLATE NOCASE"},
		{"scoped settings", []string{`INSERT INTO ducklake_metadata VALUES ('data_inlining_row_limit', '10', 'schema', 0), ('data_inlining_row_limit', '20', 'table', 1)`}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := editedCopy(t, orig, tc.stmts...)
			_, err := Check(ctx, src, formats.V1_1, Options{})
			rd, rerr := compare.Open(ctx, src, compare.ReaderOptions{})
			if rd != nil {
				rd.Close()
			}
			for _, c := range []struct {
				who  string
				err  error
				want string
			}{{"convert", err, tc.convert}, {"reader", rerr, tc.rd}} {
				switch {
				case c.want == "" && c.err != nil:
					t.Errorf("%s: %v, want it read", c.who, c.err)
				case c.want != "" && (c.err == nil || !strings.Contains(c.err.Error(), c.want) || !strings.Contains(c.err.Error(), src)):
					t.Errorf("%s: %v, want an error naming %s and %q", c.who, c.err, src, c.want)
				}
			}
			if tc.convert != "" && !errors.Is(err, ErrNotCatalog) {
				t.Errorf("convert: %v, want ErrNotCatalog (exit 6)", err)
			}
		})
	}
}
