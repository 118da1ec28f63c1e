package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestPartialDeletesByContent: a partial deletion file is one of three
// columns whose third is _ducklake_internal_snapshot_id, as every 0.4+
// reader decides (formats.IsPartialDeleteFile), whatever partial_max says:
// DuckLake's own ducklake_flush_inlined_data writes them with partial_max
// NULL. 06_deletes (1.0) with partial_max cleared on its two partial
// deletion files (6: snapshots 3-5, 13: 3-15): going to 0.3 and 0.2 is
// refused naming both files (partial-delete-files) and, with
// --rewrite-deletes, rewritten into 2-column chains that prove equivalent;
// going to 0.4 with an inlined deletion of data file 0 at snapshot 6 is
// refused as partial-deletes-whole-with-inlined-deletes at snapshots 6-14.
// Before, all three selected the files by partial_max: 0.3 was written
// with file 13 carried as it is (its readers delete every position from
// snapshot 3) and the proof failed, 0.4 was written and proved equivalent
// only because the proof found them by content.
func TestPartialDeletesByContent(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	for _, tc := range []struct {
		name    string
		target  *formats.Version
		inlined string // rows of ducklake_inlined_delete_1 (file_id, row_id, begin_snapshot)
		code    string
		detail  []string
	}{
		{"to 0.3", formats.V0_3, "", "partial-delete-files",
			[]string{"delete_file_id 6 ducklake-01a229fa-2545-7538-9741-e13cab5207c7-delete.parquet (snapshots 3..5)", "delete_file_id 13 ducklake-01a229fa-2ac7-72d4-9938-39ccd8231a6c-delete.parquet (snapshots 3..15)"}},
		{"to 0.2", formats.V0_2, "", "partial-delete-files", []string{"delete_file_id 13"}},
		{"to 0.4 with an inlined deletion at 6", formats.V0_4, "(0, 11, 6)", "partial-deletes-whole-with-inlined-deletes",
			[]string{"partial deletion file 13 (ducklake-01a229fa-2ac7-72d4-9938-39ccd8231a6c-delete.parquet)", "read differently at snapshots 6-14"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stmts := []string{"UPDATE ducklake_delete_file SET partial_max = NULL"}
			if tc.inlined != "" {
				stmts = append(stmts, "CREATE TABLE ducklake_inlined_delete_1(file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)",
					"INSERT INTO ducklake_inlined_delete_1 VALUES "+tc.inlined)
			}
			src := editedCopy(t, vs[len(vs)-1], stmts...)
			if n := query(t, src, "SELECT count(*) FROM c.ducklake_delete_file WHERE partial_max IS NOT NULL"); n[0][0] != "0" {
				t.Fatalf("partial_max left on %s files", n[0][0])
			}
			data := columnNamedFolder(t, t.TempDir())
			copyTree(t, filepath.Join(lake, "data"), data)
			opts := Options{DataPath: data, AllowInlined: true}
			_, err := Check(ctx, src, tc.target, opts)
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("Check: %v, want refused for %s", err, tc.code)
			}
			i := slices.IndexFunc(refused.Findings, func(f Finding) bool { return f.Code == tc.code })
			if i < 0 {
				t.Fatalf("refused for %v, want %s", refused.Findings, tc.code)
			}
			for _, want := range tc.detail {
				if !strings.Contains(refused.Findings[i].Detail, want) {
					t.Errorf("refusal detail %q does not name %q", refused.Findings[i].Detail, want)
				}
			}
			opts.RewriteDeletes = true
			out := filepath.Join(t.TempDir(), "out.duckdb")
			res, err := Catalog(ctx, src, out, tc.target, opts)
			if err != nil {
				t.Fatalf("with --rewrite-deletes: %v", err)
			}
			if !slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Code == tc.code && f.Severity == Note }) {
				t.Errorf("no note of the rewritten partial deletion files in %v", res.Findings)
			}
			proveEquivalent(t, src, out, data)
		})
	}
}
