package compare

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/duckblocks"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// blockOffset is a file offset in the first block holding a table's data.
func blockOffset(t *testing.T, path, table string) int64 {
	t.Helper()
	off, err := duckblocks.Offset(path, table)
	if err != nil {
		t.Fatal(err)
	}
	return off
}

func damage(t *testing.T, catalog string, how func(t *testing.T, path string)) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "damaged.duckdb")
	copyFile(t, catalog, dst)
	how(t, dst)
	return dst
}

func cut(n int64) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, st.Size()-n); err != nil {
			t.Fatal(err)
		}
	}
}

func flipIn(table string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		off := blockOffset(t, path, table)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[off] ^= 0xff
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCatalogsReadWholeFiles: a catalog that cannot be read whole (a block
// cut off, a byte flipped in any table, a write-ahead log beside it) while
// the other one reads is a difference, whichever side it is; when neither
// reads, the catalogs could not be compared.
func TestCatalogsReadWholeFiles(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name string
		a, b func(t *testing.T, path string)
		want error
		text string
	}{
		{"B without its last block", nil, cut(256 * 1024), ErrNotEquivalent, "B cannot be read while A can"},
		{"B one byte short", nil, cut(1), ErrNotEquivalent, "is truncated"},
		{"A without its last block", cut(256 * 1024), nil, ErrNotEquivalent, "A cannot be read while B can"},
		{"byte flipped in ducklake_table_stats", nil, flipIn("ducklake_table_stats"), ErrNotEquivalent, "ducklake_table_stats"},
		{"byte flipped in ducklake_column", nil, flipIn("ducklake_column"), ErrNotEquivalent, "ducklake_column"},
		{"byte flipped in ducklake_snapshot", nil, flipIn("ducklake_snapshot"), ErrNotEquivalent, "B cannot be read while A can"},
		{"write-ahead log beside B", nil, func(t *testing.T, path string) {
			if err := os.WriteFile(path+".wal", []byte("wal"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, ErrNotEquivalent, "write-ahead log"},
		{"both truncated", cut(256 * 1024), cut(256 * 1024), ErrIncomparable, "neither catalog can be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := catalog, filepath.Join(t.TempDir(), "copy.duckdb")
			copyFile(t, catalog, b)
			if tc.a != nil {
				a = damage(t, catalog, tc.a)
			}
			if tc.b != nil {
				tc.b(t, b)
			}
			rep, err := Catalogs(context.Background(), a, b, Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("Catalogs = %v, want %v containing %q", err, tc.want, tc.text)
			}
			if rep != nil && rep.Equivalent {
				t.Error("report says equivalent")
			}
			// No comparison ran: the report counts no delete files, not
			// zero of them.
			if rep != nil {
				js, err := json.Marshal(rep)
				if err != nil {
					t.Fatal(err)
				}
				if rep.DeleteFiles != nil || strings.Contains(string(js), `"delete_files"`) {
					t.Errorf("delete files %+v in a report of no comparison: %s", rep.DeleteFiles, js)
				}
			}
		})
	}
}

// TestCatalogTruncatedByDuckDB: at a checkpoint DuckDB truncates the free
// blocks at the end of a file and rewrites the header only at the next
// one, so a catalog DuckDB wrote and reads is shorter than its header
// says. The proof called it truncated, a difference (review rv16-b): it is
// equivalent now, while a copy cut inside a block still is not.
func TestCatalogTruncatedByDuckDB(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	b := filepath.Join(t.TempDir(), "copy.duckdb")
	copyFile(t, catalog, b)
	testlakes.FreeTrailingBlocks(t, b)
	if _, err := Catalogs(context.Background(), catalog, b, Options{DataPath: data, Engines: readerDBs}); err != nil {
		t.Fatalf("Catalogs with a catalog DuckDB truncated = %v, want equivalent", err)
	}
	cut(1)(t, b)
	if _, err := Catalogs(context.Background(), catalog, b, Options{DataPath: data, Engines: readerDBs}); !errors.Is(err, ErrNotEquivalent) || !strings.Contains(err.Error(), "is truncated") {
		t.Fatalf("Catalogs with that catalog one byte short = %v, want truncated", err)
	}
}

// TestCatalogsCompareStats: statistics readers use to skip files are part
// of the proof.
func TestCatalogsCompareStats(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	for _, tc := range []struct{ stmt, text string }{
		{`UPDATE ducklake_table_stats SET record_count = record_count + 1 WHERE table_id = 1`, "ducklake_table_stats table_id=\"1\" differs: record_count"},
		{`UPDATE ducklake_table_column_stats SET max_value = '99999' WHERE table_id = 1 AND column_id = 1`, "ducklake_table_column_stats table_id=\"1\" column_id=\"1\" differs: max_value"},
		{`UPDATE ducklake_file_column_stats SET min_value = '5' WHERE data_file_id = 0 AND column_id = 1`, "ducklake_file_column_stats data_file_id=\"0\" column_id=\"1\" differs: min_value"},
		{`DELETE FROM ducklake_file_column_stats WHERE data_file_id = 1`, "ducklake_file_column_stats data_file_id=\"1\" column_id=\"2\" only in A"},
	} {
		t.Run(tc.stmt, func(t *testing.T) {
			b := tamper(t, catalog, tc.stmt)
			rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "stats", tc.text) {
				var all []string
				if rep != nil {
					for _, d := range rep.Differences {
						all = append(all, d.String())
					}
				}
				t.Fatalf("Catalogs = %v; want a stats difference %q; got:\n%s", err, tc.text, strings.Join(all, "\n"))
			}
		})
	}
}

// TestDiskCheck: file sizes and footer sizes against the catalog's record.
func TestDiskCheck(t *testing.T) {
	lake, _ := lastVersion(t, "lakes", "06_deletes")
	parquet := filepath.Join(lake, "data", "main", "whole", "ducklake-01a229fa-2580-70e1-b02f-847f6012f71f.parquet") // 237 bytes, footer 160
	dv, _ := lastVersion(t, "lakes-1.1-dev1", "24_deletion_vectors")
	puffin := filepath.Join(dv, "data", "main", "dv", "ducklake-01a22a02-c813-7d4a-9839-7953a892b6ab-delete.puffin") // 3239 bytes, footer 985
	bare := filepath.Join(dv, "data", "main", "dv", "ducklake-01a22a02-c7f5-7501-af78-8ae06753e9c3-delete.puffin")   // 1040 bytes, no footer
	footerTampered := filepath.Join(t.TempDir(), "f.parquet")
	copyFile(t, parquet, footerTampered)
	raw, _ := os.ReadFile(footerTampered)
	raw[len(raw)-8]++ // same size, footer length 161
	os.WriteFile(footerTampered, raw, 0o644)
	i64 := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name, path   string
		size         int64
		footer       *int64
		format, want string
	}{
		{"parquet matches", parquet, 237, i64(160), "parquet", ""},
		{"parquet without footer record", parquet, 237, nil, "parquet", ""},
		{"parquet size differs", parquet, 250, i64(160), "parquet", "is 237 bytes on disk, the catalog records 250"},
		{"parquet footer differs", footerTampered, 237, i64(160), "parquet", "has a 161-byte footer, the catalog records 160"},
		{"puffin container matches", puffin, 3239, i64(985), "puffin", ""},
		{"puffin footer differs", puffin, 3239, i64(900), "puffin", "has a 985-byte footer, the catalog records 900"},
		{"bare deletion vector", bare, 1040, i64(0), "puffin", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewDiskCheck().Check(tc.path, tc.size, tc.footer, tc.format)
			if err != nil || (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("Check = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := NewDiskCheck().Check(parquet+".gone", 1, nil, "parquet"); !errors.Is(err, ErrIncomparable) {
		t.Errorf("missing file: %v, want ErrIncomparable", err)
	}
}

// TestCatalogsOpenError: a catalog that cannot be opened at all (no file,
// not DuckDB, not DuckLake, another process's lock) is still a difference
// when the other reads, as check and backfill need it (a published catalog
// no reader opens differs from its source), and says why with an
// *OpenError; a catalog its readers fail on (truncated) is none.
func TestCatalogsOpenError(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	dir := t.TempDir()
	text := filepath.Join(dir, "text.duckdb")
	if err := os.WriteFile(text, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		b    func(t *testing.T) string
		want OpenCause // 0: no OpenError
	}{
		{"no file", func(*testing.T) string { return filepath.Join(dir, "typo.duckdb") }, OpenNoFile},
		{"a text file", func(*testing.T) string { return text }, OpenNotDuckDB},
		{"a folder", func(*testing.T) string { return dir }, OpenNotDuckDB},
		{"truncated", func(t *testing.T) string {
			b := filepath.Join(t.TempDir(), "copy.duckdb")
			copyFile(t, catalog, b)
			cut(256*1024)(t, b)
			return b
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b(t)
			_, err := Catalogs(context.Background(), catalog, b, Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, ErrNotEquivalent) || !strings.Contains(err.Error(), "B cannot be read while A can") {
				t.Fatalf("Catalogs = %v, want a difference", err)
			}
			var oe *OpenError
			switch ok := errors.As(err, &oe); {
			case tc.want == 0 && ok:
				t.Fatalf("an OpenError (%d) for a catalog its readers fail on: %v", oe.Cause, err)
			case tc.want != 0 && (!ok || oe.Cause != tc.want || oe.Path != b):
				t.Fatalf("Catalogs = %v, want an OpenError of cause %d naming %s", err, tc.want, b)
			}
		})
	}
}
