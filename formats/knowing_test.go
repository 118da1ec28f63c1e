package formats

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestCheckRequiredKnowing: given the ducklake_metadata rows ReadMetadata
// read, CheckRequiredKnowing answers as CheckRequired does, which asks
// the catalog whether it is encrypted in its query: a global 'true' (once
// or twice), 'false', 'TRUE' (the readers compare exactly), a
// 'true' of a table's scope only (where the layout has scope; without
// one every row is global), none. Rows read otherwise than the layout
// says (Known.Scoped) are not used.
func TestCheckRequiredKnowing(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	if _, err := db.Exec("ATTACH ':memory:' AS k"); err != nil {
		t.Fatal(err)
	}
	refused := 0 // cases CheckRequired refuses (the file's NULL key)
	for _, name := range []string{"1.1", "0.1"} {
		v, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		scoped := slices.ContainsFunc(v.Tables, func(t Table) bool {
			return t.Name == "ducklake_metadata" && slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Name == "scope" })
		})
		for _, rows := range []string{
			"('encrypted', 'true', NULL, NULL)",
			"('encrypted', 'true', NULL, NULL), ('encrypted', 'true', NULL, NULL)",
			"('encrypted', 'false', NULL, NULL)",
			"('encrypted', 'TRUE', NULL, NULL)",
			"('encrypted', 'true', 'table', 1), ('encrypted', 'false', NULL, NULL)",
			"('encrypted', 'true', 'table', 1)",
			"('version', '0.3', NULL, NULL)",
		} {
			t.Run(fmt.Sprintf("%s %s", name, rows), func(t *testing.T) {
				layout := Layout{}
				var stmts []string
				for _, tb := range v.Tables {
					stmts = append(stmts, fmt.Sprintf("DROP TABLE IF EXISTS k.main.%s", tb.Name), "USE k", tb.DDL(), "USE memory")
					for _, c := range tb.Columns {
						layout[tb.Name] = append(layout[tb.Name], c.Name)
					}
				}
				cols := "key, value, scope, scope_id"
				if !scoped {
					cols = "key, value"
					rows = stripScope(rows)
				}
				stmts = append(stmts, fmt.Sprintf("INSERT INTO k.main.ducklake_metadata (%s) VALUES %s", cols, rows),
					"INSERT INTO k.main.ducklake_data_file (data_file_id, table_id, begin_snapshot, path, path_is_relative, record_count, file_size_bytes) VALUES (1, 1, 1, 'a.parquet', true, 1, 1)")
				for _, s := range stmts {
					if _, err := db.Exec(s); err != nil {
						t.Fatalf("%s: %v", s, err)
					}
				}
				meta, err := ReadMetadata(ctx, db, "k", "main", scoped)
				if err != nil {
					t.Fatal(err)
				}
				want := CheckRequired(ctx, db, "k.duckdb", "k", "main", v, layout, Layout{})
				if want != nil {
					refused++
				}
				for _, known := range []Known{{Metadata: meta, Scoped: scoped}, {Metadata: meta, Scoped: !scoped}, {}} {
					got := CheckRequiredKnowing(ctx, db, "k.duckdb", "k", "main", v, layout, Layout{}, known)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("Known %+v: %v, CheckRequired %v", known, got, want)
					}
				}
			})
		}
	}
	// 1.1: a global 'true' (two cases); 0.1, without scope: also the two
	// cases of a table's (every row global).
	if refused != 6 {
		t.Errorf("%d cases refused, want 6", refused)
	}
}

// stripScope drops the scope fields of the VALUES rows above.
func stripScope(rows string) string {
	out := map[string]string{
		"('encrypted', 'true', NULL, NULL)":                                     "('encrypted', 'true')",
		"('encrypted', 'true', NULL, NULL), ('encrypted', 'true', NULL, NULL)":  "('encrypted', 'true'), ('encrypted', 'true')",
		"('encrypted', 'false', NULL, NULL)":                                    "('encrypted', 'false')",
		"('encrypted', 'TRUE', NULL, NULL)":                                     "('encrypted', 'TRUE')",
		"('encrypted', 'true', 'table', 1), ('encrypted', 'false', NULL, NULL)": "('encrypted', 'true'), ('encrypted', 'false')",
		"('encrypted', 'true', 'table', 1)":                                     "('encrypted', 'true')",
		"('version', '0.3', NULL, NULL)":                                        "('version', '0.3')",
	}
	return out[rows]
}
