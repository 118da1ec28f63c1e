package repo

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store/local"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestRemotePlanDeleteFileFormatLabel: a bucket's plan fetches a delete
// file whole before the conversion check by how its catalog's format reads
// it (compare's deleteFormat: Puffin only where the format has Puffin
// deletes), while the checks (the 1.1 -> 1.0 container check, the 1.0 ->
// 0.4 rewrite of deletion vectors, the struct-skip check) go by the raw
// format column. Where the two disagree (a Puffin file labelled 'parquet'
// in a format that expects Puffin; a Parquet file labelled 'puffin'), the
// check finds a file the cache lacks: the bucket's plan gives the local
// plan's verdicts all the same (it fetches where it reads, or reads the
// footer by ranged reads).
func TestRemotePlanDeleteFileFormatLabel(t *testing.T) {
	if testing.Short() {
		t.Skip("checks conversions")
	}
	ctx := context.Background()
	relabel := func(t *testing.T, root, sql string) {
		t.Helper()
		for _, id := range versionIDs(t, root) {
			vdir := filepath.Join(root, "versions", id)
			db := testduck.Open(t, "")
			if _, err := db.Exec(fmt.Sprintf("ATTACH '%s' AS c", filepath.Join(vdir, "ducklake.duckdb"))); err != nil {
				t.Fatal(err)
			}
			res, err := db.Exec(sql)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				t.Fatalf("%s: no delete file relabelled", id)
			}
			if _, err := db.Exec("DETACH c"); err != nil {
				t.Fatal(err)
			}
			db.Close()
			testlakes.EditVersion(t, vdir, nil)
		}
	}
	cases := []struct {
		name string
		lake func(t *testing.T) *local.Store
	}{
		{"puffin labelled puffin", func(t *testing.T) *local.Store {
			return copyLake(t, testlakes.Lake(t, "lakes-1.1-dev1", "24_deletion_vectors"))
		}},
		{"puffin labelled parquet", func(t *testing.T) *local.Store {
			st := copyLake(t, testlakes.Lake(t, "lakes-1.1-dev1", "24_deletion_vectors"))
			relabel(t, st.Root(), `UPDATE c.ducklake_delete_file SET format = 'parquet' WHERE lower(format) = 'puffin'`)
			return st
		}},
		{"parquet labelled puffin", func(t *testing.T) *local.Store {
			st := structSkipLake(t)
			relabel(t, st.Root(), `UPDATE c.ducklake_delete_file SET format = 'puffin'`)
			return st
		}},
	}
	srv := s3test.Start(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.lake(t)
			opts := Options{Formats: []string{"0.4", "1.0"}}
			m, err := Plan(ctx, st, opts)
			if err != nil {
				t.Fatalf("local plan: %v", err)
			}
			want := verdicts(m)
			t.Logf("local plan: %v (%s)", want, cellReasons(m))
			bucket := srv.Bucket(t)
			srv.Upload(t, st.Root(), bucket, "lake")
			bst, err := s3.New(ctx, bucket, "lake", s3.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ropts := opts
			ropts.Cache = t.TempDir()
			m, err = Plan(ctx, bst, ropts)
			if err != nil {
				t.Fatalf("bucket plan: %v", err)
			}
			got := verdicts(m)
			for k, w := range want {
				if got[k] != w {
					t.Errorf("bucket plan: cell %s is %q, the local plan's %q (%s)", k, got[k], w, cellReasons(m))
				}
			}
		})
	}
}
