package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// scheduled measures the run users make most: a backfill on a schedule
// after one version is published, that is of the newest version alone,
// every older one already backfilled (to 0.4 and 1.1) with the cache that
// backfill left, and the same run with --no-cache. Each round starts from
// a copy of that cache and without the newest version's catalogs.
func (b *bench) scheduled(ctx context.Context, repo string, versions, rounds int) {
	clean(repo)
	older := make([]string, 0, versions-1)
	for v := 1; v < versions; v++ {
		older = append(older, fmt.Sprint(v))
	}
	base := filepath.Join(b.dir, "scheduled-cache")
	os.RemoveAll(base)
	defer os.RemoveAll(base)
	jobs := fmt.Sprint(b.jobs)
	b.run("backfill", "--jobs", jobs, "--versions", strings.Join(older, ","), "--cache", base, repo)
	catalogs := filepath.Join(filepath.Dir(newest(repo)), "catalogs")
	bins := b.bins()
	type runs struct{ cached, cachedCPU, cold, coldCPU []float64 }
	byBin := perBin[runs](bins)
	for i := 0; i < rounds; i++ {
		for _, bin := range proofOrder(i, bins) {
			r := byBin[bin]
			os.RemoveAll(catalogs)
			cache := b.freshCache()
			if out, err := exec.Command("cp", "-a", base+"/.", cache).CombinedOutput(); err != nil {
				fail(fmt.Errorf("copy the cache: %v: %s", err, out))
			}
			s, _, c := runBin(bin, "backfill", "--jobs", jobs, "--versions", fmt.Sprint(versions), "--cache", cache, repo)
			r.cached, r.cachedCPU = append(r.cached, s), append(r.cachedCPU, c)
			os.RemoveAll(catalogs)
			s, _, c = runBin(bin, "backfill", "--jobs", jobs, "--versions", fmt.Sprint(versions), "--no-cache", repo)
			r.cold, r.coldCPU = append(r.cold, s), append(r.coldCPU, c)
			fmt.Printf("   round %d %s: backfill of the newest version %.2f s (CPU %.2f s), --no-cache %.2f s (CPU %.2f s); load %s\n",
				i+1, filepath.Base(bin), r.cached[i], r.cachedCPU[i], r.cold[i], r.coldCPU[i], loadavg())
		}
	}
	clean(repo)
	for _, bin := range bins {
		r := byBin[bin]
		fmt.Printf("6. scheduled backfill of the newest of %d versions (%s): %.2f s (CPU %.2f s) with the older versions' cache, %.2f s (CPU %.2f s) with --no-cache\n",
			versions, filepath.Base(bin), median(r.cached), median(r.cachedCPU), median(r.cold), median(r.coldCPU))
	}
	if b.against != "" {
		a, o := byBin[b.bin], byBin[b.against]
		fmt.Printf("6. %s / %s, per round: with the cache %.2f (CPU %.2f), --no-cache %.2f (CPU %.2f)\n", filepath.Base(b.bin), filepath.Base(b.against),
			ratio(a.cached, o.cached), ratio(a.cachedCPU, o.cachedCPU), ratio(a.cold, o.cold), ratio(a.coldCPU, o.coldCPU))
	}
}
