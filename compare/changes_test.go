package compare

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// TestSnapshotChangesCompared: ducklake_snapshot_changes.changes_made is
// compared per snapshot as DuckLake's readers parse it (ducklake_snapshots()):
// a value changed, an entry of a kind they refuse, two snapshots' rows
// swapped differ; another letter case of a kind, entries reordered or
// repeated are read alike and do not.
func TestSnapshotChangesCompared(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name, sql string
		differs   bool
	}{
		{"value appended", `UPDATE ducklake_snapshot_changes SET changes_made = changes_made || 'x' WHERE snapshot_id = 2`, true},
		{"unknown kind", `UPDATE ducklake_snapshot_changes SET changes_made = changes_made || ',x:1' WHERE snapshot_id = 2`, true},
		{"no colon", `UPDATE ducklake_snapshot_changes SET changes_made = changes_made || ',inserted_into_table' WHERE snapshot_id = 2`, true},
		{"rows swapped", `UPDATE ducklake_snapshot_changes SET snapshot_id = CASE snapshot_id WHEN 2 THEN 3 ELSE 2 END WHERE snapshot_id IN (2, 3)`, true},
		{"NULL", `UPDATE ducklake_snapshot_changes SET changes_made = NULL WHERE snapshot_id = 2`, true},
		{"kind in upper case", `UPDATE ducklake_snapshot_changes SET changes_made = upper(changes_made) WHERE snapshot_id = 2`, false},
		{"reordered and repeated", `UPDATE ducklake_snapshot_changes SET changes_made = 'inserted_into_table:1,created_table:"main"."del",inserted_into_table:1' WHERE snapshot_id = 1`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tamper(t, catalog, tc.sql)
			rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: data})
			if !tc.differs {
				if err != nil {
					t.Fatalf("want equivalent: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "schema", "snapshot changes") {
				t.Fatalf("want a snapshot changes difference, got %v", err)
			}
		})
	}
}

// TestParsedChangesAcrossFormats: the kinds convert writes for a format
// whose readers lack them read alike.
func TestParsedChangesAcrossFormats(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		a, b   string
		fa, fb *formats.Version
		same   bool
	}{
		{"inlined_insert:1,flushed_inlined:2", "inserted_into_table:1,compacted_table:2", formats.V1_0, formats.V0_2, true},
		{"inline_flush:2,merge_adjacent:2,created_scalar_macro:\"main\".\"m\"", "flushed_inlined:2,compacted_table:2", formats.V0_4, formats.V0_3, true},
		{"inlined_insert:1", "inlined_insert:1", formats.V1_0, formats.V0_3, true},
		{"inlined_insert:1", "inserted_into_table:1", formats.V1_0, formats.V0_3, false},
		{"inlined_insert:1", "inlined_insert:1", formats.V0_3, formats.V0_2, false}, // 0.2's readers refuse it
	} {
		pa, pb := parsedChanges(s(tc.a), tc.fa, tc.fb), parsedChanges(s(tc.b), tc.fb, tc.fa)
		if (pa == pb) != tc.same {
			t.Errorf("%s (%s) vs %s (%s): %q vs %q, want same=%v", tc.a, tc.fa.Name, tc.b, tc.fb.Name, pa, pb, tc.same)
		}
	}
}
