package convert

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// BenchmarkCatalog converts the catalogs named in $FDL_BENCH_CATALOGS
// (a filepath.SplitList list, e.g. frozen catalogs of the issue 9
// history repository) to 0.4 and 1.1 through one pooled database, as a
// backfill does, with $FDL_BENCH_DATA (the repository's data folder, as
// backfill gives it) as Options.DataPath when set. Besides the time it
// reports the process's CPU per conversion (cpu-ms/op, on Unix). It is
// skipped without catalogs.
func BenchmarkCatalog(b *testing.B) {
	srcs := filepath.SplitList(os.Getenv("FDL_BENCH_CATALOGS"))
	if len(srcs) == 0 {
		b.Skip("FDL_BENCH_CATALOGS not set")
	}
	data := os.Getenv("FDL_BENCH_DATA")
	ctx := context.Background()
	engines := NewEngines(1)
	defer engines.Close()
	for i, src := range srcs {
		for _, to := range []string{"0.4", "1.1"} {
			target, err := formats.Lookup(to)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("catalog%d-to-%s", i, to), func(b *testing.B) {
				dir := b.TempDir()
				n := 0
				cpu0 := processCPU(b)
				for b.Loop() {
					n++
					dst := filepath.Join(dir, fmt.Sprintf("%d.duckdb", n))
					if _, err := Catalog(ctx, src, dst, target, Options{Engines: engines, DataPath: data}); err != nil {
						b.Fatal(err)
					}
					os.Remove(dst)
				}
				b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/1000/float64(n), "cpu-ms/op")
			})
		}
	}
}

// BenchmarkCatalogs converts each catalog of $FDL_BENCH_CATALOGS (as
// BenchmarkCatalog) to 0.4 and 1.1, as a backfill converts a version: two
// Catalog calls ("alone") against one Catalogs pass ("pass"), through one
// pooled database; cpu-ms/op is per version (both formats).
func BenchmarkCatalogs(b *testing.B) {
	srcs := filepath.SplitList(os.Getenv("FDL_BENCH_CATALOGS"))
	if len(srcs) == 0 {
		b.Skip("FDL_BENCH_CATALOGS not set")
	}
	ctx := context.Background()
	engines := NewEngines(1)
	defer engines.Close()
	var targets []*formats.Version
	for _, to := range []string{"0.4", "1.1"} {
		target, err := formats.Lookup(to)
		if err != nil {
			b.Fatal(err)
		}
		targets = append(targets, target)
	}
	opts := Options{Engines: engines, DataPath: os.Getenv("FDL_BENCH_DATA")}
	for i, src := range srcs {
		for _, mode := range []string{"alone", "pass"} {
			b.Run(fmt.Sprintf("catalog%d-%s", i, mode), func(b *testing.B) {
				dir := b.TempDir()
				n := 0
				cpu0 := processCPU(b)
				for b.Loop() {
					n++
					outs := make([]Output, len(targets))
					for j, target := range targets {
						outs[j] = Output{Target: target, Dst: filepath.Join(dir, fmt.Sprintf("%d-%s.duckdb", n, target.Name))}
					}
					var got []Converted
					if mode == "pass" {
						got = Catalogs(ctx, src, outs, opts)
					} else {
						for _, o := range outs {
							res, err := Catalog(ctx, src, o.Dst, o.Target, opts)
							got = append(got, Converted{Result: res, Err: err})
						}
					}
					for j, c := range got {
						if c.Err != nil {
							b.Fatal(c.Err)
						}
						os.Remove(outs[j].Dst)
					}
				}
				b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/1000/float64(n), "cpu-ms/op")
			})
		}
	}
}
