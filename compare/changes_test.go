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
			rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: data, Engines: readerDBs})
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

// TestParsedChanges: changes_made as each format's readers parse it, to
// the text compared: kinds in any letter case, the values of each kind as
// a set (a comma inside double quotes is part of a value), inline_flush
// read as flushed_inlined; a kind the readers do not know, or no colon
// after a known one, is the readers' error; a kind the other side's format
// cannot hold is read as convert writes it there; where the readers'
// format is unknown (nil), every kind is taken and one the other side can
// neither hold nor be written as is kept (mutation test, session 23: each
// held with the rule removed).
func TestParsedChanges(t *testing.T) {
	for _, tc := range []struct {
		in         string
		own, other *formats.Version
		want       string
	}{
		{`inserted_into_table:1,Created_Table:"main"."t",inserted_into_table:1`, formats.V1_0, formats.V1_0, `created_table:"main"."t",inserted_into_table:1`},
		{`created_table:"main"."a,b",inserted_into_table:1`, formats.V1_0, formats.V1_0, `created_table:"main"."a,b",inserted_into_table:1`},
		{`inline_flush:2`, formats.V1_0, formats.V1_0, `flushed_inlined:2`},
		{`inline_flush:2`, formats.V1_0, nil, `flushed_inlined:2`},
		{`inline_flush:2,created_scalar_macro:"main"."m"`, formats.V0_4, formats.V0_3, `flushed_inlined:2`},
		{`x:1`, formats.V1_0, formats.V1_0, `unreadable: Unsupported change type x`},
		{`inserted_into_table:1,Nope:2`, formats.V1_0, formats.V1_0, `unreadable: Unsupported change type Nope`},
		{`inserted_into_table`, formats.V1_0, formats.V1_0, `unreadable: Expected a colon after the change type`},
		{`nope`, formats.V1_0, formats.V1_0, `unreadable: Unsupported change type nope`},
		{`:1`, formats.V1_0, formats.V1_0, `unreadable: Unsupported change type `},
		{`x:1`, nil, formats.V0_1, `x:1`},
		{`inlined_insert:1`, nil, formats.V0_1, `inserted_into_table:1`},
		{``, formats.V1_0, formats.V1_0, ``},
	} {
		v := tc.in
		if got := parsedChanges(&v, tc.own, tc.other); got != tc.want {
			t.Errorf("parsedChanges(%q, %v, %v) = %q, want %q", tc.in, tc.own, tc.other, got, tc.want)
		}
	}
	if got := parsedChanges(nil, formats.V1_0, formats.V1_0); got != "NULL" {
		t.Errorf("parsedChanges(NULL) = %q, want NULL", got)
	}
}
