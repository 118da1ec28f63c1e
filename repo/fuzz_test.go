package repo

import "testing"

// FuzzParseShard: the --shard flag's value. The seeds run with the
// ordinary tests; `go test ./repo -run '^$' -fuzz '^FuzzParseShard$'
// -fuzztime 10m` runs it for longer.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "2/4", " 3 / 4 ", "0/4", "5/4", "1/0", "-1/-1", "1/9223372036854775807", "x/y", "1", "1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.K < 1 || sh.K > sh.N {
			t.Fatalf("ParseShard(%q) = %+v", s, sh)
		}
		if again, err := ParseShard(sh.String()); err != nil || again != sh {
			t.Fatalf("ParseShard(%q) = %+v, written %q, read back %+v, %v", s, sh, sh.String(), again, err)
		}
		sh.holds(s)
	})
}
