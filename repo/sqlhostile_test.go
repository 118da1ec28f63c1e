package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestHostileNamesRunNoSQL: a repository's catalogs may have been written
// by anyone. Its table, column and view names, defaults, comments,
// partition values and data file paths hold quotes, statement ends,
// comment starts, line breaks and glob characters, each written to end
// the quoting it would land in and run a COPY that writes a marker file.
// plan, backfill and check must run none of it: the marker never appears,
// and the repository is backfilled and proved as any other (the data file
// paths hold *, ? and [: DuckDB must read each file alone, not a glob).
func TestHostileNamesRunNoSQL(t *testing.T) {
	ctx := context.Background()
	markers := t.TempDir()
	marker := func(n string) string { return filepath.Join(markers, n) }
	// Each payload ends an identifier, a literal or a line, then writes
	// its own marker.
	payload := func(n string) string {
		copyTo := "COPY (SELECT 1) TO '" + marker(n) + "' (FORMAT csv)"
		return `x"'); ` + copyTo + `; -- ` + "\n" + `'"; ` + copyTo + `; --*?[`
	}
	tbl := `t"';--*?[1]` + "\n"
	part := `p"';*?[`
	formats := lakegen.DefaultFormats()
	formats[0].Until = "" // 0.3 too: its conversion rewrites partial deletion files
	spec := lakegen.Spec{Name: "hostile", Formats: formats, Versions: []lakegen.Version{
		{Message: "hostile names", Snapshots: []lakegen.Snapshot{
			{lakegen.CreateTable{Table: tbl, Columns: []lakegen.Column{
				{Name: "id", Type: "BIGINT"},
				{Name: payload("column"), Type: "VARCHAR"},
				{Name: "s", Type: "STRUCT", Fields: []lakegen.Column{{Name: payload("field"), Type: "INTEGER"}}},
			}}},
			{lakegen.CreateTable{Table: part, Columns: []lakegen.Column{
				{Name: "k", Type: "VARCHAR"}, {Name: "v", Type: "BIGINT"},
			}}},
			{lakegen.PartitionBy{Table: part, Columns: []string{"k"}}},
			{lakegen.Insert{Table: tbl, Select: "SELECT range, 'a''b', struct_pack(\"" + strings.ReplaceAll(payload("field"), `"`, `""`) + "\" := range::INTEGER) FROM range(6)", Files: 2}},
			{lakegen.Insert{Table: part, Select: `SELECT * FROM (VALUES ('a*b', 1), ('[x]', 2), ('it''s; --', 4), ('axxb', 5)) v(k, v)`}},
			{lakegen.Comment{Table: tbl, Text: payload("comment")}},
		}},
		{Message: "more", Snapshots: []lakegen.Snapshot{
			{lakegen.AddColumn{Table: tbl, Column: lakegen.Column{Name: payload("added"), Type: "VARCHAR", Default: payload("default")}}},
			{lakegen.Delete{Table: tbl, Where: "id = 1"}},
			{lakegen.Delete{Table: tbl, Where: "id = 2"}},
			{lakegen.Delete{Table: part, Where: "v = 5"}},
			{lakegen.CreateView{View: payload("view"), SQL: "SELECT 1; " + strings.TrimPrefix(payload("viewsql"), `x"'); `)}},
		}},
	}}
	root := filepath.Join(t.TempDir(), "hostile")
	if _, err := lakegen.Repository(ctx, root, spec); err != nil {
		t.Fatal(err)
	}
	noMarker := func(when string) {
		t.Helper()
		ents, err := os.ReadDir(markers)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			t.Errorf("%s: a name or value of the catalog ran as SQL: %s written", when, e.Name())
		}
	}
	noMarker("lakegen")
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Jobs: 2, Cache: t.TempDir(), Convert: convert.Options{RewriteDeletes: true}}
	if _, err := Plan(ctx, st, opts); err != nil {
		t.Fatalf("plan: %v", err)
	}
	noMarker("plan")
	rep, err := Backfill(ctx, st, opts)
	noMarker("backfill")
	if err != nil {
		t.Fatalf("backfill: %v", err)
	}
	t.Logf("backfill counts %v", rep.Counts)
	crep, err := Check(ctx, st, Options{Jobs: 2, Cache: t.TempDir()})
	noMarker("check")
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if !crep.OK {
		t.Errorf("check failed: %s", strings.Join(findingLines(crep), "\n"))
	}
	for _, p := range crep.Proofs {
		if !p.OK {
			t.Errorf("proof %+v failed", p)
		}
	}
}
