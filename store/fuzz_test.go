package store

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"
)

// The fuzz targets below feed what a server sends (a Content-Range
// header, a whole-object answer to a ranged GET) and a repository's
// object keys to their checks: none may panic. Their seeds run with the
// ordinary tests; `go test ./store -run '^$' -fuzz '^FuzzTailRange$'
// -fuzztime 10m` runs one for longer.

func FuzzTailRange(f *testing.F) {
	for _, s := range []string{"bytes 90-99/100", "bytes 0-9/10", "bytes 0-9/*", "bytes 5-4/10", "bytes -1-9/10",
		"bytes 0-9223372036854775807/-9223372036854775808", "bytes 9223372036854775806-9223372036854775807/9223372036854775808", "bytes=0-1/2"} {
		f.Add(s, int64(10), int64(10))
	}
	f.Fuzz(func(t *testing.T, cr string, got, n int64) {
		size, err := TailRange(cr, got, n)
		if err != nil {
			return
		}
		if size != -1 && (size < got || got > n) {
			t.Fatalf("TailRange(%q, %d, %d) = %d", cr, got, n, size)
		}
	})
}

func FuzzLastBytes(f *testing.F) {
	f.Add([]byte("0123456789"), int64(4), int64(10), false)
	f.Add([]byte("0123456789"), int64(40), int64(10), true)
	f.Add([]byte("0123456789"), int64(4), int64(9), true)
	f.Add([]byte(""), int64(1), int64(0), false)
	f.Fuzz(func(t *testing.T, body []byte, n, size int64, oneByte bool) {
		if n < 1 || size < 0 {
			return // the callers ask for a tail, of an object whose size they know
		}
		r := bytes.NewReader(body)
		var rd interface{ Read([]byte) (int, error) } = r
		if oneByte {
			rd = iotest.OneByteReader(r)
		}
		tail, err := LastBytes(rd, n, size)
		if err != nil {
			return
		}
		if int64(len(body)) != size || !bytes.HasSuffix(body, tail) || int64(len(tail)) != min(n, size) {
			t.Fatalf("LastBytes(%d bytes, %d, %d) = %d bytes", len(body), n, size, len(tail))
		}
	})
}

func FuzzValidateKey(f *testing.F) {
	for _, s := range []string{"versions/a/version.json", "", "a//b", "./a", "a/..", "a\\b", "a\x00", "versions/", "/a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if ValidateKey(key) == nil && (strings.HasPrefix(key, "/") || strings.Contains(key, "//") || strings.ContainsAny(key, "\\\x00")) {
			t.Fatalf("ValidateKey(%q) accepted", key)
		}
		ValidatePrefix(key)
	})
}
