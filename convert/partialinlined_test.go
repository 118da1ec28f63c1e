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

// TestPartialDeletesWithInlined: DuckDB 1.5.0/1.5.1 (format 0.4) read every
// position of a partial deletion file as deleted where its data file also
// has visible inlined deletions (formats.QuirkPartialDeletesWholeWithInlined).
// 06_deletes (a real 1.0 lake): delete file 13 of data file 0 deletes
// position 1 at snapshot 15, the rest at 3-5. With an inlined deletion of
// data file 0 at snapshot 6, a 0.4 catalog reads position 1 deleted at 6-14:
// writing it is refused naming the table, both files and those snapshots
// (it was written and proved equivalent), or with --rewrite-deletes the
// partial deletion file becomes 2-column files and the proof holds; a 0.4
// source with it (read as 1.5.1 reads it) is refused for 1.0 and 1.1, whose
// readers keep the per-row snapshots.
func TestPartialDeletesWithInlined(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	const code = "partial-deletes-whole-with-inlined-deletes"
	for _, tc := range []struct {
		name      string
		inlined   string // rows of ducklake_inlined_delete_1 (file_id, row_id, begin_snapshot)
		source    string // the source's format (its version row)
		target    *formats.Version
		want      string // refusal codes
		snapshots string // in the refusal's detail
	}{
		{"1.0 to 0.4, inlined deletion at 6", "(0, 11, 6)", "1.0", formats.V0_4, code, "read differently at snapshots 6-14"},
		{"1.0 to 0.4, inlined deletions at 12 and 9", "(0, 11, 12), (0, 12, 9)", "1.0", formats.V0_4, code, "read differently at snapshots 9-14"},
		{"1.0 to 0.4, inlined deletion at the last snapshot", "(0, 11, 15)", "1.0", formats.V0_4, "", ""},
		{"1.0 to 0.4, inlined deletion of a file deleted up to 5", "(1, 11, 6)", "1.0", formats.V0_4, "", ""},
		{"0.4 to 1.0, inlined deletion at 6", "(0, 11, 6)", "0.4", formats.V1_0, code, "read differently at snapshots 6-14"},
		{"0.4 to 1.1, inlined deletion at 6", "(0, 11, 6)", "0.4", formats.V1_1, code, "read differently at snapshots 6-14"},
		{"0.4 to 1.0, inlined deletion at the last snapshot", "(0, 11, 15)", "0.4", formats.V1_0, "", ""},
		{"1.0 to 1.1, inlined deletion at 6", "(0, 11, 6)", "1.0", formats.V1_1, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "src.duckdb")
			copyFile(t, vs[len(vs)-1], src)
			execOn(t, src, "CREATE TABLE ducklake_inlined_delete_1(file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)",
				"INSERT INTO ducklake_inlined_delete_1 VALUES "+tc.inlined,
				"UPDATE ducklake_metadata SET value = '"+tc.source+"' WHERE key = 'version'")
			opts := Options{AllowInlined: true}
			got, err := refusalCodes(t, src, tc.target, opts)
			if err != nil || got != tc.want {
				t.Fatalf("refused for %q (%v), want %q", got, err, tc.want)
			}
			if tc.want == "" {
				return
			}
			_, err = Check(ctx, src, tc.target, opts)
			var refused *RefusedError
			if !errors.As(err, &refused) || len(refused.Findings) != 1 {
				t.Fatalf("Check: %v, want one refusal", err)
			}
			f := refused.Findings[0]
			for _, want := range []string{"table 1 del", "data file 0 (ducklake-01a229fa-2280-7a87-ac6f-bba0032cc116.parquet)",
				"partial deletion file 13 (ducklake-01a229fa-2ac7-72d4-9938-39ccd8231a6c-delete.parquet)", tc.snapshots} {
				if !strings.Contains(f.Detail, want) {
					t.Errorf("refusal detail %q does not name %q", f.Detail, want)
				}
			}
			wantOption := "--rewrite-deletes --data DIR"
			if tc.target != formats.V0_4 {
				wantOption = "" // the source's reading has no rewrite
			}
			if f.Option != wantOption || !strings.Contains(f.Reason, "788c309e") {
				t.Errorf("refusal option %q (want %q), reason %q", f.Option, wantOption, f.Reason)
			}
			if tc.target != formats.V0_4 {
				return
			}
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			out := filepath.Join(t.TempDir(), "out.duckdb")
			res, err := Catalog(ctx, src, out, tc.target, Options{AllowInlined: true, DataPath: data, RewriteDeletes: true})
			if err != nil {
				t.Fatalf("with --rewrite-deletes: %v", err)
			}
			if !slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Code == code && f.Severity == Note }) {
				t.Errorf("no note of the rewritten partial deletion files in %v", res.Findings)
			}
			proveEquivalent(t, src, out, data)
		})
	}
}

// TestSnapshotRanges: the snapshots a refusal names, as runs.
func TestSnapshotRanges(t *testing.T) {
	for _, tc := range []struct {
		ids  []int64
		want string
	}{
		{nil, ""},
		{[]int64{7}, "7"},
		{[]int64{6, 7, 8, 9}, "6-9"},
		{[]int64{3, 6, 7, 8}, "3, 6-8"},
		{[]int64{1, 2, 4, 6, 7}, "1-2, 4, 6-7"},
	} {
		if got := snapshotRanges(tc.ids); got != tc.want {
			t.Errorf("snapshotRanges(%v) = %q, want %q", tc.ids, got, tc.want)
		}
	}
}
