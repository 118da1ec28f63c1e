package convert

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestTwoColumnDeleteTargets is review rv16-c F2: 06_deletes (a real 1.0
// lake) whose delete file 6 is a 3-column file with partial_max NULL whose
// third column is not a partial deletion file's (Iceberg's row; the shape
// 1.0's ducklake_flush_inlined_data writes, a third column
// _ducklake_internal_snapshot_id, is a partial deletion file, which the
// 0.4 -> 0.3 step refuses or rewrites: TestPartialDeletesByContent). No
// step rewrites it, so file 6 was carried with its three columns into 0.3
// and the proof passed: but DuckDB 1.4.0's
// DuckLake (09f9b85b), a 0.3 reader, refuses delete files of three
// columns, as 0.2's do (formats.QuirkDeleteFilesTwoColumns). Now 0.3 and
// 0.2 are refused naming delete file 6, the copy written without the
// reader checks is not proved (main.del unreadable), and 0.4 and 1.1,
// whose readers accept it, convert.
func TestTwoColumnDeleteTargets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	catalog, data, edit := threeColumnDeletes(t)
	src := editedCopy(t, catalog, edit)
	opts := Options{DataPath: data, RewriteDeletes: true}
	const code = "delete-files-two-columns-only"
	var targets []*formats.Version
	var alone []error // each target's Check
	for _, tc := range []struct {
		target  *formats.Version
		refused bool
	}{
		{formats.V0_2, true}, {formats.V0_3, true}, {formats.V0_4, false}, {formats.V1_1, false},
	} {
		t.Run(tc.target.Name, func(t *testing.T) {
			_, err := Check(ctx, src, tc.target, opts)
			targets, alone = append(targets, tc.target), append(alone, err)
			var refused *RefusedError
			var named bool
			if errors.As(err, &refused) {
				for _, f := range refused.Findings {
					if f.Code == code {
						named = strings.Contains(f.Detail, "table 1 del: delete_file_id 6 ") && strings.Contains(f.Detail, "has 3 columns") && strings.Contains(f.Reason, "09f9b85b")
						if !named {
							t.Errorf("refusal %q does not name delete file 6 and its 3 columns (reason %q)", f.Detail, f.Reason)
						}
					}
				}
			} else if err != nil && !errors.Is(err, ErrRefused) {
				t.Fatal(err)
			}
			if named != tc.refused {
				t.Fatalf("Check: %v; refused for %s: %v, want %v", err, code, named, tc.refused)
			}
			out := filepath.Join(t.TempDir(), "out.duckdb")
			if !tc.refused {
				if _, err := Catalog(ctx, src, out, tc.target, opts); err != nil {
					t.Fatal(err)
				}
				if _, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data}); err != nil {
					t.Fatalf("compare with the %s conversion: %v, want equivalent", tc.target, err)
				}
				return
			}
			// Written without the reader checks, the proof must not pass it.
			o := opts
			o.faithful = true
			if _, err := Catalog(ctx, src, out, tc.target, o); err != nil {
				t.Fatal(err)
			}
			rep, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data})
			if !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatalf("compare with the faithful %s conversion: %v, want not equivalent", tc.target, err)
			}
			found := false
			for _, d := range rep.Differences {
				if d.Table == "main.del" && d.Kind == "unreadable" && strings.Contains(d.String(), code) {
					found = true
				}
			}
			if !found {
				t.Errorf("want main.del unreadable (%s), got %v", code, rep.Differences)
			}
		})
	}
	// In one pass, each target finds what it finds alone.
	assertPassAsAlone(t, src, targets, opts, alone)
}

// threeColumnDeletes is 06_deletes (a real 1.0 lake) whose delete file 6
// is to be a 3-column file with partial_max NULL whose third column is
// not a partial deletion file's (Iceberg's row): its last version's
// catalog, a copy of its data folder holding that file beside file 6, and
// edit, the statement that points delete file 6 at it (path, size,
// footer size, partial_max NULL).
func threeColumnDeletes(t *testing.T) (catalog, data, edit string) {
	t.Helper()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	data = filepath.Join(t.TempDir(), "data")
	copyTree(t, filepath.Join(lake, "data"), data)
	dir := filepath.Join(data, "main", "del")
	orig := filepath.Join(dir, "ducklake-01a229fa-2545-7538-9741-e13cab5207c7-delete.parquet")
	three := filepath.Join(dir, "ducklake-three-columns-delete.parquet")
	db := testduck.Open(t, "")
	_, err := db.Exec(fmt.Sprintf(`COPY (SELECT file_path, pos, 3::BIGINT AS "row" FROM read_parquet('%s') ORDER BY pos) TO '%s' (FORMAT parquet)`, orig, three))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(three)
	if err != nil {
		t.Fatal(err)
	}
	footer := binary.LittleEndian.Uint32(b[len(b)-8:])
	edit = fmt.Sprintf(`UPDATE ducklake_delete_file SET path = '%s', partial_max = NULL, file_size_bytes = %d, footer_size = %d WHERE delete_file_id = 6`, filepath.Base(three), len(b), footer)
	return vs[len(vs)-1], data, edit
}
