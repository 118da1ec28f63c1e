package repo

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestHiveFolderWarning: DuckDB before 1.5.3 reads a delete file's path as
// Hive partitions, so a repository served from a folder named key=value
// (s3://bucket/dataset=census/) is unreadable to its readers of 0.1-0.4 (and
// 1.0 on 1.5.2) at every version with a delete file; plan and check warn,
// naming the folder and the formats, in a folder or on a web site (whose
// store is wrapped in a byte counter: the first version of the warning
// looked for the site's URL through it and never warned). Before, nothing
// was said.
func TestHiveFolderWarning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		parent  string   // the folder the repository is moved into
		formats []string // --formats
		web     bool     // served over http
		want    string   // a phrase of the warning, "" for none
	}{
		{"plain folder", "plain", nil, false, ""},
		{"key-value folder, 0.4 declared", "dataset=census", nil, false, "key=value folders on its path (dataset=census)"},
		{"key-value folder, 1.0 from 1.5.2", "dataset=census", []string{"1.0"}, false, "1.0 (DuckDB >= 1.5.2)"},
		{"key-value folder, 1.1 only", "dataset=census", []string{"1.1"}, false, ""},
		{"key-value folder on a web site", "dataset=census", []string{"1.0"}, true, "/dataset=census/repo/data/ has key=value folders on its path (dataset=census)"},
		{"plain folder on a web site", "plain", []string{"1.0"}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, root := smallLake(t)
			moved := filepath.Join(t.TempDir(), tc.parent, "repo")
			if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(root, moved); err != nil {
				t.Fatal(err)
			}
			var st store.Store
			st, err := local.New(moved)
			if err != nil {
				t.Fatal(err)
			}
			if tc.web {
				srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(filepath.Dir(moved)))))
				t.Cleanup(srv.Close)
				if st, err = httpstore.New(srv.URL+"/"+tc.parent+"/repo/", srv.Client()); err != nil {
					t.Fatal(err)
				}
			}
			m, err := Plan(ctx, st, Options{Formats: tc.formats, Versions: []string{"1"}, Cache: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range m.Warnings {
				if strings.Contains(w, "Hive partitions") {
					got = append(got, w)
				}
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("warnings %q, want none about key=value folders", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("warnings %q, want one saying %q", got, tc.want)
			}
		})
	}
}

func TestHiveLikeFolders(t *testing.T) {
	for loc, want := range map[string]string{
		"s3://bucket/dataset=census/data/":    "dataset=census",
		"https://a=b.example/x/k=v/j=w/data/": "k=v,j=w",
		"/srv/fdl/data/":                      "",
		"/srv/=x/data/":                       "",
		"C:/fdl/year=2024/data/":              "year=2024",
	} {
		if got := strings.Join(hiveLikeFolders(loc), ","); got != want {
			t.Errorf("hiveLikeFolders(%q) = %q, want %q", loc, got, want)
		}
	}
	limit := goversion.Must(goversion.NewVersion("1.5.3"))
	for c, want := range map[string]bool{">= 1.5.2": true, ">= 1.5.3": false, ">= 1.4.3, < 1.5.0": true, ">= 2.0.0": false, "= 1.5.2": true} {
		if got := admitsBefore(goversion.MustConstraints(goversion.NewConstraint(c)), limit); got != want {
			t.Errorf("admitsBefore(%q) = %v, want %v", c, got, want)
		}
	}
}
