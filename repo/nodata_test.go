package repo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/local"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// noDataLake writes a two-version repository whose tables never hold a
// row (a table, a column added, a view), so that neither its catalogs nor
// its files.json name a data file, and removes its data folder, which its
// publisher never needed. It returns the repository's folder and version
// IDs in order.
func noDataLake(t *testing.T) (string, []string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "nodata")
	res, err := lakegen.Repository(context.Background(), root, lakegen.Spec{Name: "nodata", Versions: []lakegen.Version{
		{Message: "a table, no rows", Snapshots: []lakegen.Snapshot{{
			lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "BIGINT"}, {Name: "name", Type: "VARCHAR"}}},
		}}},
		{Message: "a column and a view", Snapshots: []lakegen.Snapshot{
			{lakegen.AddColumn{Table: "t", Column: lakegen.Column{Name: "note", Type: "VARCHAR"}}},
			{lakegen.CreateView{View: "v", SQL: "SELECT id FROM t"}},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "data")); err != nil {
		t.Fatal(err)
	}
	return root, []string{res.Versions[0].ID, res.Versions[1].ID}
}

// missingDataWarned tells whether warnings hold the warning of a missing
// data folder (missingDataWarning), in a folder or in a bucket.
func missingDataWarned(warnings []string) bool {
	return slices.ContainsFunc(warnings, func(w string) bool {
		return strings.Contains(w, "no data file the catalogs name can be read")
	})
}

// TestNoDataFolderNeeded: a repository whose catalogs name no data file
// (its tables hold no rows) needs no data folder, and its publisher may
// never make one. plan, backfill and check warned all the same that
// data_dir "does not exist: no data file the catalogs name can be read
// there"; check proved every catalog and passed. The warning is now left
// out where every version's files.json (the bytes version.json hashes)
// lists no data file, in a folder as in a bucket; it stays where the run
// cannot know: a version without files.json, a run of some versions (a
// version's catalog names its parents' files too), and where a files.json
// lists a file.
func TestNoDataFolderNeeded(t *testing.T) {
	ctx := context.Background()
	root, ids := noDataLake(t)
	opts := Options{Formats: []string{"1.1"}, Jobs: 2, Cache: t.TempDir()}

	// Copies first: backfill below adds catalogs to root.
	copies := map[string]string{}
	for _, name := range []string{"no files.json", "a file listed", "bucket"} {
		copies[name] = filepath.Join(t.TempDir(), "nodata")
		if err := copyTree(root, copies[name]); err != nil {
			t.Fatal(err)
		}
	}

	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Plan(ctx, st, opts)
	if err != nil || missingDataWarned(m.Warnings) {
		t.Errorf("plan = %v, warnings %q; want none of a missing data folder", err, m.Warnings)
	}
	rep, err := Backfill(ctx, st, opts)
	if err != nil || rep.Counts[Written] != 2 || missingDataWarned(rep.Plan.Warnings) {
		t.Errorf("backfill = %v, counts %v, warnings %q; want 2 written and no warning of a missing data folder", err, rep.Counts, rep.Plan.Warnings)
	}
	crep, err := Check(ctx, st, opts)
	if err != nil || len(crep.Proofs) != 2 || missingDataWarned(crep.Plan.Warnings) {
		t.Errorf("check = %v, %d proofs, findings %q; want a pass proving 2 catalogs, no warning of a missing data folder", err, len(crep.Proofs), findingLines(crep))
	}
	for _, p := range crep.Proofs {
		if !p.OK {
			t.Errorf("proof %+v failed", p)
		}
	}
	// A run of the second version alone does not know what its parent's
	// files.json lists.
	one := opts
	one.Versions = []string{"2"}
	if m, err := Plan(ctx, st, one); err != nil || !missingDataWarned(m.Warnings) {
		t.Errorf("plan of version 2 = %v, warnings %q; want the missing data folder's warning", err, m.Warnings)
	}

	edits := map[string]func(vdir string){
		// files.json is optional: without it, the catalog alone would tell.
		"no files.json": func(vdir string) {
			if err := os.Remove(filepath.Join(vdir, "files.json")); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, vdir, func(m map[string]any) { delete(m, "files") })
		},
		"a file listed": func(vdir string) {
			files := `{"tables": {"main.t": {"files": [{"path": "main/t/x.parquet", "rows": 1, "bytes": 400}]}}}`
			if err := os.WriteFile(filepath.Join(vdir, "files.json"), []byte(files), 0o644); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, vdir, nil, "files")
		},
	}
	for name, edit := range edits {
		edit(filepath.Join(copies[name], "versions", ids[0]))
		st, err := local.New(copies[name])
		if err != nil {
			t.Fatal(err)
		}
		if m, err := Plan(ctx, st, opts); err != nil || !missingDataWarned(m.Warnings) {
			t.Errorf("%s: plan = %v, warnings %q; want the missing data folder's warning", name, err, m.Warnings)
		}
	}

	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, copies["bucket"], bucket, "lake")
	bst, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bopts := opts
	bopts.Cache = t.TempDir()
	if m, err := Plan(ctx, bst, bopts); err != nil || missingDataWarned(m.Warnings) {
		t.Errorf("bucket: plan = %v, warnings %q; want none of a missing data folder", err, m.Warnings)
	}
	one.Cache = bopts.Cache
	if m, err := Plan(ctx, bst, one); err != nil || !missingDataWarned(m.Warnings) {
		t.Errorf("bucket: plan of version 2 = %v, warnings %q; want the missing data folder's warning", err, m.Warnings)
	}
}
