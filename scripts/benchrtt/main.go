// Command benchrtt prints the latency figures of docs/remote.md: a warm
// plan (cache restored) of a long history on a web site and in a bucket
// that answer each request -delay late, as a server far away does.
//
// It generates the repository once (lakegen -history, under -dir), serves it
// on 127.0.0.1 from Go's file server (http.FileServer: Last-Modified, no
// ETag) and from a bucket of versitygw (the tests' S3 server, built by the
// tests into the user cache, or $FDL_VERSITYGW), each behind a handler that
// waits -delay before it answers a request (the bucket through a reverse
// proxy), then runs `plan --json` of each binary: once with an empty cache
// (untimed, it fills the cache), then -rounds times with that cache, the
// binaries alternating which goes first, and prints per store and binary
// the median wall time, peak RSS (VmHWM) and requests, and whether every
// plan's report (without "now" and "transfer") is the same.
//
//	go run ./scripts/benchrtt -bin bin/fdl-formats
//	go run ./scripts/benchrtt -bin NEW -against OLD -rounds 3
//	go run ./scripts/benchrtt -bin NEW -against OLD -only web -versions 50
//	go run ./scripts/benchrtt -bin NEW -against OLD -command check -versions 20
//
// -command check times `check --json` instead (cold once, then warm).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
)

func main() {
	bin := flag.String("bin", "", "the fdl-formats binary to time (required)")
	against := flag.String("against", "", "a second binary, timed in the same rounds (the old one)")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "fdl-benchrtt"), "scratch folder: the repository, the caches, the bucket")
	versions := flag.Int("versions", 200, "versions of the history repository")
	rows := flag.Int("rows", 1000, "rows each version appends")
	delay := flag.Duration("delay", 20*time.Millisecond, "how long the server waits before it answers each request")
	rounds := flag.Int("rounds", 3, "warm plans of each binary on each store")
	only := flag.String("only", "web,s3", "stores to time: web, s3 or both")
	logTo := flag.String("log", "", "append each request (method, path, range, Unix ms) to this file")
	reuse := flag.Bool("reuse", false, "keep the caches an earlier run filled (no cold plans; give the same -port, which names the store in the cache)")
	port := flag.Int("port", 0, "serve the web site on 127.0.0.1:PORT and the bucket's front on PORT+1 (0: free ports)")
	flag.StringVar(&command, "command", "plan", "the command timed: plan or check (each with --json)")
	flag.Parse()
	if command != "plan" && command != "check" {
		fail(fmt.Errorf("-command: %q is neither plan nor check", command))
	}
	if *logTo != "" {
		f, err := os.OpenFile(*logTo, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		requestLog = f
	}
	if *bin == "" {
		flag.Usage()
		os.Exit(2)
	}
	bins := []string{abs(*bin)}
	if *against != "" {
		bins = append(bins, abs(*against))
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fail(err)
	}
	repo := filepath.Join(*dir, fmt.Sprintf("history-%d-%d", *versions, *rows))
	if _, err := os.Stat(filepath.Join(repo, "fdl.json")); err != nil {
		os.RemoveAll(repo)
		cmd := exec.Command("go", "run", "./lakegen/cmd/lakegen", "-history", fmt.Sprint(*versions), "-history-rows", fmt.Sprint(*rows), repo)
		cmd.Stdout, cmd.Stderr = nil, os.Stderr
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("lakegen: %w", err))
		}
	}
	files := 0
	_ = filepath.WalkDir(repo, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return nil
	})
	fmt.Printf("repository %s: %d versions of %d rows, %d files; %s per request; %d rounds\n", repo, *versions, *rows, files, *delay, *rounds)
	for _, name := range strings.Split(*only, ",") {
		var (
			url  string
			env  []string
			reqs *atomic.Int64
			stop func()
		)
		switch name {
		case "web":
			url, reqs, stop = serve(http.FileServer(http.Dir(repo)), *delay, *port)
		case "s3":
			url, env, reqs, stop = bucket(*dir, repo, *delay, *port)
		default:
			fail(fmt.Errorf("-only: no store %q (web, s3)", name))
		}
		timeStore(name, url, env, reqs, bins, *dir, *rounds, *reuse)
		stop()
	}
}

// result is one plan's figures.
type result struct {
	wall, cpu, rssMB float64
	requests         int64
	report           string
}

func timeStore(name, url string, env []string, reqs *atomic.Int64, bins []string, dir string, rounds int, reuse bool) {
	caches := make([]string, len(bins))
	for i, b := range bins {
		caches[i] = filepath.Join(dir, fmt.Sprintf("cache-%s-%d", name, i))
		if _, err := os.Stat(caches[i]); err == nil && reuse {
			continue
		}
		os.RemoveAll(caches[i])
		r := plan(b, url, caches[i], env, reqs)
		fmt.Printf("%s: cold %s of %s: %.1f s, %d requests, %.0f MB\n", name, command, b, r.wall, r.requests, r.rssMB)
	}
	results := make([][]result, len(bins))
	for round := range rounds {
		order := make([]int, len(bins))
		for i := range order {
			order[i] = i
		}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			r := plan(bins[i], url, caches[i], env, reqs)
			results[i] = append(results[i], r)
			fmt.Printf("%s: round %d, warm %s of %s: %.1f s (CPU %.1f s), %d requests, %.0f MB\n", name, round+1, command, bins[i], r.wall, r.cpu, r.requests, r.rssMB)
		}
	}
	same := true
	for i, rs := range results {
		for _, r := range rs {
			same = same && r.report == results[0][0].report
		}
		fmt.Printf("%s: %s: median of %d warm %ss: %.1f s (CPU %.1f s), %d requests, %.0f MB peak RSS\n", name, bins[i], len(rs), command,
			median(rs, func(r result) float64 { return r.wall }),
			median(rs, func(r result) float64 { return r.cpu }),
			int64(median(rs, func(r result) float64 { return float64(r.requests) })),
			median(rs, func(r result) float64 { return r.rssMB }))
	}
	fmt.Printf("%s: every %s report the same: %v\n", name, command, same)
	if !same {
		// For a diff: the first report of each binary.
		for i, rs := range results {
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("report-%s-%d.json", name, i)), []byte(rs[0].report), 0o644)
		}
	}
}

// command is the command timed (-command).
var command = "plan"

// plan runs `bin plan --json` (or -command's) of url with cache and
// returns its figures.
func plan(bin, url, cache string, env []string, reqs *atomic.Int64) result {
	cmd := exec.Command(bin, "--log-level", "error", command, "--json", "--cache", cache, url)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	before := reqs.Load()
	start := time.Now()
	hwm, err := peakKB(cmd)
	wall := time.Since(start).Seconds()
	if err != nil {
		// plan and check exit 5 when catalogs are missing: every run
		// here does.
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 5 {
			fail(fmt.Errorf("%s %s %s: %w\n%s%s", bin, command, url, err, out.String(), errOut.String()))
		}
	}
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	return result{wall: wall, cpu: cpu, rssMB: hwm / 1024, requests: reqs.Load() - before, report: report(out.String())}
}

// report is a plan's JSON report without what differs between runs.
func report(s string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return s
	}
	delete(m, "now")
	delete(m, "transfer")
	if p, ok := m["plan"].(map[string]any); ok {
		// check's: its plan's
		delete(p, "now")
		delete(p, "transfer")
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// peakKB runs cmd to its end and returns its peak RSS (VmHWM, polled: a
// child's rusage Maxrss starts at its parent's peak) in KB.
func peakKB(cmd *exec.Cmd) (float64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan struct{})
	out := make(chan float64, 1)
	go func() {
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		var hwm float64
		for {
			if b, err := os.ReadFile(status); err == nil {
				for line := range strings.SplitSeq(string(b), "\n") {
					if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
						var kb float64
						if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb); err == nil {
							hwm = max(hwm, kb)
						}
					}
				}
			}
			select {
			case <-done:
				out <- hwm
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	hwm := <-out
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && hwm == 0 {
		hwm = float64(ru.Maxrss)
	}
	return hwm, err
}

// requestLog, when set (-log), gets a line per request.
var requestLog *os.File

// serve serves h on 127.0.0.1:port (0: a free port), each request answered
// after delay, and counts the requests.
func serve(h http.Handler, delay time.Duration, port int) (string, *atomic.Int64, func()) {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		fail(err)
	}
	var n atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if requestLog != nil {
			fmt.Fprintf(requestLog, "%s %s %s %d\n", r.Method, r.URL.Path, r.Header.Get("Range"), time.Now().UnixMilli())
		}
		time.Sleep(delay)
		h.ServeHTTP(w, r)
	})}
	go srv.Serve(l)
	return "http://" + l.Addr().String(), &n, func() { srv.Close() }
}

// bucket starts versitygw on a folder under dir, uploads repo into a
// bucket and serves the server behind a delaying reverse proxy; it returns
// the s3:// URL and the environment the binaries need.
func bucket(dir, repo string, delay time.Duration, port int) (string, []string, *atomic.Int64, func()) {
	binary, err := s3test.Binary()
	if err != nil {
		fail(err)
	}
	root := filepath.Join(dir, "bucket-root")
	os.RemoveAll(root)
	if err := os.MkdirAll(root, 0o755); err != nil {
		fail(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	addr := l.Addr().String()
	l.Close()
	gw := exec.Command(binary, "--access", s3test.AccessKey, "--secret", s3test.SecretKey, "--region", s3test.Region, "--port", addr, "--quiet", "posix", root)
	if err := gw.Start(); err != nil {
		fail(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			gw.Process.Kill()
			fail(fmt.Errorf("versitygw did not listen on %s", addr))
		}
	}
	endpoint := "http://" + addr
	srv := &s3test.Server{Endpoint: endpoint}
	client := srv.Client()
	ctx := context.Background()
	const name = "lake"
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		fail(err)
	}
	err = srv.UploadDir(ctx, repo, name, "repo")
	if err != nil {
		gw.Process.Kill()
		fail(fmt.Errorf("upload: %w", err))
	}
	target, _ := url.Parse(endpoint)
	if port != 0 {
		port++
	}
	front, reqs, stopFront := serve(httputil.NewSingleHostReverseProxy(target), delay, port)
	var env []string
	for k, v := range s3test.Env(front) {
		env = append(env, k+"="+v)
	}
	return "s3://" + name + "/repo", env, reqs, func() {
		stopFront()
		gw.Process.Kill()
		gw.Wait()
		os.RemoveAll(root)
	}
}

func median(rs []result, f func(result) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		fail(err)
	}
	return a
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchrtt:", err)
	os.Exit(1)
}
