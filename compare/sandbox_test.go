package compare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
	"github.com/fdl-formats/fdl-formats/internal/sandboxtest"
)

// TestReaderSandbox: a proof's reader, asked through its own connection
// (as a slip in our SQL, or in the ducklake extension's, would ask), opens
// no file outside its catalog and data folder (or, with Engines bounded to
// a run's folders, outside those), writes none, and cannot turn its
// sandbox off; it still reads its catalog and data files. Before the
// sandbox, each of these statements ran.
func TestReaderSandbox(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	outside, secret := sandboxtest.Outside(t)
	bounded := NewEngines(1)
	bounded.Within(lake)
	defer bounded.Close()
	for _, tc := range []struct {
		name    string
		engines *Engines
	}{{"own reach", nil}, {"a run's folders", bounded}} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(ctx, catalog, ReaderOptions{DataPath: data, Engines: tc.engines})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			sandboxtest.Refused(t, "a reader's", func(q string) error {
				_, err := r.conn.ExecContext(ctx, q)
				return err
			}, outside, secret, data)
			// The reader still reads what it needs.
			snaps, err := r.Snapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			last := snaps[len(snaps)-1].ID
			tb, err := r.Table(ctx, "main.del", last)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := r.TableDigest(ctx, tb, last, ScanOptions{}); err != nil {
				t.Fatalf("read main.del in the sandbox: %v", err)
			}
		})
	}
}

// TestReaderReachFromCatalog: a reader given no data folder reads the one
// its catalog names (its database opened again with that folder in its
// reach), and nothing else.
func TestReaderReachFromCatalog(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data") + string(os.PathSeparator)
	local := filepath.Join(t.TempDir(), "local.duckdb")
	copyFile(t, catalog, local)
	execCatalog(t, local, "UPDATE ducklake_metadata SET value = "+sqlString(data)+" WHERE key = 'data_path'")
	r, err := Open(ctx, local, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.DataPath() != data {
		t.Fatalf("data path %s, want %s", r.DataPath(), data)
	}
	if _, err := r.conn.ExecContext(ctx, "SELECT * FROM read_text('/etc/hostname')"); err == nil {
		t.Error("a reader without a data folder read /etc/hostname")
	}
	files, err := r.StoredFiles(ctx)
	if err != nil || len(files) == 0 {
		t.Fatalf("stored files: %v, %v", files, err)
	}
	if _, err := r.conn.ExecContext(ctx, "SELECT count(*) FROM read_parquet("+sqlString(files[0].Path)+")"); err != nil {
		t.Errorf("the data folder its catalog names is not in its reach: %v", err)
	}
}

// TestReaderGlobFileOutside: a data file its catalog names by absolute
// path outside the data folder, whose name holds DuckDB's glob characters,
// is read in the reader's sandbox (that file alone, by its escaped
// pattern), and a sibling in its folder stays out of reach. The reader's
// reach held the file's whole folder (duckpool.Reach.AddFiles), and the
// sibling was read.
func TestReaderGlobFileOutside(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	want := readerDigest(ctx, t, catalog, data)
	orig, err := Open(ctx, catalog, ReaderOptions{DataPath: data})
	if err != nil {
		t.Fatal(err)
	}
	files, err := orig.StoredFiles(ctx)
	orig.Close()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(files, func(f StoredFile) bool { return !f.Delete })
	if i < 0 {
		t.Fatal("no data file")
	}
	outside := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	moved, secret := filepath.Join(outside, "part[1]*?.parquet"), filepath.Join(outside, "secret.parquet")
	copyFile(t, files[i].Path, moved)
	copyFile(t, files[i].Path, secret)
	local := filepath.Join(t.TempDir(), "local.duckdb")
	copyFile(t, catalog, local)
	execCatalog(t, local, fmt.Sprintf("UPDATE ducklake_data_file SET path = %s, path_is_relative = false WHERE data_file_id = %d", sqlString(moved), files[i].ID))
	if got := readerDigest(ctx, t, local, data); got != want {
		t.Errorf("digest with the file outside %v, want %v", got, want)
	}
	r, err := Open(ctx, local, ReaderOptions{DataPath: data})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.conn.ExecContext(ctx, "SELECT count(*) FROM read_parquet("+parquetsql.Path(secret)+")"); err == nil {
		t.Errorf("the reader read %s, beside the file its catalog names", secret)
	}
}

// readerDigest is the digest of main.del at the last snapshot of catalog.
func readerDigest(ctx context.Context, t *testing.T, catalog, data string) Digest {
	t.Helper()
	r, err := Open(ctx, catalog, ReaderOptions{DataPath: data})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last := snaps[len(snaps)-1].ID
	tb, err := r.Table(ctx, "main.del", last)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := r.TableDigest(ctx, tb, last, ScanOptions{})
	if err != nil {
		t.Fatalf("%s: digest main.del: %v", catalog, err)
	}
	return d
}
