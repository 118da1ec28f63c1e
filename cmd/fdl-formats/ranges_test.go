package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/repo"
)

// TestWebServerIgnoringRanges: a web server that answers every ranged GET
// with 200 and the whole file (python -m http.server) is read by DuckDB 1.4
// and later, which download the whole file then, and by no DuckDB 1.3, whose
// httpfs fails every such read ("Content-Length from server mismatches
// requested range"). check exited 0 on it for a repository declaring format
// 0.2 (DuckDB >= 1.3.1, < 1.4.0), saying those readers read every version.
// It now exits 3 with a difference for that format naming the server, a
// file and the DuckDB releases, and its readers read no version; without
// 0.2 among the formats checked, or on a server that honours ranges, it
// exits 0; its hint names the server's Range support (it said to restore or
// withdraw a published file). resolve for DuckDB 1.3.2 exits 8 on that
// server instead of printing an ATTACH that fails.
func TestWebServerIgnoringRanges(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("backfills and proves a lake")
	}
	dir := copyRepo(t, "lakes", "01_primitive_types")
	if err := os.WriteFile(filepath.Join(dir, "fdl.json"), []byte(`{"fdl": "0.1", "data_dir": "data/", "formats": [
		{"ducklake": "0.2", "duckdb": ">= 1.3.1, < 1.4.0"}, {"ducklake": "1.0", "duckdb": ">= 1.5.2"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runAppStderr(t, "backfill", remoteNow, dir); code != exitOK {
		t.Fatalf("local backfill: exit %d\n%s", code, errOut)
	}
	root := filepath.Dir(dir)
	lake := "/" + filepath.Base(dir)
	for _, tc := range []struct {
		name    string
		ignore  bool
		formats string
		want    int
	}{
		{"ranges honoured", false, "", exitOK},
		{"ranges ignored", true, "", exitDifferent},
		{"ranges ignored, format 1.0 only (DuckDB 1.5.2 on)", true, "--formats=1.0", exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := webtest.Serve(t, root, webtest.Options{IgnoreRange: tc.ignore}) + lake
			args := []string{"--no-cache", url}
			if tc.formats != "" {
				args = append([]string{tc.formats}, args...)
			}
			rep, errOut, code := checkReport(t, args...)
			if code != tc.want || rep == nil {
				t.Fatalf("check: exit %d, want %d\n%s", code, tc.want, errOut)
			}
			var found []repo.Finding
			for _, f := range rep.Findings {
				if strings.Contains(f.Detail, "ignores Range requests") && f.Kind != repo.KindWarning {
					found = append(found, f)
				}
			}
			if tc.want == exitOK {
				if len(found) != 0 {
					t.Errorf("findings %+v, want none about ranges", found)
				}
				return
			}
			if len(found) != 1 {
				t.Fatalf("findings %+v, want one difference about ranges", rep.Findings)
			}
			// The hint is about the server, not a published file to
			// restore or withdraw (trial 2 F3.9).
			if !strings.Contains(errOut, "Try: the web server ignores Range requests") || strings.Contains(errOut, "restore or withdraw") {
				t.Errorf("hint:\n%s\nwant it about Range requests", errOut)
			}
			f := found[0]
			if f.Kind != repo.KindDifference || f.Format != "0.2" || f.Key == "" {
				t.Errorf("finding %+v, want a difference of format 0.2 naming a file", f)
			}
			for _, want := range []string{url, f.Key, "DuckDB 1.3.1, 1.3.2 (format 0.2", "200 and the whole file", "Content-Length from server mismatches requested range"} {
				if !strings.Contains(f.Detail, want) {
					t.Errorf("detail %q does not say %q", f.Detail, want)
				}
			}
			for _, rr := range rep.Readers {
				if rr.Format == "0.2" && len(rr.Readable) != 0 {
					t.Errorf("readers of 0.2 read %d versions, want none", len(rr.Readable))
				}
				if rr.Format == "1.0" && len(rr.Unreadable) != 0 {
					t.Errorf("readers of 1.0 cannot read %d versions, want all read", len(rr.Unreadable))
				}
			}
		})
	}

	// resolve: DuckDB 1.3.2 is sent to catalogs/0.2.duckdb where ranges
	// work, and told it cannot read where they do not; 1.5.2 reads both.
	for _, tc := range []struct {
		name   string
		ignore bool
		duckdb string
		want   int
		says   string
	}{
		{"ranges honoured, 1.3.2", false, "1.3.2", exitOK, "catalogs/0.2.duckdb"},
		// The catalog named by its URL (it said versions/<id>/...).
		{"ranges ignored, 1.3.2", true, "1.3.2", exitNoCatalog, "Error: DuckDB 1.3.2 cannot read URL/versions/"},
		{"ranges ignored, 1.5.2", true, "1.5.2", exitOK, "ducklake.duckdb"},
	} {
		t.Run("resolve "+tc.name, func(t *testing.T) {
			url := webtest.Serve(t, root, webtest.Options{IgnoreRange: tc.ignore}) + lake
			out, errOut, code := runAppStderr(t, "resolve", "--duckdb", tc.duckdb, url)
			if says := strings.ReplaceAll(tc.says, "URL/", url+"/"); code != tc.want || !strings.Contains(out+errOut, says) {
				t.Fatalf("resolve --duckdb %s: exit %d, want %d saying %q\n%s%s", tc.duckdb, code, tc.want, says, out, errOut)
			}
		})
	}
}
