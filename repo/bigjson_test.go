package repo

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/store"
)

// countingWriter counts the bytes a handler writes.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n.Add(int64(n))
	return n, err
}

// TestHugeJSONFiles: fdl.json, version.json and expired.json have no size
// recorded anywhere, and were read whole into memory before being parsed:
// a 1 GiB expired.json (another file uploaded under its name) took check
// 2.3 GB of memory and 9 s to call invalid, a larger one ended the run
// out of memory, and a web server streaming such a file made it read to
// the end. Each is now read up to maxJSONFile and refused past it
// (invalid, exit 6), naming the file and the limit, in a folder and on a
// web site, where the server is left with most of the file unsent.
func TestHugeJSONFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const huge = 256 << 20 // sparse: no disk space
	_, golden := smallLake(t)
	id := versionIDs(t, golden)[2]
	for _, name := range []string{"fdl.json", "versions/" + id + "/version.json", "versions/" + id + "/expired.json"} {
		for _, web := range []bool{false, true} {
			where := "folder"
			if web {
				where = "web"
			}
			t.Run(filepath.Base(name)+"/"+where, func(t *testing.T) {
				t.Parallel()
				st, root := smallLake(t)
				f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(name)), os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(huge); err != nil {
					t.Fatal(err)
				}
				f.Close()
				var sent atomic.Int64
				var repo store.Store = st
				if web {
					files := http.FileServer(http.Dir(root))
					repo = webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if strings.HasSuffix(r.URL.Path, "/"+filepath.Base(name)) {
							w = countingWriter{w, &sent}
						}
						files.ServeHTTP(w, r)
					}))
				}
				rep, err := Check(ctx, repo, Options{Formats: []string{"1.0"}, Cache: t.TempDir()})
				if !errors.Is(err, fdljson.ErrInvalid) && !errors.Is(err, ErrInvalidVersion) {
					t.Fatalf("Check = %v, want invalid", err)
				}
				said := err.Error()
				if rep != nil {
					said = ""
					for _, f := range rep.Findings {
						said += f.Detail + "\n"
					}
				}
				if !strings.Contains(said, name+": more than 16 MiB") {
					t.Errorf("Check says %q, want it to name %s as more than 16 MiB", said, name)
				}
				if got := sent.Load(); got > 64<<20 {
					t.Errorf("the server sent %d bytes of %s's %d, want the run to stop reading past the limit", got, name, huge)
				}
			})
		}
	}
}
