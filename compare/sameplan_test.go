package compare

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

// samePlanLake is a small history lake (4 data files, deletes in version
// 2): its last catalog and data folder.
func samePlanLake(t *testing.T) (catalog, data string) {
	t.Helper()
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 2, RowsPerVersion: 3000, FilesPerVersion: 2, DeleteEvery: 2})
	return cats[len(cats)-1], data
}

func differences(rep *Report) string {
	if rep == nil {
		return "no report"
	}
	var all []string
	for _, d := range rep.Differences {
		all = append(all, d.String())
	}
	return strings.Join(all, "\n")
}

// TestSamePlansCancel: a lake compared with a copy of its catalog reads
// every data file once, by a check scan, and digests none (every file has
// the same plan on both sides); the cache then holds the checks, which a
// later proof reuses as checks but never as digests.
func TestSamePlansCancel(t *testing.T) {
	catalog, data := samePlanLake(t)
	files, _ := lakeFilesOf(t, catalog, data)
	other := tamper(t, catalog)
	ctx := context.Background()
	store := memStore{}
	cold, err := Catalogs(ctx, catalog, other, Options{DataPath: data, Digests: NewDigests(store), Engines: readerDBs})
	if err != nil {
		t.Fatalf("%v\n%s", err, differences(cold))
	}
	d := cold.Digests
	if d.Computed != 0 || d.Checked != len(files) || d.Reads != len(files) || d.SamePlan == 0 {
		t.Errorf("cold: %+v; want %d files checked, none digested", d, len(files))
	}
	proved := 0
	for _, tr := range cold.Tables {
		proved += tr.SamePlanFiles
		// A table without files has the empty digest on both sides.
		if (tr.SamePlanFiles > 0) != (tr.A == nil && tr.B == nil) {
			t.Errorf("table %s at %d: %d same-plan files, digests %v %v; want every file proved by its plan and no digest printed", tr.Table, tr.Snapshot, tr.SamePlanFiles, tr.A, tr.B)
		}
	}
	if proved != d.SamePlan || proved < len(files) {
		t.Errorf("%d files proved by their plans in the tables, %d in the digests; want the same, at least the %d files", proved, d.SamePlan, len(files))
	}
	warm, err := Catalogs(ctx, catalog, other, Options{DataPath: data, Digests: NewDigests(store), Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	if d := warm.Digests; d.Reads != 0 || d.Checked != 0 || d.Cached != len(files) {
		t.Errorf("warm: %+v; want every check from the cache, nothing read", d)
	}
	// A check is no digest: a proof that needs the digests reads them.
	full, err := Catalogs(ctx, catalog, other, Options{DataPath: data, Digests: NewDigests(store), everyDigest: true, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	if d := full.Digests; d.Computed != len(files) || d.Cached != 0 {
		t.Errorf("every digest over a cache of checks: %+v; want %d digests computed, none from the cache", d, len(files))
	}
}

// TestSamePlansOnlyWhenEqual: files whose plans differ in one respect only
// (deleted positions, a name mapping, a default, a type) are digested and
// their rows found different; a file whose partition values differ has the
// same plan (our reader reads the same rows) and the files comparison
// finds it; a file both sides read under a plan that cannot read it fails
// the proof; a record_count both sides record but the file does not hold
// is a difference.
func TestSamePlansOnlyWhenEqual(t *testing.T) {
	catalog, data := samePlanLake(t)
	const (
		table    = `(SELECT table_id FROM ducklake_table WHERE table_name = 'events')`
		firstDel = `(SELECT min(delete_file_id) FROM ducklake_delete_file)`
		first    = `(SELECT min(data_file_id) FROM ducklake_data_file)`
		addExtra = `INSERT INTO ducklake_column BY NAME SELECT 99 AS column_id, begin_snapshot, table_id, 99 AS column_order, 'extra' AS column_name, 'int32' AS column_type, '%s' AS initial_default, '%s' AS default_value, 'literal' AS default_value_type, true AS nulls_allowed FROM ducklake_column WHERE column_name = 'id'`
	)
	labelStatsNull := `UPDATE ducklake_table_column_stats SET min_value = NULL, max_value = NULL WHERE column_id IN (SELECT column_id FROM ducklake_column WHERE column_name = 'label')`
	for _, tc := range []struct {
		name           string
		a, b           []string
		kind, text     string // a difference the proof must report
		incomparable   bool
		wantDigested   bool // some file of the table digested on both sides
		wantSamePlanAt bool // some file proved by its plan
	}{
		{name: "deleted positions", b: []string{`DELETE FROM ducklake_delete_file WHERE delete_file_id = ` + firstDel},
			kind: "rows", text: "rows differ", wantDigested: true},
		{name: "name mapping", b: []string{
			`INSERT INTO ducklake_column_mapping VALUES (900, ` + table + `, 'map_by_name')`,
			`INSERT INTO ducklake_name_mapping SELECT 900, column_id, column_name, column_id, NULL, false FROM ducklake_column WHERE column_name IN ('id', 'grp', 'amount')`,
			`UPDATE ducklake_data_file SET mapping_id = 900 WHERE data_file_id = ` + first},
			kind: "rows", text: "rows differ", wantDigested: true},
		{name: "default", a: []string{strings.ReplaceAll(addExtra, "%s", "1")}, b: []string{strings.ReplaceAll(addExtra, "%s", "2")},
			kind: "rows", text: "rows differ", wantDigested: true},
		{name: "type", b: []string{`UPDATE ducklake_column SET column_type = 'int64' WHERE column_name = 'amount'`},
			kind: "rows", text: "rows differ", wantDigested: true},
		{name: "partition values", b: []string{`INSERT INTO ducklake_file_partition_value VALUES (` + first + `, ` + table + `, 0, '3')`},
			kind: "files", text: "differs", wantSamePlanAt: true},
		// The table statistics' text must not fail first (uncastable-column-stats):
		// this case is about the file its plan cannot read.
		{name: "unreadable under its plan", a: []string{`UPDATE ducklake_column SET column_type = 'int32' WHERE column_name = 'label'`, labelStatsNull},
			b: []string{`UPDATE ducklake_column SET column_type = 'int32' WHERE column_name = 'label'`, labelStatsNull}, incomparable: true},
		{name: "record_count", a: []string{`UPDATE ducklake_data_file SET record_count = record_count + 1 WHERE data_file_id = ` + first},
			b:    []string{`UPDATE ducklake_data_file SET record_count = record_count + 1 WHERE data_file_id = ` + first},
			kind: "files", text: "record_count is 1501, the file has 1500 rows", wantSamePlanAt: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := tamper(t, catalog, tc.a...), tamper(t, catalog, tc.b...)
			rep, err := Catalogs(context.Background(), a, b, Options{DataPath: data, Engines: readerDBs})
			if tc.incomparable {
				if !errors.Is(err, ErrIncomparable) || rep.Equivalent {
					t.Fatalf("got %v; want the proof to fail on the file its plan cannot read\n%s", err, differences(rep))
				}
				t.Logf("proof failed as it must: %v", err)
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, tc.kind, tc.text) {
				t.Fatalf("got %v; want a %s difference containing %q; differences:\n%s", err, tc.kind, tc.text, differences(rep))
			}
			digested, same := false, false
			for _, tr := range rep.Tables {
				digested = digested || (tr.A != nil && tr.A.Rows > 0 && tr.B != nil && tr.B.Rows > 0)
				same = same || tr.SamePlanFiles > 0
			}
			if tc.wantDigested && (!digested || rep.Digests.Computed == 0) {
				t.Errorf("no file digested (%+v); want the files whose plans differ digested on both sides", rep.Digests)
			}
			if tc.wantSamePlanAt && !same {
				t.Errorf("no file proved by its plan (%+v); want the files whose plans are equal left out", rep.Digests)
			}
		})
	}
}

// TestSamePlanRows: the rows of the files a comparison leaves out (their
// rows under the plan less their deleted positions), added to the digest
// of the other parts, are the table's rows, at every snapshot: count(*)
// is compared on them (counts.go).
func TestSamePlanRows(t *testing.T) {
	catalog, data := samePlanLake(t)
	ctx := context.Background()
	r, snaps := openWithSnapshots(t, catalog, data)
	checked := 0
	for _, s := range snaps {
		tables, err := r.Tables(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			whole, _, err := r.TableDigest(ctx, tb, s.ID, rowOptions())
			if err != nil {
				t.Fatal(err)
			}
			tp, err := r.tablePlan(ctx, tb, s.ID, rowOptions())
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k <= len(tp.files); k++ { // leave out the first k files
				skip := make([]bool, len(tp.files))
				for i := range k {
					skip[i] = true
				}
				rest, _, err := r.planDigest(ctx, tb, s.ID, rowOptions(), tp, skip)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := r.checkPlans(ctx, tb, s.ID, rowOptions(), tp, skip); err != nil {
					t.Fatal(err)
				}
				if got := rest.Rows + r.samePlanRows(tp, skip); got != whole.Rows {
					t.Errorf("%s at %d, %d files left out: %d rows, want %d", tb.FullName(), s.ID, k, got, whole.Rows)
				}
				checked++
			}
		}
	}
	if checked < 5 {
		t.Fatalf("%d cases; want the lake's tables at several snapshots", checked)
	}
}
