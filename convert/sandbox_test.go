package convert

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/sandboxtest"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestConversionSandbox: a conversion's database, asked through its own
// connection (as a slip in our SQL would ask), opens no file outside its
// source catalog, data folder, delete files' folder and outputs' folders
// (or, with Engines bounded to a run's folders, outside those), writes
// none there, and cannot turn its sandbox off; the conversion then writes
// its output as before. Before the sandbox, each of these statements ran.
func TestConversionSandbox(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	data := filepath.Join(lake, "data")
	outside, secret := sandboxtest.Outside(t)
	bounded := NewEngines(1)
	defer bounded.Close()
	for _, tc := range []struct {
		name    string
		engines *Engines
	}{{"own reach", nil}, {"a run's folders", bounded}} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			bounded.Within(lake, out)
			dst := filepath.Join(out, "0.4.duckdb")
			p, closeDB, err := prepare(ctx, src, []string{dst}, Options{DataPath: data, TempDir: out, Engines: tc.engines})
			if err != nil {
				t.Fatal(err)
			}
			defer closeDB()
			sandboxtest.Refused(t, "a conversion's", func(q string) error {
				_, err := p.conn.ExecContext(ctx, q)
				return err
			}, outside, secret, "")
			if _, err := p.convert(ctx, dst, formats.V0_4, nil); err != nil {
				t.Fatalf("convert in the sandbox: %v", err)
			}
			if _, err := os.Stat(dst); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDetectSandbox: Detect's database reaches the catalog only.
func TestDetectSandbox(t *testing.T) {
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	if v, err := Detect(context.Background(), vs[0], 0); err != nil || v == nil {
		t.Fatalf("Detect in the sandbox: %v, %v", v, err)
	}
}

// fixtureDirs are the folders of the tests' catalogs, data and outputs:
// temporary folders and the unpacked conformance set.
func fixtureDirs(t *testing.T) []string {
	return []string{os.TempDir(), filepath.Dir(filepath.Dir(testlakes.Dir(t, "lakes")))}
}

// TestConversionFollowsLinks: a conversion of a local repository whose
// data folder, a folder in it, or its data and delete files are symbolic
// links leading out of the repository reads the files where the links
// lead, as DuckLake's readers do (docs/repository.md: links are followed;
// check warns of those leading outside): each output, with its rewritten
// delete files, proves equivalent to the source. DuckDB checks where a
// link leads against the sandbox; the conversion's reach held the data
// folder alone, so its reads were refused, also in a run's databases
// (Engines bounded to the repository's folders, as backfill's).
func TestConversionFollowsLinks(t *testing.T) {
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	for _, how := range []string{"files", "folder", "data folder"} {
		for _, bounded := range []bool{false, true} {
			name := how
			if bounded {
				name += ", a run's databases"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				repo, elsewhere := t.TempDir(), t.TempDir()
				data := filepath.Join(repo, "data")
				switch how {
				case "files": // every data and delete file a link to a file elsewhere
					copyTree(t, filepath.Join(lake, "data"), data)
					for _, p := range listTree(t, data) {
						if filepath.Ext(p) != ".parquet" {
							continue
						}
						target := filepath.Join(elsewhere, filepath.Base(p))
						if err := os.Rename(p, target); err != nil {
							t.Fatal(err)
						}
						if err := os.Symlink(target, p); err != nil {
							t.Fatal(err)
						}
					}
				case "folder": // a table's folder linked elsewhere
					copyTree(t, filepath.Join(lake, "data"), data)
					del := filepath.Join(data, "main", "del")
					if err := os.Rename(del, filepath.Join(elsewhere, "del")); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(filepath.Join(elsewhere, "del"), del); err != nil {
						t.Fatal(err)
					}
				case "data folder": // the data folder linked onto another disk
					copyTree(t, filepath.Join(lake, "data"), filepath.Join(elsewhere, "data"))
					if err := os.Symlink(filepath.Join(elsewhere, "data"), data); err != nil {
						t.Fatal(err)
					}
				}
				src := filepath.Join(repo, "ducklake.duckdb")
				copyFile(t, vs[len(vs)-1], src)
				var engines *Engines
				if bounded {
					engines = NewEngines(1)
					defer engines.Close()
					engines.Within(repo)
				}
				// The proofs read the source once (compare.Source: each
				// still reads all of both catalogs), as a backfill's proofs
				// of a version's cells do.
				fromSrc := compare.NewSource()
				defer fromSrc.Close()
				for _, to := range []*formats.Version{formats.V0_3, formats.V0_4, formats.V1_1} {
					dst := filepath.Join(repo, to.Name+".duckdb")
					opts := Options{DataPath: data, TempDir: filepath.Join(repo, ".fdl-tmp"), RewriteDeletes: true, Lossy: LossyOptions, Engines: engines}
					if _, err := Catalog(ctx, src, dst, to, opts); err != nil {
						t.Fatalf("convert to %s: %v", to.Name, err)
					}
					rep, err := compare.Catalogs(ctx, src, dst, compare.Options{DataPath: data, Source: fromSrc})
					if err != nil || !rep.Equivalent {
						t.Fatalf("prove %s: %v %+v", to.Name, err, rep)
					}
				}
			})
		}
	}
}

// TestDryRunReachesNoCurrentFolder: a pass whose outputs are dry runs
// (Output without Dst, as a plan checks a version's formats) reaches no
// more than Check does. Before, an output's empty Dst gave its folder "."
// to the sandbox: the process's current folder, readable and writable by
// the conversion's database.
func TestDryRunReachesNoCurrentFolder(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	here := filepath.Join(cwd, "sandbox_test.go") // the package's folder, the tests' current one
	p, closeDB, err := prepare(ctx, vs[len(vs)-1], []string{""}, Options{DataPath: filepath.Join(lake, "data")})
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	for _, q := range []string{"SELECT * FROM read_text(" + literal(here) + ")", "SELECT * FROM read_text('sandbox_test.go')"} {
		if _, err := p.conn.ExecContext(ctx, q); err == nil {
			t.Errorf("%s: a dry run's database read a file of the current folder", q)
		}
	}
}
