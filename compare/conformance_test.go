package compare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/conformance"
)

type manifest struct {
	Versions []struct {
		ID        string                      `json:"id"`
		Format    string                      `json:"format"`
		Snapshot  int64                       `json:"snapshot_id"`
		Snapshots map[string]map[string]int64 `json:"snapshots"`
	} `json:"versions"`
}

func readManifest(t *testing.T, lake string) manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(lake, "expected", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("manifest of %s: %v", lake, err)
	}
	return m
}

// TestReaderMatchesDuckLake reads every table at every snapshot recorded in
// the conformance lakes and requires exactly the rows DuckLake returned.
// FDL_COMPARE_LAKES (comma-separated substrings) narrows the sweep.
func TestReaderMatchesDuckLake(t *testing.T) {
	filter := os.Getenv("FDL_COMPARE_LAKES")
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1"} {
		t.Run(archive, func(t *testing.T) {
			for _, lake := range conformance.Lakes(t, archive) {
				name := filepath.Base(lake)
				if filter != "" && !matchesAny(name, filter) {
					continue
				}
				if name == "zz_storage_v2_unreadable" {
					continue // TestStorageV2Unreadable
				}
				t.Run(name, func(t *testing.T) { checkLake(t, lake) })
			}
		})
	}
}

func matchesAny(name, filter string) bool {
	for _, f := range strings.Split(filter, ",") {
		if f != "" && strings.Contains(name, f) {
			return true
		}
	}
	return false
}

func checkLake(t *testing.T, lake string) {
	ctx := context.Background()
	m := readManifest(t, lake)
	for _, v := range m.Versions {
		catalog := filepath.Join(lake, "versions", v.ID, "ducklake.duckdb")
		r, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(lake, "data")})
		if err != nil {
			t.Fatalf("version %s: %v", v.ID, err)
		}
		snaps := make([]int64, 0, len(v.Snapshots))
		for s := range v.Snapshots {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("manifest snapshot %q", s)
			}
			snaps = append(snaps, n)
		}
		sort.Slice(snaps, func(i, j int) bool { return snaps[i] < snaps[j] })
		for _, s := range snaps {
			want := v.Snapshots[strconv.FormatInt(s, 10)]
			tables, err := r.Tables(ctx, s)
			if err != nil {
				t.Fatalf("version %s snapshot %d: %v", v.ID, s, err)
			}
			got := map[string]bool{}
			for _, tb := range tables {
				got[tb.FullName()] = true
				if _, ok := want[tb.FullName()]; !ok {
					t.Errorf("version %s snapshot %d: table %s is not in the manifest", v.ID, s, tb.FullName())
				}
			}
			for name := range want {
				if !got[name] {
					t.Errorf("version %s snapshot %d: table %s not visible to our reader", v.ID, s, name)
				}
			}
			for _, tb := range tables {
				expected := filepath.Join(lake, "expected", v.ID, strconv.FormatInt(s, 10), tb.FullName()+".parquet")
				if err := compareWithExpected(ctx, t, r, tb, s, expected); err != nil {
					t.Errorf("version %s (format %s) snapshot %d table %s: %v", v.ID, r.Format(), s, tb.FullName(), err)
				}
			}
		}
		r.Close()
	}
}

// compareWithExpected writes our rows to Parquet the way the expected files
// were written and compares both files' rows as text multisets.
func compareWithExpected(ctx context.Context, t *testing.T, r *Reader, tb Table, snap int64, expected string) error {
	q, err := r.Query(ctx, tb, snap, ScanOptions{})
	if err != nil {
		return err
	}
	ours := filepath.Join(t.TempDir(), "ours.parquet")
	if _, err := r.conn.ExecContext(ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", q, sqlString(ours))); err != nil {
		return fmt.Errorf("run our query: %w\n%s", err, q)
	}
	a, err := rowCounts(ctx, r.conn, "SELECT * FROM read_parquet("+sqlString(ours)+")")
	if err != nil {
		return err
	}
	b, err := rowCounts(ctx, r.conn, "SELECT * FROM read_parquet("+sqlString(expected)+")")
	if err != nil {
		return err
	}
	d := diffRows(a, b, 5)
	if len(d.OnlyA) > 0 || len(d.OnlyB) > 0 {
		return fmt.Errorf("rows differ from DuckLake's (A = ours, B = expected):\n%s", d)
	}
	return nil
}

func TestStorageV2Unreadable(t *testing.T) {
	lakes := conformance.Lakes(t, "lakes-1.1-dev1")
	for _, lake := range lakes {
		if filepath.Base(lake) != "zz_storage_v2_unreadable" {
			continue
		}
		m := readManifest(t, lake)
		for _, v := range m.Versions {
			_, err := Open(context.Background(), filepath.Join(lake, "versions", v.ID, "ducklake.duckdb"), ReaderOptions{DataPath: filepath.Join(lake, "data")})
			if err == nil {
				t.Fatalf("version %s: opened a storage v2 catalog", v.ID)
			}
			if !errors.Is(err, ErrIncomparable) || !strings.Contains(err.Error(), "storage version") {
				t.Errorf("version %s: want a clear storage-version error wrapping ErrIncomparable, got %v", v.ID, err)
			}
		}
		return
	}
	t.Skip("lake zz_storage_v2_unreadable not in the set")
}
