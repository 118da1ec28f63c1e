package lakegen

// version.json's "changes" (FDL 0.1, Versions) lists the column differences
// from the parent, each saying whether SQL written for the parent may fail
// ("breaking": a column dropped, renamed or recreated). lakegen derives
// them from what it froze: each table's top-level columns at the parent's
// freeze against those now, by table_id and column_id (as fdl-formats'
// check does with the catalog's rows), so that operations undone within a
// version (a column added and dropped again, renamed and renamed back)
// leave no entry, and the kinds follow what the operations did to each
// column:
//
//   - create_table: a table created since the parent (table only, breaking
//     false; its columns are not listed);
//   - add_column: a new column_id (breaking false);
//   - drop_column: a column_id gone, named by its name at the parent
//     (breaking true);
//   - rename_column: the same column_id under another name, named by its
//     name at the parent, the name SQL written for the parent uses
//     (breaking true).
//
// A column dropped and added again under its name (recreated) is a
// drop_column and an add_column of that name. lakegen has no operation
// that drops or renames a table, changes a type, a default or nullability,
// or touches a nested field, so no other kind arises. The spec enumerates
// no kinds ("add_column" is its one example); docs/fdl-json.md lists these.

// Kinds of version.json's changes entries lakegen writes.
const (
	KindCreateTable  = "create_table"
	KindAddColumn    = "add_column"
	KindDropColumn   = "drop_column"
	KindRenameColumn = "rename_column"
)

// change is one entry of version.json's changes.
type change struct {
	Table    string `json:"table"`
	Kind     string `json:"kind"`
	Column   string `json:"column,omitempty"`
	Breaking bool   `json:"breaking"`
}

// frozenCol is a top-level column as a version froze it.
type frozenCol struct {
	id   int64
	name string
}

// frozenColumns is every live table's top-level columns now, by table_id,
// in column order: what the next version's changes are taken against.
func (g *gen) frozenColumns() map[int64][]frozenCol {
	out := make(map[int64][]frozenCol, len(g.tables))
	for _, t := range g.tables {
		cols := make([]frozenCol, len(t.cols))
		for i, c := range t.cols {
			cols[i] = frozenCol{id: c.id, name: c.name}
		}
		out[t.id] = cols
	}
	return out
}

// columnChanges lists the differences between the parent's columns
// (parent, frozenColumns at its freeze) and the live tables' now: tables
// in table_id order; in each, the parent's columns in their order (dropped
// or renamed), then the new ones in theirs (added). Never nil: a version
// whose columns are its parent's writes "changes": [].
func (g *gen) columnChanges(parent map[int64][]frozenCol) []change {
	out := []change{}
	for _, t := range g.tables {
		key := "main." + t.name
		was, ok := parent[t.id]
		if !ok {
			out = append(out, change{Table: key, Kind: KindCreateTable})
			continue
		}
		now := make(map[int64]*col, len(t.cols))
		for _, c := range t.cols {
			now[c.id] = c
		}
		old := make(map[int64]bool, len(was))
		for _, w := range was {
			old[w.id] = true
			switch c, ok := now[w.id]; {
			case !ok:
				out = append(out, change{Table: key, Kind: KindDropColumn, Column: w.name, Breaking: true})
			case c.name != w.name:
				out = append(out, change{Table: key, Kind: KindRenameColumn, Column: w.name, Breaking: true})
			}
		}
		for _, c := range t.cols {
			if !old[c.id] {
				out = append(out, change{Table: key, Kind: KindAddColumn, Column: c.name})
			}
		}
	}
	return out
}
