package lakegen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/fdljson"
)

// TestVersionChanges: every version with a parent writes version.json's
// changes, the column differences from the parent by column_id: a drop and
// a rename are breaking and name the column by its name at the parent, an
// addition is not, a created table or view is a table-level create_table
// or create_view, operations undone within the version (a column added
// and dropped, a rename and its reverse) leave nothing, a column dropped
// and added again under its name is a drop and an add, a table's
// partition keys or comment and a column's comment changed are a
// set_partitioned_by and a set_comment (the same keys set again, or the
// same comment, are none), and a version that changes nothing of its
// tables writes "changes": []; the first version writes none. Before,
// lakegen wrote no changes at all; then none for partition keys and
// comments, which check counts as differences.
func TestVersionChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cols := []Column{{Name: "a", Type: "INTEGER"}, {Name: "b", Type: "VARCHAR"}, {Name: "c", Type: "INTEGER"}, {Name: "d", Type: "INTEGER"}}
	spec := Spec{Name: "changes", Versions: []Version{
		{Snapshots: []Snapshot{{CreateTable{Table: "t", Columns: cols}, Insert{Table: "t", Select: "SELECT i, 'x', i, i FROM range(4) r(i)"}}}},
		{Snapshots: []Snapshot{
			{AddColumn{Table: "t", Column: Column{Name: "e", Type: "VARCHAR"}}, DropColumn{Table: "t", Column: "b"}},
			{RenameColumn{Table: "t", From: "c", To: "cc"}},
			{CreateTable{Table: "u", Columns: []Column{{Name: "x", Type: "INTEGER"}}}},
			{AddColumn{Table: "t", Column: Column{Name: "tmp", Type: "DATE"}}},
			{DropColumn{Table: "t", Column: "tmp"}},
			{RenameColumn{Table: "t", From: "d", To: "d2"}},
			{RenameColumn{Table: "t", From: "d2", To: "d"}},
			{PartitionBy{Table: "t", Columns: []string{"e"}}},
		}},
		{Snapshots: []Snapshot{
			{DropColumn{Table: "t", Column: "a"}},
			{AddColumn{Table: "t", Column: Column{Name: "a", Type: "INTEGER"}}},
			{RenameColumn{Table: "t", From: "cc", To: "c3"}, DropColumn{Table: "t", Column: "c3"}},
			{AddColumn{Table: "t", Column: Column{Name: "f", Type: "INTEGER"}}, RenameColumn{Table: "t", From: "f", To: "g"}},
			{Comment{Table: "u", Text: "no column change"}},
		}},
		{Snapshots: []Snapshot{
			{Comment{Table: "t", Column: "e", Text: "a column comment"}, Comment{Table: "u", Text: "no column change"}},
			{PartitionBy{Table: "t", Columns: []string{"e"}}},
		}},
		{Snapshots: []Snapshot{{Insert{Table: "u", Select: "SELECT 1"}}}},
	}}
	const tt, u = "main.t", "main.u"
	want := [][]fdljson.Change{
		nil,
		{{Table: tt, Kind: "drop_column", Column: "b", Breaking: true}, {Table: tt, Kind: "rename_column", Column: "c", Breaking: true},
			{Table: tt, Kind: "add_column", Column: "e"}, {Table: tt, Kind: "set_partitioned_by"}, {Table: u, Kind: "create_table"}},
		{{Table: tt, Kind: "drop_column", Column: "a", Breaking: true}, {Table: tt, Kind: "drop_column", Column: "cc", Breaking: true},
			{Table: tt, Kind: "add_column", Column: "a"}, {Table: tt, Kind: "add_column", Column: "g"}, {Table: u, Kind: "set_comment"}},
		{{Table: tt, Kind: "set_comment", Column: "e"}},
		{},
	}
	demo := Demo()
	demo.RecordRows = false
	const m = "main.measurements"
	wantDemo := [][]fdljson.Change{
		nil,
		{{Table: m, Kind: "add_column", Column: "unit"}, {Table: m, Kind: "set_comment"}, {Table: "main.by_city", Kind: "create_view"}},
		{{Table: m, Kind: "rename_column", Column: "temp", Breaking: true}, {Table: m, Kind: "drop_column", Column: "taken", Breaking: true}},
	}
	for _, tc := range []struct {
		spec Spec
		want [][]fdljson.Change
	}{{spec, want}, {demo, wantDemo}} {
		t.Run(tc.spec.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			res, err := Repository(ctx, dir, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range res.Versions {
				b, err := os.ReadFile(filepath.Join(dir, "versions", v.ID, "version.json"))
				if err != nil {
					t.Fatal(err)
				}
				doc, err := fdljson.ParseVersion("version.json", v.ID, b)
				if err != nil {
					t.Fatal(err)
				}
				if (doc.Changes == nil) != (tc.want[i] == nil) || !slices.Equal(doc.Changes, tc.want[i]) {
					t.Errorf("version %d: changes = %s, want %s", v.Seq, show(doc.Changes), show(tc.want[i]))
				}
			}
		})
	}
}

// show writes a changes list, telling nil (absent) from empty.
func show(c []fdljson.Change) string {
	if c == nil {
		return "absent"
	}
	return fmt.Sprintf("%+v", c)
}
