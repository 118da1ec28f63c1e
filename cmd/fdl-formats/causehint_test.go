package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
)

// TestServerCauseHints: a check whose first unverifiable finding (exit 4)
// is the web server's doing, not the file's, says in its Try: line, and in
// check.json's hint, what to change on the server. Each hint said to
// restore a file that is there and whole: a data file the server sends
// encoded (Content-Encoding), a frozen catalog or a data file whose HEAD
// gives another size than its GETs (0, or too few bytes: the ranged read
// of its end then is not the end), a data file the site refuses (403) and
// a data file whose download stalls.
func TestServerCauseHints(t *testing.T) {
	if testing.Short() {
		t.Skip("checks a lake")
	}
	const (
		restore  = "restore the file the first finding names"
		headSize = "the server's HEAD gives a file another size (Content-Length) than its GETs deliver"
	)
	root := backfilledLake(t)
	frozen, _ := filepath.Glob(filepath.Join(root, "lake", "versions", "*", "ducklake.duckdb"))
	data, _ := filepath.Glob(filepath.Join(root, "lake", "data", "*", "*", "*.parquet"))
	if len(frozen) == 0 || len(data) == 0 {
		t.Fatalf("lake without frozen catalogs (%d) or data files (%d)", len(frozen), len(data))
	}
	urlPath := func(file string) string {
		return "/" + filepath.ToSlash(strings.TrimPrefix(file, root+string(filepath.Separator)))
	}
	oneData := urlPath(data[0])
	files := func(opts webtest.Options) http.Handler { return webtest.Handler(root, opts) }
	for _, tc := range []struct {
		name  string
		site  http.Handler
		flags []string
		hint  string // what the Try: line says
	}{
		{"data files sent encoded", files(webtest.Options{Encode: "/data/"}), nil,
			"the web server sends files with a Content-Encoding though none was asked for"},
		{"frozen catalog's HEAD gives another size", files(webtest.Options{HeadLengths: map[string]int64{urlPath(frozen[0]): 0}}), nil, headSize},
		{"a data file's HEAD gives 0 bytes", files(webtest.Options{HeadLengths: map[string]int64{oneData: 0}}), nil, headSize},
		{"a data file's HEAD gives 10 bytes", files(webtest.Options{HeadLengths: map[string]int64{oneData: 10}}), nil, headSize},
		{"a data file refused (403)", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == oneData {
				http.Error(w, "members only", http.StatusForbidden)
				return
			}
			files(webtest.Options{}).ServeHTTP(w, r)
		}), nil, "the web site denies 1 file(s) to a reader without credentials (401 or 403; first: "},
		{"a data file's download stalls", webtest.Stall(files(webtest.Options{}), func(r *http.Request) bool {
			return r.Method == http.MethodGet && r.URL.Path == oneData
		}, 10), []string{"--stall-timeout", "300ms"},
			"the server stopped sending a file half-way (no byte for 300ms; first: http://"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.site)
			t.Cleanup(srv.Close)
			args := append(append([]string{}, tc.flags...), "check", "--json", remoteNow, "--no-cache", srv.URL+"/lake")
			out, errOut, code := runAppStderr(t, args...)
			if code != exitIncomparable {
				t.Fatalf("check: exit %d, want %d\n%s", code, exitIncomparable, errOut)
			}
			var try string
			for _, l := range strings.Split(errOut, "\n") {
				if s, ok := strings.CutPrefix(l, "Try: "); ok {
					try = s
				}
			}
			if !strings.Contains(try, tc.hint) || strings.Contains(try, restore) {
				t.Errorf("Try: %q\nwant it to say %q, and not %q", try, tc.hint, restore)
			}
			var rep struct {
				Hint     string `json:"hint"`
				ExitCode int    `json:"exit_code"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("check.json: %v\n%s", err, out)
			}
			if rep.Hint != try || rep.ExitCode != exitIncomparable {
				t.Errorf("check.json: hint %q, exit_code %d; want the Try: line %q and %d", rep.Hint, rep.ExitCode, try, exitIncomparable)
			}
		})
	}
}
