package datapath

import (
	"strings"
	"testing"
)

// FuzzUnder: a data file's path relative to the data path, as a catalog
// or files.json records it. Under never panics, and a path it accepts is
// already clean and holds no character a reader takes otherwise. The
// seeds run with the ordinary tests; `go test ./internal/datapath -run
// '^$' -fuzz '^FuzzUnder$' -fuzztime 10m` runs it for longer.
func FuzzUnder(f *testing.F) {
	for _, s := range []string{"main/t/a.parquet", "name=hello%20world/a.parquet", "x/%2e%2e/y", "a//b", "./a", "a/..", "a?b", "%zz", "%2F", "a/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		clean, why := Under(true, rel)
		if why == "" && (clean != rel || strings.ContainsAny(rel, Unsafe) || !ValidEscapes(rel)) {
			t.Fatalf("Under(%q) = %q", rel, clean)
		}
		if _, why := Under(false, rel); why != ReasonAbsolute {
			t.Fatalf("Under(false, %q): %q", rel, why)
		}
	})
}
