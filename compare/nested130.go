package compare

import (
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// nestedFieldsMissing applies formats.QuirkNestedDefaultsDropped to a data
// file read by field id (no name mapping): DuckDB 1.3.0's column mapper
// drops the default of a list element and of a map key or value, so a
// catalog struct field that the file lacks anywhere below a list element
// or a map key or value fails the read. It names the first such field
// ("" when there is none). Top-level columns are found as the reader finds
// them (leading: only among the file's leading columns with field ids, as
// for a file with field ids on only some top-level columns), nested fields
// by field id (FieldIdMapper).
func nestedFieldsMissing(root *pnode, cols []*Column, leading bool) string {
	var walk func(phys *pnode, c *Column, path string, inList bool) string
	walk = func(phys *pnode, c *Column, path string, inList bool) string {
		switch formats.ASCIILower(c.Type) {
		case "struct":
			if phys.Kind != "struct" {
				return ""
			}
			for _, ch := range c.Children {
				p := path + "." + ch.Name
				pc := phys.childByID(ch.ID)
				if pc == nil {
					if inList {
						return p
					}
					continue
				}
				if m := walk(pc, ch, p, inList); m != "" {
					return m
				}
			}
		case "list":
			if phys.Kind == "list" && len(phys.Children) == 1 && len(c.Children) == 1 {
				return walk(phys.Children[0], c.Children[0], path+"."+c.Children[0].Name, true)
			}
		case "map":
			if phys.Kind == "map" && len(phys.Children) == 2 && len(c.Children) == 2 {
				if m := walk(phys.Children[0], c.Children[0], path+"."+c.Children[0].Name, true); m != "" {
					return m
				}
				return walk(phys.Children[1], c.Children[1], path+"."+c.Children[1].Name, true)
			}
		}
		return ""
	}
	for _, c := range cols {
		var pc *pnode
		if leading {
			pc = root.childByLeadingID(c.ID)
		} else {
			pc = root.childByID(c.ID)
		}
		if pc == nil || !c.nested() {
			continue
		}
		if m := walk(pc, c, c.Name, false); m != "" {
			return m
		}
	}
	return ""
}

// mapsAnyField tells whether DuckDB 1.3.0's column mapper maps any field of
// the nested column c from the file's node phys (its column map is not
// NULL): a leaf is mapped where it is found; a struct where one of its
// fields is; a list or map where its element, key or value is.
func mapsAnyField(phys *pnode, c *Column, mt matcher, m *mapEntry) bool {
	if !c.nested() || phys.Kind == "leaf" {
		return true
	}
	switch formats.ASCIILower(c.Type) {
	case "struct":
		for _, ch := range c.Children {
			if pc, me := mt.match(phys, ch, m); pc != nil && mapsAnyField(pc, ch, mt, me) {
				return true
			}
		}
		return false
	case "list":
		return len(phys.Children) > 0 && len(c.Children) > 0 && mapsAnyField(phys.Children[0], c.Children[0], mt, nil)
	case "map":
		return len(phys.Children) > 1 && len(c.Children) > 1 &&
			(mapsAnyField(phys.Children[0], c.Children[0], mt, nil) || mapsAnyField(phys.Children[1], c.Children[1], mt, nil))
	}
	return true
}

// defaultsStruct is what DuckDB 1.3.0 reads for a top-level STRUCT column
// none of whose fields it maps (formats.QuirkStructWithoutFileFieldsNotNull):
// MapColumnStruct's struct_pack of the fields' defaults, on every row (also
// where the file's struct is NULL). A field the file has (a struct none of
// whose own fields are mapped) is its own struct of defaults; any other
// field its initial default.
func defaultsStruct(phys *pnode, c *Column, mt matcher, m *mapEntry) (string, error) {
	dt, err := c.DuckType()
	if err != nil {
		return "", err
	}
	fields := make([]string, 0, len(c.Children))
	for _, ch := range c.Children {
		var fe string
		pc, me := mt.match(phys, ch, m)
		if pc != nil && formats.TypeIs(ch.Type, "struct") && pc.Kind == "struct" {
			fe, err = defaultsStruct(pc, ch, mt, me)
		} else {
			fe, err = ch.defaultExpr()
		}
		if err != nil {
			return "", err
		}
		fields = append(fields, ident(ch.Name)+" := "+fe)
	}
	return fmt.Sprintf("CAST(struct_pack(%s) AS %s)", strings.Join(fields, ", "), dt), nil
}

// remappedNestedList applies formats.QuirkRemapListsUnreserved to a data
// file read by field id (no name mapping): DuckDB 1.3.0's column mapper
// reads a top-level column through remap_struct unless it is trivially
// mappable (IsTriviallyMappable: the file's type is the catalog's, with the
// same children at the same positions by field id; never for a MAP, whose
// key_value level DuckLake leaves out), and remap_struct's RemapList and
// RemapMap do not reserve room for a nested element, key or value. It
// names the first list element or map key or value that is nested in such
// a column ("" when there is none).
func remappedNestedList(root *pnode, cols []*Column, leading bool) string {
	for _, c := range cols {
		var pc *pnode
		if leading {
			pc = root.childByLeadingID(c.ID)
		} else {
			pc = root.childByID(c.ID)
		}
		if pc == nil || !c.nested() || triviallyMappable(pc, c) {
			continue
		}
		if p := nestedElement(pc, c, c.Name); p != "" {
			return p
		}
	}
	return ""
}

// triviallyMappable is DuckDB 1.3.0's IsTriviallyMappable for the file's
// node phys of the catalog's column c: same type (struct field names
// included), same number of children, each found by field id at its own
// position; a MAP never is (the file's map has one key_value child). The
// file's field names are those the Parquet reader gives them (readAs, setChildren:
// ParseSchemaRecursive renames case duplicates, x, X read as x, X_1, in the
// type the mapper compares), not the file's raw names.
func triviallyMappable(phys *pnode, c *Column) bool {
	kind := formats.ASCIILower(c.Type)
	if !c.nested() {
		dt, err := c.DuckType()
		return err == nil && phys.Kind == "leaf" && leafTypeName(dt) == leafTypeName(phys.DuckType)
	}
	if kind == "map" || phys.Kind != kind || len(phys.Children) != len(c.Children) {
		return false
	}
	for i, ch := range c.Children {
		pc := phys.Children[i]
		if pc.FieldID == nil || *pc.FieldID != ch.ID || (kind == "struct" && phys.readName(pc) != ch.Name) || !triviallyMappable(pc, ch) {
			return false
		}
	}
	return true
}

// leafTypeName spells a scalar DuckDB type one way: parquet_schema's
// duckdb_type writes TIMESTAMP WITH TIME ZONE where Column.DuckType writes
// TIMESTAMPTZ (the same LogicalType).
func leafTypeName(t string) string {
	t = strings.ToUpper(strings.ReplaceAll(t, " ", ""))
	switch t {
	case "TIMESTAMPWITHTIMEZONE":
		return "TIMESTAMPTZ"
	case "TIMEWITHTIMEZONE":
		return "TIMETZ"
	}
	return t
}

// nestedElement names the first list element or map key or value of c
// (found in the file's node phys by field id) that is itself nested.
func nestedElement(phys *pnode, c *Column, path string) string {
	kind := formats.ASCIILower(c.Type)
	switch kind {
	case "struct":
		if phys.Kind != "struct" {
			return ""
		}
		for _, ch := range c.Children {
			if pc := phys.childByID(ch.ID); pc != nil {
				if p := nestedElement(pc, ch, path+"."+ch.Name); p != "" {
					return p
				}
			}
		}
	case "list", "map":
		if phys.Kind != kind || len(phys.Children) != len(c.Children) {
			return ""
		}
		for i, ch := range c.Children {
			p := path + "." + ch.Name
			if ch.nested() && phys.Children[i].Kind != "leaf" {
				return p
			}
			if m := nestedElement(phys.Children[i], ch, p); m != "" {
				return m
			}
		}
	}
	return ""
}
