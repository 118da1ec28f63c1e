package repo

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestRemotePlanReadsFooters: plan's conversion check reads data files'
// footers (their field ids; the footer quirks of DuckDB's Parquet reader;
// the struct-skip check's row groups, then rows). A remote repository's
// data folder is the cache's mirror, which plan never filled with data
// files: the check skipped them and showed missing the cells that the
// local plan refuses (and backfill then refused), cold or warm. Now plan
// reads each footer the mirror lacks by ranged reads and keeps it beside
// the mirror: cold and warm plans of a bucket and of a web site give every
// cell the local plan's verdict, the warm one reading no footer again
// where the object has a strong ETag (the web site's Last-Modified: for
// the run only), and no data file is downloaded whole but the one whose
// rows the struct-skip check reads.
func TestRemotePlanReadsFooters(t *testing.T) {
	if testing.Short() {
		t.Skip("checks conversions")
	}
	ctx := context.Background()
	cases := []struct {
		name    string
		refused string // a refusal code the local plan gives
		formats []string
		// whole: the check reads rows of a data file, which is then
		// downloaded whole (the struct-skip check).
		whole bool
		lake  func(t *testing.T) *local.Store
	}{
		{"add_files without field ids", "unmapped-files-read-null", []string{"0.3"}, false, func(t *testing.T) *local.Store {
			const name = "q_delete__delete_legacy_missing_mapping_after_rename_add_files"
			st := copyLake(t, testlakes.Lake(t, "lakes-0.3-reader", name))
			relocate(t, st.Root(), name)
			setFormats(t, st.Root(), `[{"ducklake": "0.3"}, {"ducklake": "1.0"}]`)
			return st
		}},
		{"footer quirks", "string-stats-invalid-utf8", []string{"0.3", "0.4"}, false, quirksLake},
		{"struct-skip", "struct-nulls-after-skipped-vector", []string{"0.3", "0.4"}, true, structSkipLake},
	}
	srv := s3test.Start(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.lake(t)
			opts := Options{Formats: tc.formats}
			m, err := Plan(ctx, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := verdicts(m)
			if !strings.Contains(strings.Join(mapValues(want), "\n"), tc.refused) {
				t.Fatalf("local plan: %v, want a cell refused for %s", want, tc.refused)
			}

			bucket := srv.Bucket(t)
			srv.Upload(t, st.Root(), bucket, "lake")
			bst, err := s3.New(ctx, bucket, "lake", s3.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// A web site whose files have only a Last-Modified time (Go's
			// file server): its footers are kept for the run only.
			wst, err := httpstore.New(webtest.Serve(t, st.Root(), webtest.Options{})+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, remote := range []struct {
				name string
				st   store.Store
				kept bool // footers kept between runs (a strong ETag)
			}{{"bucket", bst, true}, {"web site", wst, false}} {
				ropts := opts
				ropts.Cache = t.TempDir()
				for _, run := range []string{"cold", "warm"} {
					m, err := Plan(ctx, remote.st, ropts)
					if err != nil {
						t.Fatalf("%s, %s plan: %v", remote.name, run, err)
					}
					got := verdicts(m)
					for k, w := range want {
						if got[k] != w {
							t.Errorf("%s, %s plan: cell %s is %q, the local plan's %q", remote.name, run, k, got[k], w)
						}
					}
					// Footers read by ranged reads cold (and warm, where the
					// validators are weak), else from the cache; none warm
					// where the cold plan downloaded the file.
					read, kept := 1, 0
					switch {
					case run == "warm" && tc.whole:
						read = 0
					case run == "warm" && remote.kept:
						read, kept = 0, 1
					}
					if tr := m.Transfer; min(tr.Footers, 1) != read || min(tr.FootersCached, 1) != kept {
						t.Errorf("%s, %s plan: transfer %+v, want footers read: %v, from the cache: %v", remote.name, run, tr, read > 0, kept > 0)
					}
					// Only delete files (the converter reads their first
					// bytes) are downloaded: no data file whole, unless
					// the check reads its rows.
					whole := 0
					filepath.WalkDir(filepath.Join(ropts.Cache, "objects"), func(p string, d fs.DirEntry, err error) error {
						if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.HasSuffix(p, "-delete.parquet") && !strings.Contains(p, footersSuffix+string(os.PathSeparator)) {
							whole++
							if !tc.whole {
								t.Errorf("%s, %s plan: data file %s downloaded whole", remote.name, run, p)
							}
						}
						return nil
					})
					if tc.whole && whole == 0 {
						t.Errorf("%s, %s plan: no data file in the cache, want the one whose rows the check reads", remote.name, run)
					}
				}
			}
		})
	}
}

// structSkipLake is a repository whose one data file holds a vector of
// NULL structs deleted before a read one of non-NULL structs (convert's
// TestStructNullsAfterSkippedVector): the struct-skip check refuses 0.3
// and 0.4 (declared with 1.0), reading the rows of its delete file.
func structSkipLake(t *testing.T) *local.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lake")
	col := lakegen.Column{Name: "col", Type: "STRUCT", Fields: []lakegen.Column{{Name: "a", Type: "VARCHAR"}, {Name: "b", Type: "DOUBLE"}}}
	if _, err := lakegen.Repository(context.Background(), dir, lakegen.Spec{Name: "skip", Versions: []lakegen.Version{{Message: "v1", Snapshots: []lakegen.Snapshot{
		{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "BIGINT"}, col}}},
		{lakegen.Insert{Table: "t", Select: "SELECT i, CASE WHEN i >= 2048 AND i < 4096 THEN NULL ELSE {a: 'hello', b: 42.0} END FROM range(8192) t(i)"}},
		{lakegen.Delete{Table: "t", Where: "col IS NULL"}},
	}}}}); err != nil {
		t.Fatal(err)
	}
	st, err := local.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	setFormats(t, dir, `[{"ducklake": "0.3"}, {"ducklake": "0.4"}, {"ducklake": "1.0"}]`)
	return st
}

// TestRemotePlanMissingDeleteFile: the struct-skip check reads the rows
// of a data file's delete files; a bucket's cache fetches each where it is
// read (convert.FooterSource's Fetch). A delete file the store lacks
// failed the whole bucket plan there ("data file ...-delete.parquet: ...
// not found"), where the local plan leaves it to the proof (the check
// skips it, the cell is planned as the others): the bucket's and the web
// site's plans (its server honouring Range or not) now give the local
// plan's verdicts.
func TestRemotePlanMissingDeleteFile(t *testing.T) {
	if testing.Short() {
		t.Skip("checks conversions")
	}
	ctx := context.Background()
	st := structSkipLake(t)
	n := 0
	err := filepath.WalkDir(st.Root(), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, "-delete.parquet") {
			n++
			return os.Remove(p)
		}
		return err
	})
	if err != nil || n != 1 {
		t.Fatalf("removing the delete file: %d removed, %v", n, err)
	}
	opts := Options{Formats: []string{"0.4"}}
	m, err := Plan(ctx, st, opts)
	if err != nil {
		t.Fatalf("local plan: %v", err)
	}
	want := verdicts(m)
	if len(want) == 0 {
		t.Fatal("local plan: no cell")
	}
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, st.Root(), bucket, "lake")
	bst, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ranged, err := httpstore.New(webtest.Serve(t, st.Root(), webtest.Options{})+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := httpstore.New(webtest.Serve(t, st.Root(), webtest.Options{IgnoreRange: true})+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, remote := range []struct {
		name string
		st   store.Store
	}{{"bucket", bst}, {"web site", ranged}, {"web site ignoring Range", whole}} {
		ropts := opts
		ropts.Cache = t.TempDir()
		m, err := Plan(ctx, remote.st, ropts)
		if err != nil {
			t.Errorf("%s plan: %v, want the local plan's verdicts %v", remote.name, err, want)
			continue
		}
		got := verdicts(m)
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s plan: cell %s is %q, the local plan's %q (%s)", remote.name, k, got[k], w, cellReasons(m))
			}
		}
	}
}

// cellReasons is the reasons the cells of a plan give, for a message.
func cellReasons(m *Matrix) string {
	var out []string
	for _, v := range m.Versions {
		for _, c := range v.Cells {
			out = append(out, c.Reasons...)
		}
	}
	return strings.Join(out, "; ")
}

// verdicts is each cell of a plan, by version and format: its state and
// the codes it is refused for.
func verdicts(m *Matrix) map[string]string {
	out := map[string]string{}
	for _, v := range m.Versions {
		for _, c := range v.Cells {
			var codes []string
			for _, f := range c.Findings {
				if f.Severity == convert.Refuse {
					codes = append(codes, f.Code)
				}
			}
			out[v.ID+" "+c.Format] = string(c.State) + " " + strings.Join(codes, ",")
		}
	}
	return out
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// quirksLake is a lake whose data files have footer quirks (invalid UTF-8
// in string statistics: footertest's Break), sealed again, with 0.3, 0.4
// and 1.0 declared: 0.3 and 0.4 readers refuse it.
func quirksLake(t *testing.T) *local.Store {
	t.Helper()
	newLake := func(ctx context.Context, dir string) (*footertest.Lake, error) {
		return footertest.NewLake(ctx, dir, false)
	}
	return brokenLake(t, newLake, (*footertest.Lake).Break, `[{"ducklake": "0.3"}, {"ducklake": "0.4"}, {"ducklake": "1.0"}]`)
}

// brokenLake is a repository copied from a footertest lake whose data
// files breakIt rewrote as another writer would (the lake's catalogs
// updated, sealed again), declaring fdlFormats.
func brokenLake(t *testing.T, newLake func(context.Context, string) (*footertest.Lake, error), breakIt func(*footertest.Lake, context.Context, ...string) error, fdlFormats string) *local.Store {
	t.Helper()
	ctx := context.Background()
	l, err := newLake(ctx, filepath.Join(t.TempDir(), "lake"))
	if err == nil {
		err = breakIt(l, ctx)
	}
	if err == nil {
		err = l.Reseal()
	}
	if err != nil {
		t.Fatal(err)
	}
	st := copyLake(t, filepath.Dir(l.Data))
	setFormats(t, st.Root(), fdlFormats)
	return st
}
