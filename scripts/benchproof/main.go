// Command benchproof prints the proof benchmarks of docs/compare.md: it
// generates the lakegen repositories it needs (once, under -dir), then times
// in one run, rounds interleaved so that machine load affects every figure
// alike, and prints medians:
//
//  1. the proof of the newest version of the history repository (compare
//     of its catalog with its 1.1 conversion, no cache) against a plain
//     DuckDB scan `SELECT count(*), sum(hash(t)) FROM read_parquet([...])`
//     of all its data files, wall and CPU time (the proof's user + system
//     time as a process, the scan's as this process's own while it runs);
//     with -against OLD, the proof of a second binary runs in the same
//     rounds, the two binaries alternating which goes first, and the two
//     are set side by side (before/after figures of one run);
//
//  2. a backfill of every version to the two missing formats (cold cache)
//     against that proof, and a check with the warm cache against a check
//     with a cold one; with -against OLD, OLD's backfill runs in the same
//     rounds (first in odd rounds, last in even ones), and the two
//     backfills' per-round ratios of wall and CPU time are printed;
//
//  3. the peak RSS of a backfill of -rss-rows-per-version repositories of 20
//     and 40 versions; with -against OLD, OLD's backfills run in the same
//     rounds, the two binaries alternating which goes first, and each
//     binary's ratio is printed, per round and of the medians;
//
//  4. the conversion of the wide repository to 0.4 and to 1.1 against
//     DuckDB's COPY FROM DATABASE of the same catalog into a fresh file.
//     Both are timed as whole processes (the COPY runs in a child of this
//     program, "benchproof copy-database SRC DST": start, DuckDB, ATTACH,
//     COPY, DETACH), wall and CPU time; the COPY's statements alone, timed
//     inside a running process as this figure was first measured, are
//     printed beside them;
//
//  5. a long history (-long-versions, 200 versions of 2,000 rows): the proof
//     of its newest version, and a backfill of its last -long-last versions
//     against it (with -long-whole, the whole backfill too), with -against
//     OLD both binaries in the same rounds.
//
//     go run ./scripts/benchproof -bin bin/fdl-formats -dir /tmp/fdl-bench
//     go run ./scripts/benchproof -bin NEW -against OLD -only proof -rounds 5
//     go run ./scripts/benchproof -bin NEW -against OLD -only rss -rounds 5
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

func main() {
	if len(os.Args) == 4 && os.Args[1] == copyDatabaseCmd {
		if err := copyDatabase(context.Background(), os.Args[2], os.Args[3]); err != nil {
			fail(err)
		}
		return
	}
	if copyVersionsMain(os.Args) {
		return
	}
	bin := flag.String("bin", "bin/fdl-formats", "the fdl-formats binary to measure")
	against := flag.String("against", "", "a second fdl-formats binary whose proof (figure 1) and backfills (figures 2 and 3) run in the same rounds, alternating with -bin's")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "fdl-bench"), "folder of the generated repositories (kept between runs)")
	rounds := flag.Int("rounds", 3, "rounds per figure (medians are printed)")
	versions := flag.Int("versions", 20, "versions of the history repository")
	rows := flag.Int("rows-per-version", 500_000, "rows each version of the history repository appends")
	rssRows := flag.Int("rss-rows-per-version", 100_000, "rows per version of the two repositories of the RSS figure")
	jobs := flag.Int("jobs", 2, "backfill and check --jobs")
	wideTables := flag.Int("wide-tables", 300, "tables of the wide repository")
	longVersions := flag.Int("long-versions", 200, "versions of the long-history repository (figure 5)")
	longRows := flag.Int("long-rows-per-version", 2_000, "rows each version of the long-history repository appends")
	longDeleteEvery := flag.Int("long-delete-every", 5, "every this many versions of the long history also delete (negative: an append-only history)")
	longLast := flag.Int("long-last", 10, "figure 5 backfills the last this many versions of the long history")
	longWhole := flag.Bool("long-whole", false, "figure 5 also backfills the whole long history (minutes per round)")
	only := flag.String("only", "proof,backfill,rss,wide,long,scheduled", "figures to measure")
	flag.Parse()
	b := &bench{bin: mustAbs(*bin), dir: mustAbs(*dir), jobs: *jobs}
	if *against != "" {
		b.against = mustAbs(*against)
		if b.against == b.bin {
			// Rounds are kept by binary: give an A/A run a copy.
			fail(fmt.Errorf("-against names -bin itself (%s): copy the binary to run it against itself", b.bin))
		}
	}
	if b.against != "" {
		// Peak RSS counts the binary's own file pages, and a binary fresh
		// from go build maps about 10 MB more of them than the same bytes
		// written by a copy (the page cache's state, not the code): both
		// binaries run from copies made the same way, now.
		var err error
		if b.bin, b.against, err = sameWayCopies(b.dir, b.bin, b.against); err != nil {
			fail(err)
		}
	}
	ctx := context.Background()
	fmt.Printf("machine: %d cores, load average %s; DuckDB via duckdb-go; binary %s\n", runtime.NumCPU(), loadavg(), *bin)
	if *against != "" {
		fmt.Printf("figures 1, 2 (the backfill) and 3 against binary %s, alternating\n", *against)
	}
	want := func(s string) bool { return slices.Contains(strings.Split(*only, ","), s) }
	if want("proof") || want("backfill") || want("scheduled") {
		name := fmt.Sprintf("history-%d", *versions)
		if *rows != 500_000 {
			name = fmt.Sprintf("history-%d-%d", *versions, *rows)
		}
		hist := b.repo(ctx, name, func(d string) error {
			_, err := lakegen.History(ctx, d, lakegen.HistoryOptions{Versions: *versions, RowsPerVersion: *rows})
			return err
		})
		if want("proof") || want("backfill") {
			b.proofAndBackfill(ctx, hist, *rounds, want("backfill"))
		}
		if want("scheduled") {
			b.scheduled(ctx, hist, *versions, *rounds)
		}
	}
	if want("rss") {
		b.rss(ctx, *rssRows, *rounds)
	}
	if want("long") {
		b.longHistory(ctx, *longVersions, *longRows, *longDeleteEvery, *longLast, *rounds, *longWhole)
	}
	if want("wide") {
		d := b.repo(ctx, fmt.Sprintf("wide-%d", *wideTables), func(d string) error {
			_, err := lakegen.Wide(ctx, d, lakegen.WideOptions{Tables: *wideTables})
			return err
		})
		b.wide(ctx, d, *rounds)
	}
}

// rss prints figure 3: in each round, each binary backfills the 20- and
// the 40-version repository (fresh cache, no catalog written), binaries in
// the order of proofOrder.
func (b *bench) rss(ctx context.Context, rows, rounds int) {
	var repos []string
	for _, v := range []int{20, 40} {
		repos = append(repos, b.repo(ctx, fmt.Sprintf("history-%d-%d", v, rows), func(d string) error {
			_, err := lakegen.History(ctx, d, lakegen.HistoryOptions{Versions: v, RowsPerVersion: rows})
			return err
		}))
	}
	bins := b.bins()
	type runs struct{ peaks, anons, secs, cpus [2][]float64 }
	byBin := perBin[runs](bins)
	for i := 0; i < rounds; i++ {
		for _, bin := range proofOrder(i, bins) {
			r := byBin[bin]
			for j, d := range repos {
				clean(d)
				s, p, cpu := runBinPeak(bin, "backfill", "--jobs", fmt.Sprint(b.jobs), "--cache", b.freshCache(), d)
				r.peaks[j], r.anons[j], r.secs[j], r.cpus[j] = append(r.peaks[j], p.hwm/1024), append(r.anons[j], p.anon/1024), append(r.secs[j], s), append(r.cpus[j], cpu)
			}
			fmt.Printf("   round %d %s: 20 versions %.1f MB, 40 versions %.1f MB, ratio %.3f (anonymous %.1f MB, %.1f MB, ratio %.3f; %.1f s, %.1f s; CPU %.1f s, %.1f s; load %s)\n", i+1, filepath.Base(bin),
				r.peaks[0][i], r.peaks[1][i], r.peaks[1][i]/r.peaks[0][i], r.anons[0][i], r.anons[1][i], r.anons[1][i]/r.anons[0][i], r.secs[0][i], r.secs[1][i], r.cpus[0][i], r.cpus[1][i], loadavg())
		}
	}
	for _, bin := range bins {
		r := byBin[bin]
		name := ""
		if b.against != "" {
			name = " (" + filepath.Base(bin) + ")"
		}
		for j, v := range []int{20, 40} {
			fmt.Printf("3. backfill of %d versions (%d rows each) to 0.4 and 1.1%s: %.1f s, CPU %.1f s, peak RSS %.0f MB, anonymous %.0f MB (medians of %d)\n", v, rows, name, median(r.secs[j]), median(r.cpus[j]), median(r.peaks[j]), median(r.anons[j]), rounds)
		}
		var perRound []float64
		for i := range r.peaks[0] {
			perRound = append(perRound, r.peaks[1][i]/r.peaks[0][i])
		}
		fmt.Printf("3. peak RSS 40 versions / 20 versions%s: %.2f (per round: median %.2f, max %.2f; target within 10%%); anonymous %.2f\n", name, median(r.peaks[1])/median(r.peaks[0]), median(perRound), slices.Max(perRound), median(r.anons[1])/median(r.anons[0]))
	}
}

type bench struct {
	bin, dir string
	against  string // a second binary for figures 1, 3 and 5, or ""
	jobs     int
}

// perBin is a fresh T for each binary.
func perBin[T any](bins []string) map[string]*T {
	out := map[string]*T{}
	for _, bin := range bins {
		out[bin] = new(T)
	}
	return out
}

// bins are the binaries measured: -bin, then -against's.
func (b *bench) bins() []string {
	if b.against == "" {
		return []string{b.bin}
	}
	return []string{b.bin, b.against}
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		fail(err)
	}
	return a
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchproof:", err)
	os.Exit(1)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// repo generates a repository once (a .complete marker says it is whole).
func (b *bench) repo(ctx context.Context, name string, gen func(string) error) string {
	d := filepath.Join(b.dir, name)
	if _, err := os.Stat(filepath.Join(d, ".complete")); err == nil {
		return d
	}
	os.RemoveAll(d)
	start := time.Now()
	if err := gen(d); err != nil {
		fail(fmt.Errorf("generate %s: %w", name, err))
	}
	if err := os.WriteFile(filepath.Join(d, ".complete"), nil, 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("generated %s in %s\n", d, time.Since(start).Round(time.Second))
	return d
}

// run runs the binary and returns its wall time (s), peak RSS (KB) and CPU
// time (user + system, s). Exit codes are checked: every run here must
// succeed.
//
// The peak is the child's VmHWM, read from /proc every 50 ms while it runs,
// not the rusage Maxrss of wait4: Linux starts a child's Maxrss at the peak
// RSS of the process that spawned it (exec keeps the high-water mark of the
// address space it replaces, and Go spawns with vfork semantics), so after
// this program generated a repository with DuckDB in-process every child
// reported this program's peak (e.g. 562 MB for a backfill whose own peak
// was 155 MB). Where /proc is missing, Maxrss is the fallback.
func (b *bench) run(args ...string) (wall, kb, cpu float64) {
	return runBin(b.bin, args...)
}

// runBin is run with another binary.
func runBin(bin string, args ...string) (wall, kb, cpu float64) {
	wall, p, cpu := runBinPeak(bin, args...)
	return wall, p.hwm, cpu
}

// runBinPeak is runBin, with the anonymous part of the peak too.
func runBinPeak(bin string, args ...string) (wall float64, p peak, cpu float64) {
	cmd := exec.Command(bin, append([]string{"--log-level", "error"}, args...)...)
	cmd.Stderr = os.Stderr
	var stdout strings.Builder
	cmd.Stdout = &stdout
	start := time.Now()
	p, err := peakMemory(cmd)
	wall = time.Since(start).Seconds()
	if err != nil {
		fail(fmt.Errorf("%s %s: %w\n%s", bin, strings.Join(args, " "), err, stdout.String()))
	}
	return wall, p, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
}

// selfCPU is this process's CPU time so far (user + system, s), which
// counts DuckDB's worker threads of an in-process scan.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// proofOrder is the order the binaries' proofs run in round i: the first
// binary first in even rounds, the other first in odd ones, so that neither
// always runs right after the scan (page cache, load) or right after the
// other.
func proofOrder(round int, bins []string) []string {
	if round%2 == 0 {
		return bins
	}
	out := slices.Clone(bins)
	slices.Reverse(out)
	return out
}

// peakRSS runs cmd to its end and returns its peak RSS in KB (see run).
func peakRSS(cmd *exec.Cmd) (float64, error) {
	p, err := peakMemory(cmd)
	return p.hwm, err
}

// peak is a child's peak memory in KB: hwm, its peak RSS (VmHWM), and anon,
// the most anonymous memory (RssAnon) seen at the polls, 10 ms apart. The
// RSS counts the binary's own file pages, and how many of them a run maps
// differed by 5-15 MB between two builds of the same code (docs/compare.md,
// "Proof benchmarks"); the anonymous part does not, so peaks of two
// binaries compare by it.
type peak struct{ hwm, anon float64 }

// peakMemory runs cmd to its end and returns its peak memory (see run).
func peakMemory(cmd *exec.Cmd) (peak, error) {
	if err := cmd.Start(); err != nil {
		return peak{}, err
	}
	done := make(chan struct{})
	out := make(chan peak, 1)
	go func() {
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		var p peak
		for {
			if v, ok := statusKB(status); ok {
				p.hwm, p.anon = max(p.hwm, v["VmHWM"]), max(p.anon, v["RssAnon"])
			}
			select {
			case <-done:
				out <- p
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	p := <-out
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && p.hwm == 0 {
		p.hwm = float64(ru.Maxrss)
	}
	return p, err
}

// statusKB reads the KB values of a /proc/PID/status file (VmHWM, RssAnon,
// ...) by name.
func statusKB(status string) (map[string]float64, bool) {
	b, err := os.ReadFile(status)
	if err != nil {
		return nil, false
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasSuffix(rest, " kB") {
			continue
		}
		var kb float64
		if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb); err == nil {
			out[name] = kb
		}
	}
	return out, len(out) > 0
}

func (b *bench) freshCache() string {
	d, err := os.MkdirTemp(b.dir, "cache-")
	if err != nil {
		fail(err)
	}
	return d
}

// clean removes what a backfill wrote, so that the next one starts over.
func clean(repo string) {
	cats, _ := filepath.Glob(filepath.Join(repo, "versions", "*", "catalogs"))
	for _, c := range cats {
		os.RemoveAll(c)
	}
	caches, _ := filepath.Glob(filepath.Join(filepath.Dir(repo), "cache-*"))
	for _, c := range caches {
		os.RemoveAll(c)
	}
}

func newest(repo string) string {
	cats, _ := filepath.Glob(filepath.Join(repo, "versions", "*", "ducklake.duckdb"))
	if len(cats) == 0 {
		fail(fmt.Errorf("no version in %s", repo))
	}
	slices.Sort(cats)
	return cats[len(cats)-1]
}

// dataFiles lists the repository's Parquet data files (not delete files).
func dataFiles(repo string) []string {
	var out []string
	_ = filepath.Walk(filepath.Join(repo, "data"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.HasSuffix(p, "-delete.parquet") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// sqlTime times one DuckDB statement in a fresh in-memory database.
func sqlTime(ctx context.Context, stmts ...string) float64 {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		fail(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	start := time.Now()
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			fail(fmt.Errorf("%s: %w", q, err))
		}
	}
	return time.Since(start).Seconds()
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (b *bench) proofAndBackfill(ctx context.Context, repo string, rounds int, backfill bool) {
	data := filepath.Join(repo, "data")
	src := newest(repo)
	conv := filepath.Join(b.dir, "newest-1.1.duckdb")
	os.Remove(conv)
	b.run("convert", "--to", "1.1", "--output", conv, src)
	bins := b.bins()
	files := dataFiles(repo)
	q := make([]string, len(files))
	for i, f := range files {
		q[i] = quote(f)
	}
	scanSQL := "CREATE TEMP TABLE r AS SELECT count(*), sum(hash(t)) FROM read_parquet([" + strings.Join(q, ", ") + "]) t"
	var scan, scanCPU, proof, plan, bf, bfCPU, floor, floorCPU, checkCold, checkWarm, bfRSS, againstBf, againstBfCPU []float64
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	proofs, proofsCPU := map[string][]float64{}, map[string][]float64{}
	for i := 0; i < rounds; i++ {
		c0 := selfCPU()
		scan = append(scan, sqlTime(ctx, scanSQL))
		scanCPU = append(scanCPU, selfCPU()-c0)
		for _, bin := range proofOrder(i, bins) {
			s, _, c := runBin(bin, "compare", "--no-cache", "--data", data, src, conv)
			proofs[bin], proofsCPU[bin] = append(proofs[bin], s), append(proofsCPU[bin], c)
		}
		proof = proofs[b.bin]
		line := fmt.Sprintf("  round %d: scan %.2f s (CPU %.2f s), proof %.2f s (CPU %.2f s)", i+1, scan[i], scanCPU[i], proof[i], proofsCPU[b.bin][i])
		if b.against != "" {
			line += fmt.Sprintf(", against %.2f s (CPU %.2f s)", proofs[b.against][i], proofsCPU[b.against][i])
		}
		if !backfill {
			fmt.Printf("%s; load %s\n", line, loadavg())
			continue
		}
		// With -against, its backfill runs in the same round, first in
		// odd rounds and last in even ones (proofOrder's alternation), so
		// that -bin's catalogs and cache are the ones the checks read.
		againstBackfill := func() {
			if b.against == "" {
				return
			}
			clean(repo)
			s, _, c := runBin(b.against, "backfill", "--jobs", fmt.Sprint(b.jobs), "--cache", b.freshCache(), repo)
			againstBf, againstBfCPU = append(againstBf, s), append(againstBfCPU, c)
		}
		if i%2 == 1 {
			againstBackfill()
		}
		clean(repo)
		s, _, _ := b.run("plan", "--jobs", fmt.Sprint(b.jobs), repo)
		plan = append(plan, s)
		cache := b.freshCache()
		s, kb, c := b.run("backfill", "--jobs", fmt.Sprint(b.jobs), "--cache", cache, repo)
		bf, bfRSS, bfCPU = append(bf, s), append(bfRSS, kb/1024), append(bfCPU, c)
		w, c := processTime(exec.Command(self, copyVersionsCmd, repo, filepath.Join(b.dir, "floor-copies"), fmt.Sprint(b.jobs)))
		floor, floorCPU = append(floor, w), append(floorCPU, c)
		s, _, _ = b.run("check", "--jobs", fmt.Sprint(b.jobs), "--cache", b.freshCache(), repo)
		checkCold = append(checkCold, s)
		s, _, _ = b.run("check", "--jobs", fmt.Sprint(b.jobs), "--cache", cache, repo)
		checkWarm = append(checkWarm, s)
		if i%2 == 0 {
			againstBackfill()
		}
		if b.against != "" {
			line += fmt.Sprintf(", against's backfill %.1f s (CPU %.1f s)", againstBf[i], againstBfCPU[i])
		}
		fmt.Printf("%s, plan %.1f s, backfill %.1f s (CPU %.1f s, %.0f MB), floor %.1f s (CPU %.1f s), check cold %.1f s, warm %.1f s; load %s\n",
			line, plan[i], bf[i], bfCPU[i], bfRSS[i], floor[i], floorCPU[i], checkCold[i], checkWarm[i], loadavg())
	}
	fmt.Printf("1. proof of the newest version (%d data files): %.1f s (CPU %.2f s); plain count(*), sum(hash(t)) scan: %.2f s (CPU %.2f s); ratio %.1f (CPU %.1f) (target <= 2)\n",
		len(files), median(proof), median(proofsCPU[b.bin]), median(scan), median(scanCPU), ratio(proof, scan), ratio(proofsCPU[b.bin], scanCPU))
	if b.against != "" {
		o, oc := proofs[b.against], proofsCPU[b.against]
		fmt.Printf("1. the same with %s: %.1f s (CPU %.2f s); ratio %.1f (CPU %.1f); this binary / that one, per round: wall %.2f, CPU %.2f\n",
			filepath.Base(b.against), median(o), median(oc), ratio(o, scan), ratio(oc, scanCPU), ratio(proof, o), ratio(proofsCPU[b.bin], oc))
	}
	if backfill {
		fmt.Printf("2. backfill of every version to 0.4 and 1.1 (cold cache, --jobs %d): %.1f s, %.0f MB; / proof: %.2f (target <= 1.5)\n",
			b.jobs, median(bf), median(bfRSS), ratio(bf, proof))
		fmt.Printf("2. floor (DuckDB alone: every version's catalog copied %d times by COPY FROM DATABASE and read back whole, then one hashed scan of the data; --jobs %d): %.1f s (CPU %.1f s); floor / proof: %.2f; backfill / floor: %.2f (CPU %.2f)\n",
			outputsPerVersion, b.jobs, median(floor), median(floorCPU), ratio(floor, proof), ratio(bf, floor), ratio(bfCPU, floorCPU))
		if b.against != "" {
			fmt.Printf("2. the backfill with %s: %.1f s (CPU %.1f s); / its proof: %.2f; / floor: %.2f (CPU %.2f); this binary / that one, per round: wall %.2f, CPU %.2f\n",
				filepath.Base(b.against), median(againstBf), median(againstBfCPU), ratio(againstBf, proofs[b.against]), ratio(againstBf, floor), ratio(againstBfCPU, floorCPU), ratio(bf, againstBf), ratio(bfCPU, againstBfCPU))
		}
		fmt.Printf("2. plan of the same repository (every cell missing, each version's checked in one dry-run conversion pass): %.1f s; / proof: %.2f\n",
			median(plan), ratio(plan, proof))
		fmt.Printf("2. check, cold cache: %.1f s; warm cache (after the backfill): %.1f s; warm / cold check: %.2f, warm check / cold backfill: %.2f (target <= 0.2)\n",
			median(checkCold), median(checkWarm), ratio(checkWarm, checkCold), ratio(checkWarm, bf))
	}
}

func (b *bench) wide(ctx context.Context, repo string, rounds int) {
	src := newest(repo)
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	var stmts, copyWall, copyCPU []float64
	wall := map[string][]float64{}
	cpu := map[string][]float64{}
	targets := []string{"0.4", "1.1"}
	for i := 0; i < rounds; i++ {
		dst := filepath.Join(b.dir, "wide-copy.duckdb")
		os.Remove(dst)
		stmts = append(stmts, sqlTime(ctx, copyStatements(src, dst)...))
		os.Remove(dst)
		w, c := processTime(exec.Command(self, copyDatabaseCmd, src, dst))
		copyWall, copyCPU = append(copyWall, w), append(copyCPU, c)
		for _, to := range targets {
			out := filepath.Join(b.dir, "wide-"+to+".duckdb")
			os.Remove(out)
			w, c := processTime(exec.Command(b.bin, "--log-level", "error", "convert", "--to", to, "--output", out, src))
			wall[to], cpu[to] = append(wall[to], w), append(cpu[to], c)
		}
		fmt.Printf("  round %d: COPY process %.3f s (CPU %.3f s, statements %.3f s); convert to 0.4 %.3f s (CPU %.3f s), to 1.1 %.3f s (CPU %.3f s); load %s\n",
			i+1, copyWall[i], copyCPU[i], stmts[i], wall["0.4"][i], cpu["0.4"][i], wall["1.1"][i], cpu["1.1"][i], loadavg())
	}
	fmt.Printf("4. wide catalog %s, whole processes: COPY FROM DATABASE %.3f s (CPU %.3f s); convert to 0.4 %.3f s (CPU %.3f s), to 1.1 %.3f s (CPU %.3f s); ratio %.2f, %.2f (CPU %.2f, %.2f) (target <= 2)\n",
		filepath.Base(repo), median(copyWall), median(copyCPU), median(wall["0.4"]), median(cpu["0.4"]), median(wall["1.1"]), median(cpu["1.1"]),
		ratio(wall["0.4"], copyWall), ratio(wall["1.1"], copyWall), ratio(cpu["0.4"], copyCPU), ratio(cpu["1.1"], copyCPU))
	fmt.Printf("4. same, against the COPY's statements timed inside a running process (%.3f s; DuckDB and the process already started): ratio %.2f, %.2f\n",
		median(stmts), ratio(wall["0.4"], stmts), ratio(wall["1.1"], stmts))
}

// copyDatabaseCmd is the hidden first argument that makes this program the
// COPY FROM DATABASE side of figure 4, as a process of its own.
const copyDatabaseCmd = "copy-database"

func copyStatements(src, dst string) []string {
	return []string{"ATTACH " + quote(src) + " AS src (READ_ONLY)", "ATTACH " + quote(dst) + " AS dst",
		"COPY FROM DATABASE src TO dst", "DETACH dst"}
}

// copyDatabase copies the catalog src into a new DuckDB file dst, as a user
// with DuckDB alone would.
func copyDatabase(ctx context.Context, src, dst string) error {
	return inDuckDB(ctx, func(conn *sql.Conn) error { return execOn(ctx, conn, copyStatements(src, dst)...) })
}

// inDuckDB runs fn on a connection of a fresh in-memory DuckDB.
func inDuckDB(ctx context.Context, fn func(*sql.Conn) error) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(conn)
}

// execOn runs statements one by one, naming the one that fails.
func execOn(ctx context.Context, conn *sql.Conn, stmts ...string) error {
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// processTime runs cmd to its end and returns its wall time and CPU time
// (user + system, from wait4), in seconds. Every run here must succeed.
func processTime(cmd *exec.Cmd) (wall, cpu float64) {
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err))
	}
	wall = time.Since(start).Seconds()
	return wall, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// ratio is the median of per-round ratios (each round's pair ran together).
func ratio(a, b []float64) float64 {
	r := make([]float64, 0, len(a))
	for i := range a {
		if i < len(b) && b[i] > 0 {
			r = append(r, a[i]/b[i])
		}
	}
	return median(r)
}

// sameWayCopies copies the binaries a and b into dir/bin/ (a-<name> and
// b-<name>), both the same way at the same moment, and returns the copies.
func sameWayCopies(dir, a, b string) (string, string, error) {
	bins := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bins, 0o755); err != nil {
		return "", "", err
	}
	copyTo := func(src, prefix string) (string, error) {
		dst := filepath.Join(bins, prefix+filepath.Base(src))
		in, err := os.Open(src)
		if err != nil {
			return "", fmt.Errorf("copy binary %s: %w", src, err)
		}
		defer in.Close()
		tmp := dst + ".tmp"
		out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
		if err != nil {
			return "", fmt.Errorf("copy binary %s: %w", src, err)
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return "", fmt.Errorf("copy binary %s to %s: %w", src, tmp, err)
		}
		if err := out.Close(); err != nil {
			return "", fmt.Errorf("copy binary %s to %s: %w", src, tmp, err)
		}
		return dst, os.Rename(tmp, dst)
	}
	ca, err := copyTo(a, "a-")
	if err != nil {
		return "", "", err
	}
	cb, err := copyTo(b, "b-")
	return ca, cb, err
}
