package formats

import (
	"strings"
	"testing"
)

// TestValueRuleWhyPseudoRules: a pseudo-rule (ColumnOrderTie,
// NameMapParentAfterChild, NameMapDuplicate) says what readers do with it through Why, as a
// declared rule does, so no caller keeps its own list of them (compare's
// readerValues took the unsigned-number text for any rule it missed).
func TestValueRuleWhyPseudoRules(t *testing.T) {
	for _, tc := range []struct {
		rule ValueRule
		want string
	}{
		{ColumnOrderTie, "no tiebreak"},
		{NameMapParentAfterChild, "Parent column N not found"},
		{NameMapDuplicate, "no defined order"},
	} {
		if got := tc.rule.Why(); !strings.Contains(got, tc.want) {
			t.Errorf("%s.%s: Why() = %q, want it to say %q", tc.rule.Table, tc.rule.Column, got, tc.want)
		}
	}
}
