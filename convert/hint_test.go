package convert

import (
	"strings"
	"testing"
)

// TestRefusedHintNamesNewerFormats: a refusal without an option told the
// user to publish the catalog in a newer format only, also when the target
// was the newest format (reserved-column-names, 1.0 -> 1.1), where there is
// none, and when converting up, where every newer format is reached through
// the step that refused (null-string-default, 0.3 -> 1.0). A downgrade's
// hint names the newer formats; an upgrade's says to keep the source's.
func TestRefusedHintNamesNewerFormats(t *testing.T) {
	for _, tc := range []struct {
		from, to, option string
		want, not        string
	}{
		{from: "1.0", to: "1.1", want: "cannot be carried up from 1.0 to 1.1", not: "newer format only"},
		{from: "0.3", to: "1.0", want: "keep it in its own format, 0.3, and the older formats", not: "newer format only"},
		{from: "0.3", to: "1.1", want: "keep it in its own format, 0.3, and the older formats", not: "newer format only"},
		{from: "1.1", to: "0.4", want: "publish it in a newer format only (1.0, 1.1)"},
		{from: "1.0", to: "0.4", want: "publish it in a newer format only (1.0, 1.1)"},
		{from: "1.1", to: "1.0", want: "publish it in a newer format only (1.1)"},
		{from: "1.0", to: "0.3", option: "--allow-lossy sort-hints", want: "converted anyway with: --allow-lossy sort-hints"},
	} {
		e := &RefusedError{Source: "src.duckdb", From: tc.from, To: tc.to, Findings: []Finding{{Severity: Refuse, Code: "c", Option: tc.option}}}
		got := e.Hint()
		if !strings.Contains(got, tc.want) || (tc.not != "" && strings.Contains(got, tc.not)) {
			t.Errorf("%s -> %s: hint %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}
