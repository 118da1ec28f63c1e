package lakegen

import "slices"

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
//   - create_view: a view created since the parent (table is the view,
//     breaking false), after the tables' entries;
//   - add_column: a new column_id (breaking false);
//   - drop_column: a column_id gone, named by its name at the parent
//     (breaking true);
//   - rename_column: the same column_id under another name, named by its
//     name at the parent, the name SQL written for the parent uses
//     (breaking true);
//   - set_partitioned_by: a table's partition keys changed (table only,
//     breaking false);
//   - set_comment: a table's comment (table only) or a column's (named by
//     its name now) changed (breaking false).
//
// A column dropped and added again under its name (recreated) is a
// drop_column and an add_column of that name. lakegen has no operation
// that drops or renames a table or a view, redefines a view, changes a
// type, a default or nullability, sets a sort hint or touches a nested
// field, so no other kind arises. Comments and partition keys are compared
// by what they are, as the check compares them: set and set back within a
// version, they leave no entry. The spec enumerates
// no kinds ("add_column" is its one example); docs/fdl-json.md lists these.

// Kinds of version.json's changes entries lakegen writes.
const (
	KindCreateTable  = "create_table"
	KindCreateView   = "create_view"
	KindAddColumn    = "add_column"
	KindDropColumn   = "drop_column"
	KindRenameColumn = "rename_column"
	KindPartitionBy  = "set_partitioned_by"
	KindComment      = "set_comment"
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
	id      int64
	name    string
	comment string // "\x00" for none
}

// frozenTable is a table's partition keys (column_ids) and comment as a
// version froze them.
type frozenTable struct {
	keys    []int64
	comment string // "\x00" for none
}

// frozen is what a version froze that the next version's changes are
// taken against: every live table's top-level columns, by table_id, in
// column order, its partition keys and comment, and the views' ids.
type frozen struct {
	cols   map[int64][]frozenCol
	tables map[int64]frozenTable
	views  map[int64]bool
}

// commentText is a comment as frozen: "\x00" for none.
func commentText(c *string) string {
	if c == nil {
		return "\x00"
	}
	return *c
}

// freezeState records the tables' columns and the views now.
func (g *gen) freezeState() *frozen {
	out := &frozen{cols: make(map[int64][]frozenCol, len(g.tables)), tables: make(map[int64]frozenTable, len(g.tables)), views: make(map[int64]bool, len(g.views))}
	for _, t := range g.tables {
		cols := make([]frozenCol, len(t.cols))
		for i, c := range t.cols {
			cols[i] = frozenCol{id: c.id, name: c.name, comment: commentText(c.comment)}
		}
		out.cols[t.id] = cols
		ft := frozenTable{comment: commentText(t.comment)}
		for _, c := range t.partCols {
			ft.keys = append(ft.keys, c.id)
		}
		out.tables[t.id] = ft
	}
	for _, v := range g.views {
		out.views[v.id] = true
	}
	return out
}

// columnChanges lists the differences between what the parent froze
// (parent, freezeState at its freeze) and the live tables and views now:
// tables in table_id order; in each, the parent's columns in their order
// (dropped or renamed), then the new ones in theirs (added); then the
// views created, in creation order. Never nil: a version whose columns are
// its parent's writes "changes": [].
func (g *gen) columnChanges(parent *frozen) []change {
	out := []change{}
	for _, t := range g.tables {
		key := "main." + t.name
		was, ok := parent.cols[t.id]
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
		ft := parent.tables[t.id]
		var keys []int64
		for _, c := range t.partCols {
			keys = append(keys, c.id)
		}
		if !slices.Equal(ft.keys, keys) {
			out = append(out, change{Table: key, Kind: KindPartitionBy})
		}
		if ft.comment != commentText(t.comment) {
			out = append(out, change{Table: key, Kind: KindComment})
		}
		for _, w := range was {
			if c, ok := now[w.id]; ok && w.comment != commentText(c.comment) {
				out = append(out, change{Table: key, Kind: KindComment, Column: c.name})
			}
		}
	}
	for _, v := range g.views {
		if !parent.views[v.id] {
			out = append(out, change{Table: "main." + v.name, Kind: KindCreateView})
		}
	}
	return out
}
