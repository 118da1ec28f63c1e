package compare

import "testing"

// TestDifferenceStringNamesWhole: a difference's one line names a table,
// an item and both sides whole, their line breaks escaped, so that a
// message cut to its first line (check's findings) keeps them; the fields
// keep the names as they are.
func TestDifferenceStringNamesWhole(t *testing.T) {
	s := int64(3)
	d := Difference{Kind: "files", Snapshot: &s, Table: "main.t\n::error::x", Item: "main/f\n.parquet", A: "name=a\r\nb", Reason: "record_count differs"}
	want := `files at snapshot 3 in "main.t\n::error::x": record_count differs [main/f\n.parquet] (A: name=a\r\nb; B: absent)`
	if got := d.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	if d.Table != "main.t\n::error::x" {
		t.Errorf("Table = %q", d.Table)
	}
}
