package datapath

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

func TestUnder(t *testing.T) {
	for _, tc := range []struct {
		relative   bool
		rel        string
		clean, why string
	}{
		{true, "main/t/f.parquet", "main/t/f.parquet", ""},
		{true, "f.parquet", "f.parquet", ""},
		{true, "./main/f.parquet", "", ReasonDot},
		{true, "main/%2e/f.parquet", "", ReasonDot},
		{false, "main/t/f.parquet", "", ReasonAbsolute},
		{true, "x/../main/t/f.parquet", "", ReasonDotDot},
		{true, "../f.parquet", "", ReasonDotDot},
		{true, "main/..", "", ReasonDotDot},
		{true, "/abs/f.parquet", "", ReasonEmpty},
		{true, "main//f.parquet", "", ReasonEmpty},
		{true, "s3://b/f.parquet", "", ReasonEmpty},
		{true, "main/t/", "", ReasonEmpty},
		{true, "main/t/f.parquet?x", "", ReasonChar},
		{true, "main/t/f.parquet#x", "", ReasonChar},
		{true, `..\..\t\f.parquet`, "", ReasonChar},
		{true, "main/t/name=hello%20world/f.parquet", "main/t/name=hello%20world/f.parquet", ""},
		{true, "main/t/x%zz.parquet", "", ReasonEscape},
		{true, "main/t/100%.parquet", "", ReasonEscape},
		{true, "%2e%2e/%2e%2e/evil/f.parquet", "", ReasonDotDot},
		{true, "main/t/a%2F%2Fb.parquet", "", ReasonEmpty},
		{true, "main/t/f.parquet%3Fx", "", ReasonChar},
		{true, "main/t/a%5Cb.parquet", "", ReasonChar},
	} {
		clean, why := Under(tc.relative, tc.rel)
		if clean != tc.clean || why != tc.why {
			t.Errorf("Under(%t, %q) = %q, %q; want %q, %q", tc.relative, tc.rel, clean, why, tc.clean, tc.why)
		}
	}
}

func TestJoin(t *testing.T) {
	str := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	yes, no := sql.NullBool{Bool: true, Valid: true}, sql.NullBool{Bool: false, Valid: true}
	for _, tc := range []struct {
		name     string
		folders  []Folder
		dir      string
		relative bool
	}{
		{"no folders", nil, "data/", true},
		{"NULL folders add nothing", []Folder{{}, {}}, "data/", true},
		{"relative schema and table", []Folder{{str("main/"), yes}, {str("t/"), yes}}, "data/main/t/", true},
		{"NULL path_is_relative reads as relative", []Folder{{str("main/"), sql.NullBool{}}, {str("t/"), yes}}, "data/main/t/", true},
		{"absolute table replaces", []Folder{{str("main/"), yes}, {str("/elsewhere/t/"), no}}, "/elsewhere/t/", false},
		{"absolute schema, relative table", []Folder{{str("/elsewhere/"), no}, {str("t/"), yes}}, "/elsewhere/t/", false},
	} {
		dir, relative := Join("data/", tc.folders...)
		if dir != tc.dir || relative != tc.relative {
			t.Errorf("%s: Join = %q, %t; want %q, %t", tc.name, dir, relative, tc.dir, tc.relative)
		}
	}
}

// TestHoldsLinks: a link at any depth is found, a folder of plain files
// and folders holds none, and a missing folder holds none.
func TestHoldsLinks(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "plain", "main", "t")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "f.parquet"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(root, "linked", "main", "t")
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(deep, "f.parquet"), filepath.Join(linked, "f.parquet")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{filepath.Join(root, "plain"), false},
		{filepath.Join(root, "linked"), true},
		{root, true},
		{filepath.Join(root, "missing"), false},
	} {
		if got := HoldsLinks(tc.dir); got != tc.want {
			t.Errorf("HoldsLinks(%s) = %t, want %t", tc.dir, got, tc.want)
		}
	}
}
