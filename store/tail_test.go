package store

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestCheckETags(t *testing.T) {
	for _, tc := range []struct {
		head, get string
		same      bool
	}{
		{`"abc"`, `"abc"`, true},
		{`"abc"`, `abc`, true}, // quotes off, as DuckDB 1.5 compares
		{`W/"abc"`, `W/"abc"`, true},
		{"", `"abc"`, true}, // no ETag by the HEAD: DuckDB does not compare
		{`"abc"`, "", true}, // none by the GET
		{`"abc"`, `"abd"`, false},
		{`W/"abc"`, `"abc"`, false}, // weak and strong differ
		{`"abc`, `abc`, false},      // one quote is no pair
	} {
		err := CheckETags("data/f.parquet", tc.head, tc.get)
		if tc.same != (err == nil) {
			t.Errorf("CheckETags(%s, %s) = %v, want same %v", tc.head, tc.get, err, tc.same)
		}
		if err != nil && (!errors.Is(err, ErrETagChanged) || !strings.Contains(err.Error(), "data/f.parquet: ETag "+tc.head+" by its HEAD, "+tc.get+" by its ranged GET")) {
			t.Errorf("CheckETags(%s, %s) = %v, want it to name the key and both ETags", tc.head, tc.get, err)
		}
	}
}

// TestCheckFullETag: a download's ETag is compared as CheckETags compares
// a ranged GET's, and a difference names the download.
func TestCheckFullETag(t *testing.T) {
	if err := CheckFullETag("data/f.parquet", "abc", `"abc"`); err != nil {
		t.Errorf("same ETags: %v", err)
	}
	err := CheckFullETag("data/f.parquet", "abc", "old")
	if !errors.Is(err, ErrETagChanged) || !strings.Contains(err.Error(), "data/f.parquet: ETag abc by its HEAD and ranged GET, old by the GET that downloaded it") {
		t.Errorf("CheckFullETag(abc, old) = %v, want it to name the key, both ETags and the download", err)
	}
}

// TestCheckFullLastModified: without ETags to compare, a download's
// Last-Modified must be the ranged GET's; an answer without one is not
// compared.
func TestCheckFullLastModified(t *testing.T) {
	mod := time.Date(2026, 12, 3, 18, 40, 6, 0, time.UTC)
	for _, tc := range []struct {
		ranged, whole time.Time
		same          bool
	}{
		{mod, mod, true},
		{mod, mod.In(time.FixedZone("CET", 3600)), true}, // the same instant
		{time.Time{}, mod, true},                         // none by the ranged GET
		{mod, time.Time{}, true},                         // none by the download
		{mod, mod.Add(-time.Hour), false},                // an older copy
		{mod, mod.Add(time.Second), false},
	} {
		err := CheckFullLastModified("data/f.parquet", tc.ranged, tc.whole)
		if tc.same != (err == nil) {
			t.Errorf("CheckFullLastModified(%v, %v) = %v, want same %v", tc.ranged, tc.whole, err, tc.same)
		}
		if err != nil && (!errors.Is(err, ErrLastModifiedChanged) || !strings.Contains(err.Error(), "data/f.parquet: Last-Modified "+tc.ranged.UTC().Format(time.RFC3339)+" by its HEAD and ranged GET, "+tc.whole.UTC().Format(time.RFC3339)+" by the GET that downloaded it")) {
			t.Errorf("CheckFullLastModified(%v, %v) = %v, want it to name the key, both times and the download", tc.ranged, tc.whole, err)
		}
	}
}

func TestLastBytes(t *testing.T) {
	body := strings.Repeat("x", 100_000) + "footPAR1"
	for _, tc := range []struct {
		body string
		n    int64
		size int64
		want string // tail, or a phrase of the error
		ok   bool
	}{
		{body, 8, int64(len(body)), "footPAR1", true},
		{body, 4, int64(len(body)), "PAR1", true},
		{"abc", 8, 3, "abc", true},
		{"", 8, 0, "", true},
		{body, 8, int64(len(body)) + 1, "holds 100008 bytes, the object has 100009", false},
		{body, 8, int64(len(body)) - 1, "more than the 100007 bytes", false},
	} {
		// Whole and one byte at a time: the tail is kept across reads.
		for name, r := range map[string]io.Reader{"whole": strings.NewReader(tc.body), "bytewise": iotest.OneByteReader(strings.NewReader(tc.body))} {
			got, err := LastBytes(r, tc.n, tc.size)
			if tc.ok && (err != nil || string(got) != tc.want) {
				t.Errorf("%s LastBytes(%d bytes, %d, %d) = %q, %v; want %q", name, len(tc.body), tc.n, tc.size, got, err, tc.want)
			}
			if !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s LastBytes(%d bytes, %d, %d) = %q, %v; want an error containing %q", name, len(tc.body), tc.n, tc.size, got, err, tc.want)
			}
		}
	}
}
