package repo_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/repo"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// benchSpec is a repository of n versions of one growing table: each
// version appends rows in two data files, every fifth deletes some.
func benchSpec(n, rows int) lakegen.Spec {
	spec := lakegen.Spec{Name: "bench", Title: fmt.Sprintf("%d versions", n),
		Start: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)}
	for i := range n {
		snap := lakegen.Snapshot{}
		if i == 0 {
			snap = append(snap, lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{
				{Name: "id", Type: "BIGINT"}, {Name: "v", Type: "DOUBLE"}, {Name: "label", Type: "VARCHAR"}}})
		}
		snap = append(snap, lakegen.Insert{Table: "t", Files: 2, Select: fmt.Sprintf(
			`SELECT i, i / 7.0, 'row-' || (i %% 997) FROM range(%d, %d) r(i)`, i*rows, (i+1)*rows)})
		v := lakegen.Version{Message: fmt.Sprintf("version %d", i+1), Snapshots: []lakegen.Snapshot{snap}}
		if i%5 == 4 {
			v.Snapshots = append(v.Snapshots, lakegen.Snapshot{lakegen.Delete{Table: "t", Where: fmt.Sprintf("id %% 101 = 0 AND id < %d", (i+1)*rows)}})
		}
		spec.Versions = append(spec.Versions, v)
	}
	return spec
}

// BenchmarkBackfillS3 backfills a 20-version repository from a bucket of a
// local S3 server (versitygw), with an empty data cache, and reports the
// bytes moved and how much of the time was download. FDL_BENCH_S3_ROWS
// sets the rows each version adds (default 20000).
func BenchmarkBackfillS3(b *testing.B) {
	rows := 20000
	if s := os.Getenv("FDL_BENCH_S3_ROWS"); s != "" {
		rows, _ = strconv.Atoi(s)
	}
	const versions = 20
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "repo")
	start := time.Now()
	if _, err := lakegen.Repository(ctx, dir, benchSpec(versions, rows)); err != nil {
		b.Fatal(err)
	}
	var files, dataBytes int64
	filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, _ := d.Info()
			files, dataBytes = files+1, dataBytes+info.Size()
		}
		return nil
	})
	b.Logf("generated %d versions, %d data files (%d bytes) in %s", versions, files, dataBytes, time.Since(start).Round(time.Millisecond))
	srv := s3test.Start(b)
	bucket := srv.Bucket(b)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		prefix := fmt.Sprintf("repo%d", i)
		srv.Upload(b, dir, bucket, prefix)
		st, err := s3.New(ctx, bucket, prefix, s3.Options{})
		if err != nil {
			b.Fatal(err)
		}
		opts := repo.Options{Cache: b.TempDir(), Now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}
		b.StartTimer()
		t0 := time.Now()
		rep, err := repo.Backfill(ctx, st, opts)
		secs := time.Since(t0).Seconds()
		if err != nil {
			b.Fatal(err)
		}
		tr := rep.Transfer
		fmt.Printf("backfill s3 (%d versions, %d rows each): %.1fs, %d catalogs written; downloaded %d bytes (%d of %d data files, each once) in %.1fs of downloads, uploaded %d bytes\n",
			versions, rows, secs, rep.Counts[repo.Written], tr.Downloaded, tr.DataFiles, files, tr.DownloadSeconds, tr.Uploaded)
		b.ReportMetric(float64(tr.Downloaded), "down-bytes/op")
		b.ReportMetric(float64(tr.Uploaded), "up-bytes/op")
		b.ReportMetric(tr.DownloadSeconds, "download-s/op")
	}
}
