package formats

import (
	"cmp"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// NamedObject is a ducklake_view row, or a ducklake_macro row with its
// implementations, as every release line's load adds it to its schema's
// case-insensitive name map (DuckLakeCatalogSet::CreateEntry), where an
// entry of a name already there replaces the earlier.
type NamedObject struct {
	ID, SchemaID sql.NullInt64
	Name         sql.NullString
	// Kind names the map: "view" (the tables' and views' map; a view
	// hides the tables of its name, compare's shadowTables), "scalar
	// macro" or "table macro" (one map each, by the type of the macro's
	// first implementation).
	Kind string
	// Definition is everything the readers take of the object but its
	// id: its name as stored, and a view's dialect, SQL and column
	// aliases, or a macro's implementations in order.
	Definition string
	Begin, End sql.NullInt64
}

// NameClash is two or more objects of one kind visible at a snapshot in
// one schema, named alike in ASCII letter case.
type NameClash struct {
	Kind     string
	SchemaID int64
	Names    []string // as stored, in ID order
	IDs      []int64  // sorted
	// Identical: every definition is the same, so whichever the readers
	// keep reads alike.
	Identical bool
}

// String names the clash for a finding or a difference.
func (c NameClash) String() string {
	names := make([]string, len(c.Names))
	for i, n := range c.Names {
		names[i] = fmt.Sprintf("%s (id %d)", oneline.Name(n), c.IDs[i])
	}
	return fmt.Sprintf("%ss %s of schema id %d", c.Kind, strings.Join(names, ", "), c.SchemaID)
}

// NameClashes lists the objects visible at snap that share a name map
// entry (Kind, schema, name in ASCII letter case), sorted by schema, name
// and kind. The readers list the views (GetCatalogForSnapshot) and the
// macros (v1.5-variegata and main; v1.3-ossivalis and v1.4-andium load
// no macros) by queries without ORDER BY and add them in the order the
// rows come, each replacing the earlier of its name: which one they read
// is not determined by the catalog, unless the definitions are
// identical. An object without id, schema or name is left out (the
// readers fail on it elsewhere).
func NameClashes(objs []NamedObject, snap int64) []NameClash {
	type key struct {
		schema     int64
		name, kind string
	}
	groups := map[key][]NamedObject{}
	for _, o := range objs {
		if !o.ID.Valid || !o.SchemaID.Valid || !o.Name.Valid || !VisibleAt(o.Begin, o.End, snap) {
			continue
		}
		k := key{o.SchemaID.Int64, ASCIILower(o.Name.String), o.Kind}
		groups[k] = append(groups[k], o)
	}
	var keys []key
	for k, g := range groups {
		if len(g) > 1 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.schema, b.schema), strings.Compare(a.name, b.name), strings.Compare(a.kind, b.kind))
	})
	var out []NameClash
	for _, k := range keys {
		g := groups[k]
		slices.SortFunc(g, func(a, b NamedObject) int { return cmp.Compare(a.ID.Int64, b.ID.Int64) })
		c := NameClash{Kind: k.kind, SchemaID: k.schema, Identical: true}
		for _, o := range g {
			c.Names = append(c.Names, o.Name.String)
			c.IDs = append(c.IDs, o.ID.Int64)
			c.Identical = c.Identical && o.Definition == g[0].Definition
		}
		out = append(out, c)
	}
	return out
}

// ObjectChangePoints are the snapshots where an object of objs begins or
// ends, sorted, each once: NameClashes' answer changes only there.
func ObjectChangePoints(objs []NamedObject) []int64 {
	var points []int64
	for _, o := range objs {
		for _, v := range []sql.NullInt64{o.Begin, o.End} {
			if v.Valid {
				points = append(points, v.Int64)
			}
		}
	}
	slices.Sort(points)
	return slices.Compact(points)
}

// ViewDefinition is a view's NamedObject.Definition.
func ViewDefinition(name, dialect, query, aliases sql.NullString) string {
	return fmt.Sprintf("name=%q dialect=%q sql=%q aliases=%q", name.String, dialect.String, query.String, aliases.String)
}

// MacroKind is the NamedObject.Kind of a macro whose first
// implementation has type typ: "table macro" for 'table', "scalar macro"
// otherwise (another type fails the load: LoadRefusal).
func MacroKind(typ string) string {
	if typ == "table" {
		return "table macro"
	}
	return "scalar macro"
}
