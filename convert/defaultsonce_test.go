package convert

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestDefaultsShortcutConditions: defaultsCheck takes the source's
// judgement for the target's (89b4409) only where every condition holds:
// no rows of expression defaults (exprRows), no statement naming the
// tables read since the copy-in (work.columnsWritten), and a source's
// judgement made clean, with the target's query, default_value casting
// and judges (defaultsJudged.sameFor). A 1.0 catalog with defaults is
// checked as its source, then its int columns get the default 'x' behind
// execCount's back (the flag unset): the shortcut, taken as judged, keeps
// the source's answer (no refusal), and each condition broken alone
// makes the target's rows judged again (refused).
func TestDefaultsShortcutConditions(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "05_defaults_not_null")
	vs := versionCatalogs(t, lake)
	r, failed, judged, closeDB := sourceChecked(t, ctx, vs[len(vs)-1])
	defer closeDB()
	if judged == nil || !judged.clean || len(judged.judges) == 0 {
		t.Fatalf("the source's check judged %+v, want clean and some judges", judged)
	}
	// Not through execCount: the flag stays unset, so only the
	// conditions below tell the target's rows from the source's.
	if _, err := r.w.conn.ExecContext(ctx, `UPDATE ducklake_column SET initial_default = 'x' WHERE column_type LIKE 'int%' AND parent_column IS NULL`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		exprRows map[[3]int64]bool
		written  bool
		edit     func(j *defaultsJudged)
		refused  bool
	}{
		{"as judged", nil, false, nil, false},
		{"another query", nil, false, func(j *defaultsJudged) { j.query += " LIMIT 1" }, true},
		{"default_value cast otherwise", nil, false, func(j *defaultsJudged) { j.castsDefaultValue = !j.castsDefaultValue }, true},
		{"judged after a write", nil, false, func(j *defaultsJudged) { j.clean = false }, true},
		{"a judge otherwise", nil, false, func(j *defaultsJudged) {
			for k := range j.judges {
				j.judges[k] = "SELECT false"
				break
			}
		}, true},
		{"rows of expression defaults", map[[3]int64]bool{{-1, -1, -1}: true}, false, nil, true},
		{"columns written", nil, true, nil, true},
	} {
		j := *judged
		j.judges = maps.Clone(judged.judges)
		if tc.edit != nil {
			tc.edit(&j)
		}
		r.findings = nil
		r.w.columnsWritten = tc.written
		if err := r.defaultsCheck(formats.V1_1, tc.exprRows, failed, &j); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		refused := len(r.findings) == 1 && r.findings[0].Code == "uncastable-default" && strings.Contains(r.findings[0].Detail, `initial_default "x" does not cast`)
		if refused != tc.refused || (!tc.refused && len(r.findings) > 0) {
			t.Errorf("%s: findings %v, want refused (uncastable-default \"x\"): %v", tc.name, r.findings, tc.refused)
		}
	}
}

// TestNamesColumnTables: a statement naming ducklake_column or
// ducklake_table, in any letter case, may change the rows the defaults
// checks read (the table names in their findings come from
// ducklake_table); others do not.
func TestNamesColumnTables(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  bool
	}{
		{`UPDATE ducklake_column SET initial_default = NULL`, true},
		{`DELETE FROM DuckLake_Column WHERE table_id = 1`, true},
		{`UPDATE ducklake_table SET table_name = 'b' WHERE table_id = 1`, true},
		{`CREATE OR REPLACE TABLE DUCKLAKE_TABLE AS SELECT * FROM ducklake_table`, true},
		{`INSERT INTO ducklake_table_stats VALUES (1, 0, 0, 0)`, true},
		{`UPDATE ducklake_data_file SET record_count = 0`, false},
		{`DELETE FROM ducklake_snapshot WHERE snapshot_id > 1`, false},
	} {
		if got := namesColumnTables(tc.query); got != tc.want {
			t.Errorf("namesColumnTables(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
}

// TestCopyInClearsColumnsWritten: the copy-in makes a working copy of the
// source anew, whose rows the source's defaults check judges: what was
// written to the one before (columnsWritten) no longer stands, and an
// UPDATE of ducklake_table through execCount sets it again.
func TestCopyInClearsColumnsWritten(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	p, closeDB, err := prepare(ctx, vs[len(vs)-1], nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	w := &work{conn: p.conn, db: workDB, schema: p.schema, columnsWritten: true}
	if err := w.copyIn(ctx, p.tables); err != nil {
		t.Fatal(err)
	}
	if w.columnsWritten {
		t.Error("columnsWritten after the copy-in, want cleared")
	}
	if err := w.exec(ctx, `UPDATE ducklake_table SET table_name = table_name`); err != nil {
		t.Fatal(err)
	}
	if !w.columnsWritten {
		t.Error("columnsWritten not set by an UPDATE of ducklake_table")
	}
}

// sourceChecked prepares catalog, copies it into a working copy and runs
// the source's defaults check there, as a conversion's first output does;
// the check must refuse nothing.
func sourceChecked(t *testing.T, ctx context.Context, catalog string) (*run, map[string][]string, *defaultsJudged, func()) {
	t.Helper()
	p, closeDB, err := prepare(ctx, catalog, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &run{ctx: ctx, w: &work{conn: p.conn, db: workDB, schema: p.schema}}
	if err := r.w.copyIn(ctx, p.tables); err != nil {
		closeDB()
		t.Fatal(err)
	}
	failed, judged, err := r.sourceDefaultsCheck(p.source)
	if err != nil || len(r.findings) > 0 {
		closeDB()
		t.Fatalf("the source's check: %v, %v", err, r.findings)
	}
	return r, failed, judged, closeDB
}
