package formats

import (
	"fmt"
	"slices"
)

// Each format after 0.1 is declared as the edits that DuckLake's own
// migration made to its predecessor's tables. The edits are data: the full
// layout of every format is derived from them once, and tests pin the results
// against real catalogs.

type edit func(tables []Table) ([]Table, error)

// derive applies edits to a deep copy of base.
func derive(base []Table, edits ...edit) []Table {
	tables := make([]Table, len(base))
	for i, t := range base {
		tables[i] = Table{Name: t.Name, Columns: slices.Clone(t.Columns), Key: slices.Clone(t.Key)}
	}
	for _, e := range edits {
		var err error
		if tables, err = e(tables); err != nil {
			// The registry is static data checked by TestAllValid; a bad edit
			// is a programming error found the first time the package loads.
			panic(err)
		}
	}
	return tables
}

func indexOf(tables []Table, name string) (int, error) {
	for i, t := range tables {
		if t.Name == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("formats: no table %s", name)
}

// addColumns appends columns to a table (what ALTER TABLE ADD COLUMN does).
func addColumns(table string, cols ...Column) edit {
	return func(tables []Table) ([]Table, error) {
		i, err := indexOf(tables, table)
		if err != nil {
			return nil, err
		}
		tables[i].Columns = append(tables[i].Columns, cols...)
		return tables, nil
	}
}

// dropColumn removes a column.
func dropColumn(table, column string) edit {
	return func(tables []Table) ([]Table, error) {
		i, err := indexOf(tables, table)
		if err != nil {
			return nil, err
		}
		n := len(tables[i].Columns)
		tables[i].Columns = slices.DeleteFunc(tables[i].Columns, func(c Column) bool { return c.Name == column })
		if len(tables[i].Columns) == n {
			return nil, fmt.Errorf("formats: no column %s.%s", table, column)
		}
		return tables, nil
	}
}

// insertColumn inserts a column before another one (layouts that only dev
// builds wrote, and 0.3's partial_file_info before mapping_id).
func insertColumn(table, before string, col Column) edit {
	return func(tables []Table) ([]Table, error) {
		i, err := indexOf(tables, table)
		if err != nil {
			return nil, err
		}
		j := slices.IndexFunc(tables[i].Columns, func(c Column) bool { return c.Name == before })
		if j < 0 {
			return nil, fmt.Errorf("formats: no column %s.%s", table, before)
		}
		tables[i].Columns = slices.Insert(tables[i].Columns, j, col)
		return tables, nil
	}
}

// addTables appends tables.
func addTables(ts ...Table) edit {
	return func(tables []Table) ([]Table, error) {
		return append(tables, ts...), nil
	}
}

// renameTable renames a table in place.
func renameTable(from, to string) edit {
	return func(tables []Table) ([]Table, error) {
		i, err := indexOf(tables, from)
		if err != nil {
			return nil, err
		}
		tables[i].Name = to
		return tables, nil
	}
}

// Short constructors keep the declarations readable.
func bigint(name string) Column  { return Column{Name: name, Type: "BIGINT"} }
func varchar(name string) Column { return Column{Name: name, Type: "VARCHAR"} }
func boolean(name string) Column { return Column{Name: name, Type: "BOOLEAN"} }
func pk(c Column) Column         { c.PrimaryKey = true; return c }
func notNull(c Column) Column    { c.NotNull = true; return c }
func required(c Column, nullRead string) Column {
	c.NullRead = nullRead
	return c
}

// requiredWhen is required where the condition when holds (Column.NullWhen).
func requiredWhen(c Column, nullRead, when string) Column {
	c.NullRead, c.NullWhen = nullRead, when
	return c
}

// readAsNull marks the values read as the NULL of c is (Column.ReadAsNull).
func readAsNull(c Column, when, is string) Column {
	c.ReadAsNull, c.ReadAsNullIs = when, is
	return c
}

func fill(c Column, sql string) Column {
	c.Fill = sql
	return c
}
