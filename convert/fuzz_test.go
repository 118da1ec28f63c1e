package convert

import (
	"strings"
	"testing"
)

// The fuzz targets below feed the converter's parsers of catalog values
// (a partial_file_info split list, a snapshot's changes_made) arbitrary
// text: neither may panic. Their seeds run with the ordinary tests (no
// DuckDB); `go test ./convert -run '^$' -fuzz '^FuzzParseSplits$'
// -fuzztime 10m` runs one for longer.

func FuzzParseSplits(f *testing.F) {
	for _, s := range []string{"1:10|3:20", "0:0", "", "1:10|", "-1:10", "9223372036854775808:1", "1:2:3", "partial_max:7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, info string) {
		splits, err := parseSplits(info)
		if err != nil {
			if !strings.Contains(err.Error(), "bad split list") {
				t.Fatalf("parseSplits(%q): %v", info, err)
			}
			return
		}
		m := mergedFile{splits: splits}
		if m.partialMax() < 0 || m.limitAt(forever) < 0 {
			t.Fatalf("parseSplits(%q) = %v", info, splits)
		}
	})
}

// TestParseSplitsErrors: what a split list that does not parse is told
// by (the caller names the data file's id and path).
func TestParseSplitsErrors(t *testing.T) {
	for _, tc := range []struct{ info, want string }{
		{"1:x", `bad split list "1:x"`},
		{"-1:10", `bad split list "-1:10"`},
		{"1:9223372036854775808", `bad split list "1:9223372036854775808": 9223372036854775808 is past int64's maximum`},
		{"2:1|18446744073709551615:3", `bad split list "2:1|18446744073709551615:3": 18446744073709551615 is past int64's maximum`},
		{"18446744073709551616:3", `bad split list "18446744073709551616:3"`},
	} {
		if _, err := parseSplits(tc.info); err == nil || err.Error() != tc.want {
			t.Errorf("parseSplits(%q) = %v, want %s", tc.info, err, tc.want)
		}
	}
}

func FuzzSplitChanges(f *testing.F) {
	for _, s := range []string{`created_table:"main"."t",inserted_into_table:1`, `altered_table:2,dropped_table:3`, `created_schema:"a,""b"`, `"`, ",", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := splitChanges(s)
		if strings.Join(toks, ",") != s {
			t.Fatalf("splitChanges(%q) = %q, which does not join back", s, toks)
		}
		for _, tok := range toks {
			tokenKind(tok)
		}
	})
}
