package convert

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestChangeKindsConverted: a snapshot's changes_made holding every change
// kind of 1.0 is written in each format as the registry declares the
// renames (formats.Version.NewChangeKinds): unchanged up and between formats that
// parse the same kinds, 0.4's kinds renamed to 0.3's (inline_flush to
// flushed_inlined, the compactions to compacted_table) or dropped (the
// macros), 0.3's inlining kinds renamed to 0.2's, the first of repeated
// entries kept; and each output is proved equivalent to the source, whose
// proof reads the kinds with the same declaration. The wanted values are
// what the steps wrote while they spelled the renames out themselves.
func TestChangeKindsConverted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "01_primitive_types")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	const all = `inserted_into_table:1,inlined_insert:1,inlined_delete:2,flushed_inlined:3,inline_flush:3,inline_flush:4,merge_adjacent:5,rewrite_delete:6,` +
		`created_scalar_macro:"main"."m",created_table_macro:"main"."tm",dropped_scalar_macro:7,dropped_table_macro:8`
	src := editedCopy(t, vs[len(vs)-1], `UPDATE ducklake_snapshot_changes SET changes_made = '`+all+`' WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot_changes)`)
	if got := query(t, src, `SELECT count(*) FROM c.ducklake_snapshot_changes WHERE changes_made LIKE '%inline_flush%'`); got[0][0] != "1" {
		t.Fatal("no changes_made edited: the test tests nothing")
	}
	const in03 = `inserted_into_table:1,inlined_insert:1,inlined_delete:2,flushed_inlined:3,flushed_inlined:4,compacted_table:5,compacted_table:6`
	const in02 = `inserted_into_table:1,deleted_from_table:2,compacted_table:3,compacted_table:4,compacted_table:5,compacted_table:6`
	for _, tc := range []struct {
		target *formats.Version
		want   string
	}{
		{formats.V1_1, all},
		{formats.V0_4, all},
		{formats.V0_3, in03},
		{formats.V0_2, in02},
		{formats.V0_1, in02},
	} {
		t.Run(tc.target.Name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), tc.target.Name+".duckdb")
			if _, err := Catalog(ctx, src, out, tc.target, Options{DataPath: data}); err != nil {
				t.Fatalf("to %s: %v", tc.target, err)
			}
			got := query(t, out, `SELECT changes_made FROM c.ducklake_snapshot_changes WHERE snapshot_id = (SELECT max(snapshot_id) FROM c.ducklake_snapshot_changes)`)
			if got[0][0] != tc.want {
				t.Errorf("changes_made in %s = %q, want %q", tc.target, got[0][0], tc.want)
			}
			proveEquivalent(t, src, out, data)
		})
	}
}
