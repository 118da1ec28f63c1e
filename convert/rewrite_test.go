package convert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// copyTree copies a folder (a lake's data files) so tests can write into it.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// columnNamedFolder is a data folder under dir whose parents are named like
// the columns of delete files and merged files (_ducklake_internal_snapshot_id=1,
// pos=0): a Parquet read that detected Hive partitions would take them for
// those columns' values. DuckLake reads no values from paths; neither may
// a conversion.
func columnNamedFolder(t *testing.T, dir string) string {
	t.Helper()
	return filepath.Join(dir, "_ducklake_internal_snapshot_id=1", "pos=0", "data")
}

func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func TestRewriteDeletes(t *testing.T) {
	lakes := testlakes.Dir(t, "lakes")
	ctx := context.Background()
	for _, name := range []string{"06_deletes", "07_updates_merge", "20_time_travel", "23_row_lineage", "24_deletion_vectors"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			vs := versionCatalogs(t, filepath.Join(lakes, name))
			src := vs[len(vs)-1]
			data := columnNamedFolder(t, t.TempDir())
			copyTree(t, filepath.Join(lakes, name, "data"), data)
			before := listTree(t, data)
			opts := Options{RewriteDeletes: true, DataPath: data}

			// Without the option: refused, with the option named.
			_, err := Check(ctx, src, formats.V0_3, Options{})
			var refused *RefusedError
			if !errors.As(err, &refused) || !slices.ContainsFunc(refused.Findings, func(f Finding) bool { return f.Option == "--rewrite-deletes --data DIR" }) {
				t.Fatalf("without --rewrite-deletes: %v, want a refusal naming the option", err)
			}
			// A dry run writes nothing.
			if _, err := Check(ctx, src, formats.V0_3, opts); err != nil {
				t.Fatal(err)
			}
			if got := listTree(t, data); !slices.Equal(got, before) {
				t.Fatalf("dry run wrote %d files", len(got)-len(before))
			}
			out := filepath.Join(t.TempDir(), "0.3.duckdb")
			res, err := Catalog(ctx, src, out, formats.V0_3, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Code == "partial-delete-files" && f.Severity == Note }) {
				t.Errorf("findings %v: want the rewrite reported", res.Findings)
			}
			after := listTree(t, data)
			if len(after) <= len(before) {
				t.Fatalf("no delete file written")
			}
			assertShapes(t, out, formats.V0_3)
			rep, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data})
			if err != nil || !rep.Equivalent {
				t.Fatalf("rewritten 0.3 catalog not equivalent: %v %+v", err, rep.Differences)
			}
			// A second run reuses the same files.
			if _, err := Catalog(ctx, src, filepath.Join(t.TempDir(), "again.duckdb"), formats.V0_3, opts); err != nil {
				t.Fatal(err)
			}
			if again := listTree(t, data); !slices.Equal(again, after) {
				t.Errorf("second run wrote %d more files", len(again)-len(after))
			}
		})
	}
	t.Run("encrypted files need a secure encryptor", func(t *testing.T) {
		lake := filepath.Join(lakes, "15_encryption")
		vs := versionCatalogs(t, lake)
		_, err := Check(ctx, vs[len(vs)-1], formats.V0_3, Options{RewriteDeletes: true, DataPath: filepath.Join(lake, "data")})
		var refused *RefusedError
		if errors.As(err, &refused) {
			if !strings.Contains(err.Error(), "httpfs") {
				t.Errorf("refusal %v should say why the encrypted delete file cannot be rewritten", err)
			}
			return
		}
		// Where httpfs loads, the rewrite must succeed.
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("nothing written when refused for another reason", func(t *testing.T) {
		vs := versionCatalogs(t, filepath.Join(lakes, "13_variant"))
		data := filepath.Join(t.TempDir(), "data")
		copyTree(t, filepath.Join(lakes, "13_variant", "data"), data)
		before := listTree(t, data)
		_, err := Catalog(ctx, vs[len(vs)-1], filepath.Join(t.TempDir(), "0.3.duckdb"), formats.V0_3, Options{RewriteDeletes: true, DataPath: data})
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("err = %v, want refused (variant)", err)
		}
		if got := listTree(t, data); !slices.Equal(got, before) {
			t.Errorf("a refused conversion wrote %d files into the data folder", len(got)-len(before))
		}
	})
}

// TestRewritePublishRace: another job or run publishes a rewritten delete
// file under the same deterministic name between this run's write and its
// publication. The same content is already there (the same bytes, or the
// same rows encoded differently, whose size and footer the catalog then
// records); other rows under that name are refused and nothing is written.
func TestRewritePublishRace(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	copyParquet := func(query, to string) error {
		_, err := db.Exec(fmt.Sprintf(`COPY (%s) TO %s (FORMAT parquet, COMPRESSION uncompressed, FIELD_IDS {file_path: %d, pos: %d})`,
			query, literal(to), formats.DeleteFilePathFieldID, formats.DeletePosFieldID))
		return err
	}
	for _, tc := range []struct {
		name  string
		plant func(from, to string) error // what the other writer published first
		want  error
	}{
		{"same bytes", func(from, to string) error {
			b, err := os.ReadFile(from)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, 0o644)
		}, nil},
		{"same rows, other encoding", func(from, to string) error {
			return copyParquet(fmt.Sprintf("SELECT * FROM read_parquet(%s) ORDER BY pos", literal(from)), to)
		}, nil},
		{"other rows", func(from, to string) error {
			return copyParquet(fmt.Sprintf("SELECT * FROM read_parquet(%s) ORDER BY pos OFFSET 1", literal(from)), to)
		}, ErrExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			planted := map[string]int64{} // final path -> size of what was planted
			fctx := faults.With(ctx, func(p faults.Point) error {
				if p.Name != "convert/link" {
					return nil
				}
				if err := tc.plant(p.From, p.Path); err != nil {
					return err
				}
				st, err := os.Stat(p.Path)
				if err != nil {
					return err
				}
				planted[p.Path] = st.Size()
				a, _ := os.ReadFile(p.From)
				b, _ := os.ReadFile(p.Path)
				if same := string(a) == string(b); same != (tc.name == "same bytes") {
					t.Errorf("planted file has the same bytes = %v", same)
				}
				return nil
			})
			out := filepath.Join(t.TempDir(), "0.3.duckdb")
			_, err := Catalog(fctx, src, out, formats.V0_3, Options{RewriteDeletes: true, DataPath: data})
			if len(planted) == 0 {
				t.Fatal("no rewritten delete file was published")
			}
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
				if _, statErr := os.Stat(out); statErr == nil {
					t.Error("catalog written despite the conflict")
				}
				return
			}
			if err != nil {
				t.Fatalf("a file already there with the same content failed the conversion: %v", err)
			}
			// The catalog records the files really there.
			rows := query(t, out, `SELECT path, file_size_bytes FROM c.ducklake_delete_file`)
			for final, size := range planted {
				found := false
				for _, r := range rows {
					if strings.HasSuffix(final, "/"+filepath.Base(r[0])) {
						found = true
						if r[1] != fmt.Sprint(size) {
							t.Errorf("%s: catalog says %s bytes, the file has %d", r[0], r[1], size)
						}
					}
				}
				if !found {
					t.Errorf("%s is not in the catalog", final)
				}
			}
			rep, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data})
			if err != nil || !rep.Equivalent {
				t.Fatalf("not equivalent: %v %+v", err, rep.Differences)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(data), ".fdl-tmp")); err == nil {
				t.Error("temporary folder left behind")
			}
		})
	}
}
