package formats

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Values DuckLake's readers cannot read. Every release line (v1.3-ossivalis,
// v1.4-andium, v1.5-variegata, main) loads a catalog's ids, counts and
// sizes with row.GetValue<idx_t>() or GetValue<uint64_t>()
// (src/storage/ducklake_metadata_manager.cpp, ducklake_transaction.cpp,
// ducklake_catalog.cpp): a NULL throws ("Calling GetValueInternal on a value
// that is NULL") and a negative number becomes a huge unsigned one (-1 is
// DConstants::INVALID_INDEX, "no id"). A partition transform is compared
// case-sensitively with the names the readers know (DuckLakeCatalog::
// LoadPartition...: field.transform == "identity", "bucket(N)"), any other
// failing the catalog's load ("Unsupported partition transform"). Columns
// are sorted by table_id, parent_column, column_order with no tiebreak: two
// columns of one table and parent alive together with one column_order
// have no defined order.
//
// ReaderValueRules declares them; ReaderValueViolations derives one query
// per catalog from the declaration.

// ValueRuleKind says which values of a column readers read.
type ValueRuleKind int

const (
	// Unsigned: never NULL, never negative (GetValue<idx_t> unconditionally).
	Unsigned ValueRuleKind = iota
	// UnsignedOrNull: NULL (checked with IsNull first) or not negative.
	UnsignedOrNull
	// Transform: a partition transform name the readers know, spelled as
	// they compare it.
	Transform
)

// The kinds of the pseudo-rules ColumnOrderTie, NameMapParentAfterChild
// and NameMapDuplicate: no one value breaks them, and
// ReaderValueViolations checks each apart; Why says what readers do.
const (
	columnOrderTie          ValueRuleKind = -1
	nameMapParentAfterChild ValueRuleKind = -2
	nameMapDuplicate        ValueRuleKind = -3
)

// ValueRule is one column of a metadata table and the values its readers
// read.
type ValueRule struct {
	Table, Column string
	Kind          ValueRuleKind
}

// ReaderValueRules: the columns every release line reads as unsigned
// numbers with GetValue<idx_t> or GetValue<uint64_t> (ids, counts, sizes,
// snapshots; ducklake_table.begin_snapshot by GetBeginSnapshotForTable,
// those of data and delete files by the change feeds), those it reads so
// after an IsNull check, and the partition transform. Columns readers only
// filter or join on (schema, view and column lifetimes, file column
// statistics) are left out: a value there changes what is read, which the
// comparison of what is read finds. A rule applies to a catalog whose
// layout has its table and column.
var ReaderValueRules = []ValueRule{
	{"ducklake_snapshot", "snapshot_id", Unsigned},
	{"ducklake_snapshot", "schema_version", Unsigned},
	{"ducklake_snapshot", "next_catalog_id", Unsigned},
	{"ducklake_snapshot", "next_file_id", Unsigned},
	{"ducklake_schema", "schema_id", Unsigned},
	{"ducklake_table", "table_id", Unsigned},
	{"ducklake_table", "schema_id", Unsigned},
	{"ducklake_table", "begin_snapshot", Unsigned},
	{"ducklake_view", "view_id", Unsigned},
	{"ducklake_view", "schema_id", Unsigned},
	{"ducklake_column", "column_id", Unsigned},
	{"ducklake_column", "table_id", Unsigned},
	{"ducklake_column", "parent_column", UnsignedOrNull},
	{"ducklake_partition_info", "partition_id", Unsigned},
	{"ducklake_partition_info", "table_id", Unsigned},
	{"ducklake_partition_column", "partition_key_index", Unsigned},
	{"ducklake_partition_column", "column_id", Unsigned},
	{"ducklake_partition_column", "transform", Transform},
	{"ducklake_table_stats", "table_id", Unsigned},
	{"ducklake_table_stats", "record_count", Unsigned},
	{"ducklake_table_stats", "next_row_id", Unsigned},
	{"ducklake_table_stats", "file_size_bytes", Unsigned},
	{"ducklake_table_column_stats", "table_id", Unsigned},
	{"ducklake_table_column_stats", "column_id", Unsigned},
	{"ducklake_data_file", "data_file_id", Unsigned},
	{"ducklake_data_file", "table_id", Unsigned},
	{"ducklake_data_file", "begin_snapshot", Unsigned},
	{"ducklake_data_file", "record_count", Unsigned},
	{"ducklake_data_file", "file_size_bytes", Unsigned},
	{"ducklake_data_file", "footer_size", UnsignedOrNull},
	{"ducklake_data_file", "row_id_start", UnsignedOrNull},
	{"ducklake_data_file", "mapping_id", UnsignedOrNull},
	{"ducklake_data_file", "partition_id", UnsignedOrNull},
	{"ducklake_data_file", "end_snapshot", UnsignedOrNull},
	{"ducklake_delete_file", "delete_file_id", Unsigned},
	{"ducklake_delete_file", "data_file_id", Unsigned},
	{"ducklake_delete_file", "begin_snapshot", Unsigned},
	{"ducklake_delete_file", "delete_count", Unsigned},
	{"ducklake_delete_file", "file_size_bytes", Unsigned},
	{"ducklake_delete_file", "footer_size", UnsignedOrNull},
	{"ducklake_delete_file", "end_snapshot", UnsignedOrNull},
	{"ducklake_macro", "schema_id", Unsigned},
	{"ducklake_macro", "macro_id", Unsigned},
	{"ducklake_inlined_data_tables", "schema_version", Unsigned},
}

// transformNames are the transforms some release line knows (identity,
// year, month, day, hour in all; bucket(N), N > 0, from v1.5; epoch_* on
// main), spelled as they compare them.
var transformNames = []string{"identity", "year", "month", "day", "hour", "epoch_year", "epoch_month", "epoch_day", "epoch_hour"}

// violation is the SQL condition true for a value of column c readers
// cannot read.
func (v ValueRule) violation(c string) string {
	switch v.Kind {
	case UnsignedOrNull:
		return c + " < 0"
	case Transform:
		names := make([]string, len(transformNames))
		for i, n := range transformNames {
			names[i] = "'" + n + "'"
		}
		return fmt.Sprintf("%[1]s IS NULL OR NOT (%[1]s IN (%[2]s) OR (regexp_full_match(%[1]s, 'bucket\\([0-9]+\\)') AND TRY_CAST(%[1]s[8:-2] AS UBIGINT) > 0))", c, strings.Join(names, ", "))
	default:
		return c + " IS NULL OR " + c + " < 0"
	}
}

// Why says what the readers do with a value the rule refuses.
func (v ValueRule) Why() string {
	switch v.Kind {
	case UnsignedOrNull:
		return "DuckLake's readers read it, when not NULL, as an unsigned number (GetValue<idx_t>): a negative one fails that read (the cast from BIGINT to an unsigned number throws: out of range)"
	case columnOrderTie:
		return ColumnOrderTieWhy
	case nameMapParentAfterChild:
		return NameMapParentAfterChildWhy
	case nameMapDuplicate:
		return NameMapDuplicateWhy
	case Transform:
		return "DuckLake's readers compare the transform case-sensitively with the ones they know (identity, year, month, day, hour, bucket(N)) and fail the catalog's load on any other (\"Unsupported partition transform\")"
	default:
		return "DuckLake's readers read it as an unsigned number (GetValue<idx_t>): NULL fails the read (or drops the row), a negative one fails that read (the cast from BIGINT to an unsigned number throws: out of range)"
	}
}

// ColumnOrderTie is the pseudo-rule of ties in ducklake_column.column_order.
var ColumnOrderTie = ValueRule{Table: "ducklake_column", Column: "column_order", Kind: columnOrderTie}

// ColumnOrderTieWhy says what readers do with a tie.
const ColumnOrderTieWhy = "two columns of one table with the same parent, alive at the same snapshots, have the same column_order: DuckLake's readers sort the columns by table_id, parent_column, column_order with no tiebreak, so the column order is undefined"

// NameMapParentAfterChild is the pseudo-rule of a name mapping entry
// whose parent entry readers build after it.
var NameMapParentAfterChild = ValueRule{Table: "ducklake_name_mapping", Column: "parent_column", Kind: nameMapParentAfterChild}

// NameMapParentAfterChildWhy says what readers do with such an entry.
const NameMapParentAfterChildWhy = "its parent entry (column_id = its parent_column, in the same mapping) has a parent_column at least as large: DuckLake's readers load name mappings ORDER BY mapping_id, parent_column NULLS FIRST and attach each entry to an entry loaded before it (DuckLakeCatalog::ConvertNameMap, every release line), so they fail (\"Parent column N not found when converting name map\") on every read of a table with a name-mapped file"

// NameMapDuplicate is the pseudo-rule of name mapping entries under one
// parent that readers read differently in their two load orders: one
// target field id, or one column_id some entry names as parent.
var NameMapDuplicate = ValueRule{Table: "ducklake_name_mapping", Column: "target_field_id", Kind: nameMapDuplicate}

// NameMapDuplicateWhy says what readers do with such entries.
const NameMapDuplicateWhy = "another entry of the same mapping and parent reads otherwise and has its target_field_id (of which the first loaded is read: field_id_map.emplace in MapColumns, src/storage/ducklake_multi_file_reader.cpp) or its column_id with entries naming it as parent (which the first loaded takes: column_id_map.emplace in DuckLakeCatalog::ConvertNameMap, every release line): DuckLake's readers load name mappings ORDER BY mapping_id, parent_column NULLS FIRST, so the two are in no defined order"

// ValueViolation is the first row (in rowid order) of a catalog breaking a
// rule.
type ValueViolation struct {
	Rule  ValueRule
	RowID int64
	// Row is the whole row as DuckDB prints a struct (a column_order tie:
	// "ties with row N: " first, N the other row's rowid).
	Row string
}

// ReaderValueViolations runs one query on attached DuckDB database db
// (schema schema), one aggregate per metadata table (one row each, cross
// joined), for every rule
// applying to a catalog whose layout has has(table, column): the first
// violating row (in rowid order) of each rule, in rule order, then the
// column_order tie, the name mapping entry loaded before its parent and the
// name mapping entries in no defined order.
// Only a violation's row is read again.
func ReaderValueViolations(ctx context.Context, q Querier, db, schema string, has func(table, column string) bool) ([]ValueViolation, error) {
	tbl := func(t string) string { return quoteIdent(db) + "." + quoteIdent(schema) + "." + quoteIdent(t) }
	var rules []ValueRule
	var tables []string
	conds := map[string][]string{}
	for _, v := range ReaderValueRules {
		if !has(v.Table, v.Column) {
			continue
		}
		if _, ok := conds[v.Table]; !ok {
			tables = append(tables, v.Table)
		}
		conds[v.Table] = append(conds[v.Table], fmt.Sprintf("min(rowid) FILTER (WHERE %s)", v.violation(quoteIdent(v.Column))))
		rules = append(rules, v)
	}
	// Each table's aggregate is a derived table of one row (an aggregate
	// without GROUP BY), cross joined with the others': DuckDB plans that
	// in about two thirds of the CPU the same aggregates take as scalar
	// subqueries (about 9 -> 6 ms a catalog of the issue 9 history, a
	// statement every proof runs).
	var lists, from []string
	for i, t := range tables {
		lists = append(lists, fmt.Sprintf("r%d.l", i))
		from = append(from, fmt.Sprintf("(SELECT [%s] AS l FROM %s) AS r%d", strings.Join(conds[t], ", "), tbl(t), i))
	}
	tie := has("ducklake_column", "column_order") && has("ducklake_column", "parent_column") && has("ducklake_column", "begin_snapshot") && has("ducklake_column", "end_snapshot")
	if tie {
		// Rows of one column id are versions of one column (never alive
		// together); two ids alive at one snapshot with one order tie.
		lists = append(lists, "tie.l")
		from = append(from, fmt.Sprintf(`(SELECT [min(b.rowid), arg_min(a.rowid, b.rowid)] AS l FROM %[1]s AS a JOIN %[1]s AS b
	ON a.table_id = b.table_id AND a.parent_column IS NOT DISTINCT FROM b.parent_column AND a.column_order = b.column_order AND a.column_id < b.column_id
	AND a.begin_snapshot < coalesce(b.end_snapshot, 9223372036854775807) AND b.begin_snapshot < coalesce(a.end_snapshot, 9223372036854775807)) AS tie`, tbl("ducklake_column")))
	}
	// A name mapping entry (x) whose parent (y) readers load after it:
	// entries are loaded by parent_column, and a nested entry's parent
	// must be there already (the mappings readers load: those of
	// ducklake_column_mapping).
	nameMap := has("ducklake_name_mapping", "parent_column") && has("ducklake_column_mapping", "mapping_id")
	if nameMap {
		lists = append(lists, "nm.l")
		from = append(from, fmt.Sprintf(`(SELECT [min(x.rowid), arg_min(y.rowid, x.rowid)] AS l FROM %[1]s AS x JOIN %[1]s AS y
	ON x.mapping_id = y.mapping_id AND y.column_id = x.parent_column AND y.parent_column >= x.parent_column
	WHERE x.mapping_id IN (SELECT mapping_id FROM %[2]s)) AS nm`, tbl("ducklake_name_mapping"), tbl("ducklake_column_mapping")))
	}
	// Entries of one mapping and parent are loaded in no defined order
	// (their parent_column ties), and readers keep of an entry only its
	// name, field id, partition flag and children: column_id only finds a
	// child's parent, the first loaded of it (column_id_map.emplace). So
	// the order matters between siblings of one target field id (the
	// first loaded is read: field_id_map.emplace in MapColumns) unless
	// they read alike: one name, one partition flag and the same children
	// (one column_id, or none named as a parent); and between siblings of
	// one column_id some entry names as parent unless they are alike (one
	// name, field id and partition flag). Each is a GROUP BY of the
	// siblings (a pairwise join was quadratic in a wide file's mapping);
	// a group reading more than one way is reported as its first row and
	// the first row reading otherwise.
	if nameMap {
		part := "NULL::BOOLEAN"
		if has("ducklake_name_mapping", "is_partition") {
			part = "n.is_partition"
		}
		lists = append(lists, "nd.l")
		from = append(from, fmt.Sprintf(`(WITH n AS (SELECT rowid AS r, * FROM %[1]s WHERE mapping_id IN (SELECT mapping_id FROM %[2]s)),
p AS (SELECT DISTINCT mapping_id, parent_column FROM n WHERE parent_column IS NOT NULL),
m AS (SELECT n.r, n.mapping_id, n.parent_column, n.column_id, n.target_field_id, n.source_name, %[3]s AS part, p.mapping_id IS NOT NULL AS named
	FROM n LEFT JOIN p ON p.mapping_id = n.mapping_id AND p.parent_column = n.column_id),
k AS (SELECT r, mapping_id, parent_column, false AS by_id, target_field_id AS k, {'s': source_name, 'p': part, 'a': CASE WHEN named THEN column_id END} AS v FROM m WHERE target_field_id IS NOT NULL
	UNION ALL SELECT r, mapping_id, parent_column, true, column_id, {'s': source_name, 'p': part, 'a': target_field_id} FROM m WHERE named),
g AS (SELECT mapping_id, parent_column, by_id, k, min(r) AS first, arg_min(v, r) AS v0 FROM k GROUP BY ALL HAVING count(DISTINCT v) > 1),
o AS (SELECT g.first, min(k.r) AS other FROM g JOIN k ON k.mapping_id = g.mapping_id AND k.parent_column IS NOT DISTINCT FROM g.parent_column
	AND k.by_id = g.by_id AND k.k = g.k AND k.v IS DISTINCT FROM g.v0 GROUP BY g.first)
SELECT [min(first), arg_min(other, first)] AS l FROM o) AS nd`, tbl("ducklake_name_mapping"), tbl("ducklake_column_mapping"), part))
	}
	if len(lists) == 0 {
		return nil, nil
	}
	// One list of first rowids (NULL: none) per table, concatenated in
	// rule order.
	var ids []sql.NullInt64
	{
		rows, err := q.QueryContext(ctx, "SELECT unnest(flatten(["+strings.Join(lists, ", ")+"])) FROM "+strings.Join(from, ", "))
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id sql.NullInt64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	want := len(rules)
	if tie {
		want += 2
	}
	if nameMap {
		want += 4
	}
	if len(ids) != want {
		return nil, fmt.Errorf("reader value rules: %d answers for %d rules", len(ids), want)
	}
	row := func(table string, id int64) (string, error) {
		rows, err := q.QueryContext(ctx, fmt.Sprintf("SELECT CAST(t AS VARCHAR) FROM %s AS t WHERE rowid = %d", tbl(table), id))
		if err != nil {
			return "", err
		}
		defer rows.Close()
		var s string
		for rows.Next() {
			if err := rows.Scan(&s); err != nil {
				return "", err
			}
		}
		return s, rows.Err()
	}
	var out []ValueViolation
	for i, v := range rules {
		if !ids[i].Valid {
			continue
		}
		s, err := row(v.Table, ids[i].Int64)
		if err != nil {
			return nil, err
		}
		out = append(out, ValueViolation{Rule: v, RowID: ids[i].Int64, Row: s})
	}
	if tie && ids[len(rules)].Valid {
		s, err := row("ducklake_column", ids[len(rules)].Int64)
		if err != nil {
			return nil, err
		}
		out = append(out, ValueViolation{Rule: ColumnOrderTie, RowID: ids[len(rules)].Int64, Row: fmt.Sprintf("ties with row %d: %s", ids[len(rules)+1].Int64, s)})
	}
	if i := want - 4; nameMap && ids[i].Valid {
		s, err := row("ducklake_name_mapping", ids[i].Int64)
		if err != nil {
			return nil, err
		}
		out = append(out, ValueViolation{Rule: NameMapParentAfterChild, RowID: ids[i].Int64, Row: fmt.Sprintf("parent row %d loaded after it: %s", ids[i+1].Int64, s)})
	}
	if i := want - 2; nameMap && ids[i].Valid {
		s, err := row("ducklake_name_mapping", ids[i].Int64)
		if err != nil {
			return nil, err
		}
		out = append(out, ValueViolation{Rule: NameMapDuplicate, RowID: ids[i].Int64, Row: fmt.Sprintf("in no defined order with row %d: %s", ids[i+1].Int64, s)})
	}
	return out, nil
}
