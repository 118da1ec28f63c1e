package compare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

// The benchmark lake: lakegen.Large at FDL_BENCH_ROWS rows (default ten
// million) in FDL_BENCH_FILES files, kept under FDL_BENCH_DIR (default the
// OS temp folder) so that repeated runs do not regenerate it.
var (
	benchOnce sync.Once
	benchLake struct {
		catalog, data string
		files         []string
		bytes         int64
		err           error
	}
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func benchSetup(b *testing.B) {
	b.Helper()
	benchOnce.Do(func() {
		rows, files := envInt("FDL_BENCH_ROWS", 10_000_000), envInt("FDL_BENCH_FILES", 8)
		base := os.Getenv("FDL_BENCH_DIR")
		if base == "" {
			base = os.TempDir()
		}
		dir := filepath.Join(base, fmt.Sprintf("fdl-bench-lake-%d-%d", rows, files))
		if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
			os.RemoveAll(dir)
			start := time.Now()
			if _, err := lakegen.Large(context.Background(), dir, rows, files); err != nil {
				benchLake.err = err
				return
			}
			if err := os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644); err != nil {
				benchLake.err = err
				return
			}
			fmt.Fprintf(os.Stderr, "generated benchmark lake %s (%d rows, %d files) in %s\n", dir, rows, files, time.Since(start).Round(time.Millisecond))
		}
		catalogs, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "ducklake.duckdb"))
		if len(catalogs) == 0 {
			benchLake.err = fmt.Errorf("no catalog under %s", dir)
			return
		}
		benchLake.catalog, benchLake.data = catalogs[len(catalogs)-1], filepath.Join(dir, "data")
		_ = filepath.Walk(benchLake.data, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.HasSuffix(p, "-delete.parquet") {
				benchLake.files = append(benchLake.files, p)
				benchLake.bytes += info.Size()
			}
			return nil
		})
	})
	if benchLake.err != nil {
		b.Fatalf("benchmark lake: %v", benchLake.err)
	}
}

// benchScan times one full scan: count and a hash of every column of every
// row, the same aggregate for the reader's SQL and for plain read_parquet.
func benchScan(b *testing.B, r *Reader, from string) (rows int64, d time.Duration) {
	b.Helper()
	start := time.Now()
	q := fmt.Sprintf("SELECT count(*), sum(hash(t.id, t.grp, t.amount, t.label)) FROM (%s) t", from)
	var sum any
	if err := r.conn.QueryRowContext(context.Background(), q).Scan(&rows, &sum); err != nil {
		b.Fatal(err)
	}
	return rows, time.Since(start)
}

func benchReader(b *testing.B) (*Reader, string, string) {
	benchSetup(b)
	ctx := context.Background()
	r, err := Open(ctx, benchLake.catalog, ReaderOptions{DataPath: benchLake.data})
	if err != nil {
		b.Fatal(err)
	}
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		b.Fatal(err)
	}
	last := snaps[len(snaps)-1].ID
	t, err := r.Table(ctx, "main.big", last)
	if err != nil {
		b.Fatal(err)
	}
	ours, err := r.Query(ctx, t, last, ScanOptions{})
	if err != nil {
		b.Fatal(err)
	}
	quoted := make([]string, len(benchLake.files))
	for i, f := range benchLake.files {
		quoted[i] = sqlString(f)
	}
	plain := "SELECT * FROM read_parquet([" + strings.Join(quoted, ", ") + "])"
	return r, ours, plain
}

// BenchmarkReader compares our reader (DuckLake rules: field ids, deletes)
// with a plain read_parquet scan of the same files, in the same run, and
// reports rows/s, MB/s (Parquet bytes) and the ratio of their times.
//
//	go test ./compare -run '^$' -bench Reader -benchtime 3x
func BenchmarkReader(b *testing.B) {
	r, ours, plain := benchReader(b)
	defer r.Close()
	var tOurs, tPlain time.Duration
	var nOurs, nPlain int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n, d := benchScan(b, r, plain)
		nPlain, tPlain = n, tPlain+d
		n, d = benchScan(b, r, ours)
		nOurs, tOurs = n, tOurs+d
	}
	b.StopTimer()
	mb := float64(benchLake.bytes) / 1e6
	per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(float64(nOurs)/per(tOurs), "reader-rows/s")
	b.ReportMetric(mb/per(tOurs), "reader-MB/s")
	b.ReportMetric(float64(nPlain)/per(tPlain), "plain-rows/s")
	b.ReportMetric(mb/per(tPlain), "plain-MB/s")
	b.ReportMetric(tOurs.Seconds()/tPlain.Seconds(), "time-ratio")
	fmt.Fprintf(os.Stderr, "reader: %d rows in %.3fs = %.0f rows/s, %.1f MB/s | read_parquet: %d rows in %.3fs = %.0f rows/s, %.1f MB/s | reader/read_parquet time ratio %.2f (%d files, %.1f MB)\n",
		nOurs, per(tOurs), float64(nOurs)/per(tOurs), mb/per(tOurs), nPlain, per(tPlain), float64(nPlain)/per(tPlain), mb/per(tPlain), tOurs.Seconds()/tPlain.Seconds(), len(benchLake.files), mb)
}

// BenchmarkDigest measures the per-table digest compare uses (two typed
// row hashes per row, deletes subtracted), the cost of a proof per row.
func BenchmarkDigest(b *testing.B) {
	r, _, _ := benchReader(b)
	defer r.Close()
	ctx := context.Background()
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		b.Fatal(err)
	}
	last := snaps[len(snaps)-1].ID
	t, err := r.Table(ctx, "main.big", last)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var d Digest
	start := time.Now()
	for i := 0; i < b.N; i++ {
		r.memo = newDigestMemo(nil) // measure reading, not the memo
		if d, _, err = r.TableDigest(ctx, t, last, ScanOptions{RowIDs: true}); err != nil {
			b.Fatal(err)
		}
	}
	sec := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(float64(d.Rows)/sec, "rows/s")
	b.ReportMetric(float64(benchLake.bytes)/1e6/sec, "MB/s")
	fmt.Fprintf(os.Stderr, "digest with row ids: %d rows in %.3fs = %.0f rows/s, %.1f MB/s\n", d.Rows, sec, float64(d.Rows)/sec, float64(benchLake.bytes)/1e6/sec)
}
