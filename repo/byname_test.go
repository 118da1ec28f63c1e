package repo

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestFilesJSONReadByName: files.json lets readers without DuckLake read a
// table whose files have no deletes and whose renamed_columns is false
// (FDL 0.1), but such a reader, taking fields by name, reads NULL for a
// column added with a default after a file was written (05: main.d's k,
// n_bigint ... and main.d3's struct field col1.k, which DuckLake reads as 7,
// 1234567890123 ... and 42) and a dropped column's values for a column
// added under its name (02: main.evo's b, dropped as DOUBLE and added
// again as VARCHAR, whose first files hold 1.5, 2.5, 3.5 under "b";
// main.mixed's col2 likewise; 17: main.calt's i, whose merged files begun
// at 13 and 16 hold 10-40 under "i"; 09: main.base's k, DEFAULT 'k'). The content pass passed both without a
// word; it now warns (files.json agrees with the catalog: no flag holds it).
func TestFilesJSONReadByName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		lake string
		want []string
		not  []string
	}{
		{"09_views", []string{"table main.base: k (added at snapshot 22 with default k, which DuckLake reads for it in 2 file(s) without it (main/base/ducklake-", ".parquet), a reader by name NULL)"}, nil},
		{"17_compaction", []string{"table main.calt: i (added at snapshot 21 under the name of a dropped column (column_id 2, snapshots 12-18) whose values 2 file(s) hold under it"}, nil},
		{"02_add_drop_columns", []string{"table main.evo: b (added at snapshot 7 under the name of a dropped column (column_id 3, snapshots 1-5) whose values 2 file(s) hold under it", "table main.mixed: col2 (added at snapshot 15 under the name of a dropped column (column_id 2"}, []string{"main.gone"}},
		{"05_defaults_not_null", []string{"table main.d: ", "k (added at snapshot 5 with default 7, which DuckLake reads for it in 2 file(s) without it", "n_bigint (added at snapshot 6 with default 1234567890123", "table main.d3: col1.k (added at snapshot 24 with default 42, which DuckLake reads for it in 1 file(s) without it"}, []string{"s1 (", "s2 (", "main.nn", "main.d2"}},
	} {
		t.Run(tc.lake, func(t *testing.T) {
			t.Parallel()
			lake := testlakes.Lake(t, "lakes", tc.lake)
			st := copyLake(t, lake, "fdl.json", "versions")
			r, err := load(ctx, st, &Options{DataPath: filepath.Join(lake, "data")})
			if err != nil {
				t.Fatal(err)
			}
			v := r.versions[len(r.versions)-1]
			source := compare.NewSource()
			defer source.Close()
			var warned []string
			for _, is := range r.checkContents(ctx, v, newFrozenCopies(r, t.TempDir(), nil, v.id), source, compare.NewDiskCheck(), true) {
				switch {
				case is.Problem == ProblemWarning && strings.Contains(is.Detail, "readers without DuckLake"):
					warned = append(warned, is.Detail)
				case strings.Contains(is.Detail, "renamed_columns is false in files.json"):
				default:
					t.Errorf("%s: %s", is.Problem, is.Detail)
				}
			}
			if len(warned) != 1 {
				t.Fatalf("warnings of readers by name: %q, want one", warned)
			}
			for _, w := range tc.want {
				if !strings.Contains(warned[0], w) {
					t.Errorf("warning %q\nlacks %q", warned[0], w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(warned[0], w) {
					t.Errorf("warning %q\nnames %q", warned[0], w)
				}
			}
		})
	}
}
