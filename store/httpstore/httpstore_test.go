package httpstore_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// serve publishes files (key -> content) under /site/lake/ with Go's file
// server, folder listings on, and returns the repository URL.
func serve(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for k, v := range files {
		p := filepath.Join(root, "lake", filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.StripPrefix("/site/", http.FileServer(http.Dir(root))))
	t.Cleanup(srv.Close)
	return srv.URL + "/site/lake"
}

func TestHTTPStore(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"fdl.json":                       "{}",
		"versions/a/version.json":        "va",
		"versions/a/catalogs/1.0.duckdb": "cat",
		"versions/b c/version.json":      "vb",
		"versionsx":                      "x",
		"data/main/t/f.parquet":          "PAR1",
	}
	st, err := httpstore.New(serve(t, files), nil)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := st.Open(ctx, "versions/a/version.json")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != "va" {
		t.Errorf("Open = %q", got)
	}
	info, err := st.Stat(ctx, "data/main/t/f.parquet")
	if err != nil || info.Size != 4 {
		t.Errorf("Stat = %+v, %v; want size 4", info, err)
	}
	for _, k := range []string{"nope", "versions/a", "versions/a/nope.json"} {
		if _, err := st.Open(ctx, k); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) = %v, want fs.ErrNotExist", k, err)
		}
		if _, err := st.Stat(ctx, k); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(%q) = %v, want fs.ErrNotExist", k, err)
		}
	}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"versions/", []string{"versions/a/catalogs/1.0.duckdb", "versions/a/version.json", "versions/b c/version.json"}},
		{"versions", []string{"versions/a/catalogs/1.0.duckdb", "versions/a/version.json", "versions/b c/version.json", "versionsx"}},
		{"versions/a/v", []string{"versions/a/version.json"}},
		{"nothing/", []string{}},
	} {
		list, err := st.List(ctx, tc.prefix)
		if err != nil {
			t.Fatalf("List(%q): %v", tc.prefix, err)
		}
		var keys []string
		for _, o := range list {
			keys = append(keys, o.Key)
		}
		if !slices.Equal(keys, tc.want) && !(len(keys) == 0 && len(tc.want) == 0) {
			t.Errorf("List(%q) = %q, want %q", tc.prefix, keys, tc.want)
		}
	}
	if err := st.Create(ctx, "new", strings.NewReader("x")); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("Create = %v, want ErrReadOnly", err)
	}
	if _, err := st.Open(ctx, "../up"); !errors.Is(err, store.ErrInvalidKey) {
		t.Errorf("Open(../up) = %v, want ErrInvalidKey", err)
	}
}

func TestNewRejects(t *testing.T) {
	for _, u := range []string{"ftp://h/x", "https://user:pw@h/x", "http:///x"} {
		if _, err := httpstore.New(u, nil); err == nil || strings.Contains(err.Error(), "pw") {
			t.Errorf("New(%q) = %v, want an error without the password", u, err)
		}
	}
}
