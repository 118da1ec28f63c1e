package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
)

// TestStallTimeout: check of a web repository whose server stops sending a
// frozen catalog half-way exits 4 (unverifiable) within a few multiples of
// --stall-timeout (or $FDL_FORMATS_STALL_TIMEOUT), having tried each
// download again, with an error naming the file; it hung for ever.
func TestStallTimeout(t *testing.T) {
	root := t.TempDir()
	// A lake of one version: its one frozen catalog stalls on each of the
	// three attempts (each costs d and a backoff), and the check has
	// nothing else to download.
	if err := os.Rename(copyRepo(t, "lakes", "01_primitive_types"), filepath.Join(root, "lake")); err != nil {
		t.Fatal(err)
	}
	const d = 300 * time.Millisecond
	// The environment case runs first, alone (t.Setenv); the flag cases,
	// which mostly wait for the stalls, then run side by side, each with
	// its own server and count.
	for _, tc := range []struct {
		name string
		env  string
		args []string
	}{
		{"environment", d.String(), []string{"check"}},
		{"flag", "", []string{"--stall-timeout", d.String(), "check"}},
		{"flag after the command", "", []string{"check", "--stall-timeout=" + d.String()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv(stallTimeoutEnv, tc.env)
			} else {
				t.Parallel()
			}
			var stalls atomic.Int32
			h := webtest.Stall(webtest.Handler(root, webtest.Options{}), func(r *http.Request) bool {
				if r.Method == http.MethodGet && r.Header.Get("Range") == "" && strings.HasSuffix(r.URL.Path, "/ducklake.duckdb") {
					stalls.Add(1)
					return true
				}
				return false
			}, 1000)
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			// A deadline far beyond the timeout: a check that would hang
			// fails the test instead.
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			start := time.Now()
			var out, errOut strings.Builder
			app := newApp()
			app.Writer, app.ErrWriter = &out, &errOut
			err := app.Run(ctx, append(append([]string{"fdl-formats", "--log-level", "error"}, tc.args...), remoteNow, "--no-cache", srv.URL+"/lake"))
			took := time.Since(start)
			code := exitCode(err)
			msg := out.String() + errOut.String()
			if err != nil {
				msg += renderError(err)
			}
			t.Logf("exit %d after %v, %d stalled downloads", code, took, stalls.Load())
			if code != exitIncomparable || ctx.Err() != nil {
				t.Fatalf("exit %d after %v, want %d (unverifiable) before the deadline\n%s", code, took, exitIncomparable, msg)
			}
			if n := stalls.Load(); n < 3 {
				t.Errorf("%d stalled downloads, want each tried 3 times", n)
			}
			// Three attempts and their backoff (0.2s, 0.4s) per catalog.
			if took > 20*time.Second {
				t.Errorf("check took %v with a stall timeout of %v", took, d)
			}
			for _, want := range []string{"ducklake.duckdb", "stopped sending", d.String()} {
				if !strings.Contains(msg, want) {
					t.Errorf("output does not say %q", want)
				}
			}
		})
	}
}
