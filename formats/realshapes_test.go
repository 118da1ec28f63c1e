package formats

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// The registry is the one source of both convert's output and the proof's
// reading, so a wrong declaration there fools both at once. The tests below
// hold it to catalogs DuckLake itself wrote (the conformance archives), the
// independent check: each format's tables, their columns in order with
// DuckDB's types, NOT NULL and PRIMARY KEY, the system columns of the
// per-table inlined tables, the version row, and the values DuckLake's own
// migrations fill into the columns they add (Column.Fill).

// realCatalog is one catalog of a conformance archive: a file of a
// migrations fixture, or the last version of a lake.
func realCatalog(t *testing.T, archive, name, file string) string {
	t.Helper()
	if archive == "migrations" {
		return filepath.Join(testlakes.Dir(t, archive), name, file)
	}
	lake := testlakes.Lake(t, archive, name)
	versions, err := os.ReadDir(filepath.Join(lake, "versions"))
	if err != nil || len(versions) == 0 {
		t.Fatalf("lake %s/%s: no versions (%v)", archive, name, err)
	}
	return filepath.Join(lake, "versions", versions[len(versions)-1].Name(), "ducklake.duckdb")
}

// realColumn is one column of a real catalog as DuckDB describes it.
type realColumn struct {
	name, typ     string
	notNull, pk   bool
	columnDefault sql.NullString
}

// describe attaches a catalog read-only as alias and lists its columns,
// table by table in column order, and its version row.
func describe(t *testing.T, db *sql.DB, path, alias string) (map[string][]realColumn, string) {
	t.Helper()
	if _, err := db.Exec(fmt.Sprintf("ATTACH '%s' AS %s (READ_ONLY)", path, alias)); err != nil {
		t.Fatalf("attach %s: %v", path, err)
	}
	rows, err := db.Query(`SELECT c.table_name, c.column_name, c.data_type, NOT c.is_nullable,
		EXISTS (SELECT 1 FROM duckdb_constraints() k WHERE k.database_name = c.database_name AND k.table_name = c.table_name
			AND k.constraint_type = 'PRIMARY KEY' AND list_contains(k.constraint_column_names, c.column_name)),
		c.column_default
		FROM duckdb_columns() c WHERE c.database_name = ? ORDER BY c.table_name, c.column_index`, alias)
	if err != nil {
		t.Fatalf("describe %s: %v", path, err)
	}
	defer rows.Close()
	out := map[string][]realColumn{}
	for rows.Next() {
		var table string
		var c realColumn
		if err := rows.Scan(&table, &c.name, &c.typ, &c.notNull, &c.pk, &c.columnDefault); err != nil {
			t.Fatal(err)
		}
		out[table] = append(out[table], c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var stamp string
	if err := db.QueryRow(fmt.Sprintf("SELECT value FROM %s.ducklake_metadata WHERE key = 'version'", alias)).Scan(&stamp); err != nil {
		t.Fatalf("version row of %s: %v", path, err)
	}
	return out, stamp
}

func columnText(name, typ string, notNull, pk bool) string {
	return fmt.Sprintf("%s %s notnull=%t pk=%t", name, typ, notNull, pk)
}

// shapeDiffs lists how the real tables differ from the declared ones: a
// declared table missing or with other columns (names, order, types,
// NOT NULL, PRIMARY KEY), a static table the declaration lacks, and a
// dynamic table whose system columns are not the ones v declares.
func shapeDiffs(v *Version, tables []Table, real map[string][]realColumn) []string {
	var diffs []string
	declared := map[string]bool{}
	for _, tab := range tables {
		declared[tab.Name] = true
		var want, got []string
		for _, c := range tab.Columns {
			want = append(want, columnText(c.Name, c.Type, c.NotNull || c.PrimaryKey, c.PrimaryKey))
		}
		for _, c := range real[tab.Name] {
			got = append(got, columnText(c.name, c.typ, c.notNull, c.pk))
		}
		if !slices.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("table %s:\n  real     %v\n  declared %v", tab.Name, got, want))
		}
	}
	for name, cols := range real {
		switch {
		case declared[name]:
		case IsDynamicTable(name):
			dyn, ok := v.DynamicTable(name)
			if !ok {
				diffs = append(diffs, fmt.Sprintf("dynamic table %s: not one format %s declares", name, v.Name))
				continue
			}
			n := len(dyn.Columns)
			if strings.HasPrefix(strings.ToLower(name), inlinedDeletePrefix) {
				n = len(cols) // declared in full
			}
			var want, got []string
			for _, c := range dyn.Columns {
				want = append(want, columnText(c.Name, c.Type, false, false))
			}
			for _, c := range cols[:min(n, len(cols))] {
				got = append(got, columnText(c.name, c.typ, c.notNull, c.pk))
			}
			if !slices.Equal(got, want) {
				diffs = append(diffs, fmt.Sprintf("dynamic table %s, system columns:\n  real     %v\n  declared %v", name, got, want))
			}
		default:
			diffs = append(diffs, fmt.Sprintf("table %s: not declared in format %s", name, v.Name))
		}
	}
	slices.Sort(diffs)
	return diffs
}

// TestShapesMatchRealCatalogs: every format's declared layout is exactly
// that of a catalog DuckLake wrote in it. Format 0.2 has no real catalog
// of its own stamp: the v1.3-ossivalis line's '0.3-dev1' (MigrateV02 there)
// is 0.2 with the three commit-info columns, which holds 0.2 to it. 1.1 is
// held to DuckLake main's '1.1-dev1' catalogs (its final layout; the stamp
// '1.1' no DuckLake source writes yet, docs/formats.md).
func TestShapesMatchRealCatalogs(t *testing.T) {
	t.Parallel()
	v02WithCommitInfo := derive(V0_2.Tables, addColumns("ducklake_snapshot_changes", varchar("author"), varchar("commit_message"), varchar("commit_extra_info")))
	for _, tc := range []struct {
		archive, name, file string
		stamp               string
		v                   *Version
		tables              []Table // where not v.Tables
	}{
		{"migrations", "v01", "source.duckdb", "0.1", V0_1, nil},
		{"migrations", "v01_partitioned", "source.duckdb", "0.1", V0_1, nil},
		{"migrations", "v02", "source.duckdb", "0.3-dev1", V0_2, v02WithCommitInfo},
		{"migrations", "v03-dev1", "source.duckdb", "0.3-dev1", V0_3Dev1, nil},
		{"migrations", "v03", "source.duckdb", "0.3", V0_3, nil},
		{"lakes-0.3", "25_reserved_names_v11_hazards", "", "0.3", V0_3, nil},
		{"migrations", "v04-dev1", "source.duckdb", "0.4-dev1", V0_4Dev1, nil},
		// A 0.4-dev1 layout without partial_file_info (the 0.4 one).
		{"migrations", "v04-dev1_types", "source.duckdb", "0.4-dev1", V0_4Dev1, V0_4.Tables},
		{"migrations", "v04", "source.duckdb", "0.4", V0_4, nil},
		{"migrations", "v04", "migrated-1.0.duckdb", "1.0", V1_0, nil},
		{"lakes", "16_data_inlining", "", "1.0", V1_0, nil},
		{"lakes-1.1-dev1", "16_data_inlining", "", "1.1-dev1", V1_1, nil},
		{"lakes-1.1-dev1", "16_data_inlining", "", "1.1-dev1", V1_1Dev1, nil},
	} {
		t.Run(tc.archive+"/"+tc.name+"/"+tc.file+"/"+tc.v.Name, func(t *testing.T) {
			path := realCatalog(t, tc.archive, tc.name, tc.file)
			db := testduck.Open(t, "")
			real, stamp := describe(t, db, path, "r")
			if stamp != tc.stamp {
				t.Fatalf("%s: version row %q, want %q", path, stamp, tc.stamp)
			}
			// The stamp names the format compared, or its development
			// layout (1.1: '1.1-dev1'); 0.2's is the one case held to
			// another format's layout (tables).
			if got, err := Lookup(stamp); tc.tables == nil && (err != nil || (got != tc.v && got.Release != tc.v.Name)) {
				t.Errorf("%s: version row %q is no stamp of format %s (%v)", path, stamp, tc.v.Name, err)
			}
			tables := tc.tables
			if tables == nil {
				tables = tc.v.Tables
			}
			if diffs := shapeDiffs(tc.v, tables, real); len(diffs) > 0 {
				t.Errorf("%s differs from format %s as declared:\n%s", path, tc.v.Name, strings.Join(diffs, "\n"))
			}
		})
	}
}

// TestFillsMatchDuckLakeMigrations: the value an upgrade writes into the
// existing rows of a column a format adds (Column.Fill) is the default
// DuckLake's own migration gave the column (ALTER TABLE ... ADD COLUMN ...
// DEFAULT, which the migrated catalogs keep), for every column one of the
// real migrations added: NULL where Fill is empty.
func TestFillsMatchDuckLakeMigrations(t *testing.T) {
	t.Parallel()
	db := testduck.Open(t, "")
	// table.column: the migrated catalog whose DEFAULT it is.
	seen := map[string]string{}
	for i, name := range []string{"v01", "v02", "v03", "v04"} {
		path := realCatalog(t, "migrations", name, "migrated-1.0.duckdb")
		real, _ := describe(t, db, path, fmt.Sprintf("m%d", i))
		for table, cols := range real {
			tab, ok := V1_0.Table(table)
			if !ok {
				continue // dynamic tables: TestShapesMatchRealCatalogs
			}
			for _, c := range cols {
				if !c.columnDefault.Valid {
					continue
				}
				col, ok := tab.Column(c.name)
				if !ok {
					t.Errorf("%s: %s.%s is not declared in format 1.0", path, table, c.name)
					continue
				}
				fill := col.Fill
				if fill == "" {
					fill = "NULL"
				}
				var same bool
				q := fmt.Sprintf("SELECT (%s)::%s IS NOT DISTINCT FROM (%s)::%s", c.columnDefault.String, c.typ, fill, c.typ)
				if err := db.QueryRow(q).Scan(&same); err != nil {
					t.Fatalf("%s: %s.%s: %s: %v", path, table, c.name, q, err)
				}
				if !same {
					t.Errorf("%s.%s: format %s's upgrades fill %s, DuckLake's migration (%s) DEFAULT %s", table, c.name, V1_0.Name, fill, path, c.columnDefault.String)
				}
				seen[table+"."+c.name] = name
			}
		}
	}
	// Every declared fill was held to a real migration.
	for _, tab := range V1_0.Tables {
		for _, c := range tab.Columns {
			if c.Fill != "" && seen[tab.Name+"."+c.Name] == "" {
				t.Errorf("%s.%s: fill %s of no real migration's added column", tab.Name, c.Name, c.Fill)
			}
		}
	}
}
