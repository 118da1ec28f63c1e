package formats

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestChangeKindsChains: in the registry, every kind a format parses
// becomes, in every older format, a kind that format parses or "" (so in
// the oldest one too), and a conversion up renames nothing (inline_flush,
// which 0.4 writers write, is read by 0.4 readers as the flushed_inlined
// that 0.3 writes: an alias, not a rename up).
func TestChangeKindsChains(t *testing.T) {
	if err := All.validateChangeKinds(); err != nil {
		t.Fatal(err)
	}
	for i, newer := range All {
		for _, older := range All[:i] {
			if up := ChangeKindRenames(older, newer); len(up) > 0 {
				t.Errorf("%s -> %s renames %v: a conversion up must rename nothing", older, newer, up)
			}
			for _, kind := range newer.ChangeTokens {
				if as := older.ChangeKindAs(kind); as != "" && !older.SupportsChangeToken(as) {
					t.Errorf("%s's %s is %q in %s, which its readers do not parse", newer, kind, as, older)
				}
			}
		}
	}
	if got := ReadChangeKind("inline_flush"); got != "flushed_inlined" || !V0_4.SupportsChangeToken(got) {
		t.Errorf("inline_flush is read as %q, want flushed_inlined", got)
	}
}

// TestChangeKindRenames: the renames each conversion applies, as the
// steps spelled them out before the registry declared them (convert's
// steps 0.4 -> 0.3 and 0.3 -> 0.2), chained across several steps, and
// none where both formats parse the same kinds or going up.
func TestChangeKindRenames(t *testing.T) {
	for _, tc := range []struct {
		from, to *Version
		want     map[string]string
	}{
		{V0_4, V0_3, map[string]string{"inline_flush": "flushed_inlined", "merge_adjacent": "compacted_table", "rewrite_delete": "compacted_table",
			"created_scalar_macro": "", "created_table_macro": "", "dropped_scalar_macro": "", "dropped_table_macro": ""}},
		{V0_3, V0_2, map[string]string{"inlined_insert": "inserted_into_table", "inlined_delete": "deleted_from_table", "flushed_inlined": "compacted_table"}},
		{V1_1, V0_1, map[string]string{"inline_flush": "compacted_table", "merge_adjacent": "compacted_table", "rewrite_delete": "compacted_table",
			"created_scalar_macro": "", "created_table_macro": "", "dropped_scalar_macro": "", "dropped_table_macro": "",
			"inlined_insert": "inserted_into_table", "inlined_delete": "deleted_from_table", "flushed_inlined": "compacted_table"}},
		{V0_4Dev1, V0_3Dev1, map[string]string{"inline_flush": "flushed_inlined", "merge_adjacent": "compacted_table", "rewrite_delete": "compacted_table",
			"created_scalar_macro": "", "created_table_macro": "", "dropped_scalar_macro": "", "dropped_table_macro": ""}},
		{V1_1, V1_0, map[string]string{}},
		{V1_0, V0_4, map[string]string{}},
		{V0_2, V0_1, map[string]string{}},
		{V0_1, V1_1, map[string]string{}},
		{V0_3, V0_4, map[string]string{}},
	} {
		if got := ChangeKindRenames(tc.from, tc.to); !maps.Equal(got, tc.want) {
			t.Errorf("ChangeKindRenames(%s, %s) = %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v          *Version
		kind, want string
	}{
		{V0_3, "inline_flush", "flushed_inlined"},
		{V0_2, "inline_flush", "compacted_table"},
		{V0_3, "created_table_macro", ""},
		{V0_4, "merge_adjacent", "merge_adjacent"},
		{V0_1, "inserted_into_table", "inserted_into_table"},
		{V0_1, "nope", "nope"}, // introduced by no release: kept, for the readers to refuse
		{V0_2, "INLINED_INSERT", "INLINED_INSERT"},
	} {
		if got := tc.v.ChangeKindAs(tc.kind); got != tc.want {
			t.Errorf("%s.ChangeKindAs(%q) = %q, want %q", tc.v, tc.kind, got, tc.want)
		}
	}
	if got := ReadChangeKind("merge_adjacent"); got != "merge_adjacent" {
		t.Errorf("merge_adjacent is read as %q: only an alias is read as another kind", got)
	}
}

// TestValidateChangeKinds: each way a declaration of change kinds can be
// inconsistent is refused, naming the format and the kind.
func TestValidateChangeKinds(t *testing.T) {
	base := []string{"made", "gone", "merged"}
	oldest := func() *Version { return &Version{Name: "0.1", ChangeTokens: base} }
	release := func(tokens []string, kinds ...ChangeKind) *Version {
		return &Version{Name: "0.2", ChangeTokens: tokens, NewChangeKinds: kinds}
	}
	good := []ChangeKind{{Name: "made_fast", Before: "made"}, {Name: "merged2", Before: "merged", Alias: true}, {Name: "macro"}}
	for _, tc := range []struct {
		name string
		vs   Versions
		want string // "" for consistent
	}{
		{"consistent", Versions{oldest(), release(withChangeKinds(base, good), good...)}, ""},
		{"development layout as its release", Versions{oldest(), {Name: "0.2-dev1", Dev: true, Release: "0.2", ChangeTokens: withChangeKinds(base, good)}, release(withChangeKinds(base, good), good...)}, ""},
		{"oldest declares new kinds", Versions{{Name: "0.1", ChangeTokens: withChangeKinds(base, good), NewChangeKinds: good}}, "format 0.1: the oldest release"},
		{"kind not new", Versions{oldest(), release(base, ChangeKind{Name: "made", Before: "gone"})}, "change kind made is not new"},
		{"renamed to a kind the previous release does not parse", Versions{oldest(), release(append(slices.Clone(base), "x"), ChangeKind{Name: "x", Before: "y"})}, "change kind x becomes y, which format 0.1 does not parse"},
		{"renamed to itself", Versions{oldest(), release(append(slices.Clone(base), "x"), ChangeKind{Name: "x", Before: "x"})}, "change kind x becomes x"},
		{"kind without a name", Versions{oldest(), release(append(slices.Clone(base), ""), ChangeKind{Name: "", Before: "made"})}, "format 0.2: change kind 1 has no name"},
		{"alias of nothing", Versions{oldest(), release(append(slices.Clone(base), "x"), ChangeKind{Name: "x", Alias: true})}, "change kind x is an alias of nothing"},
		{"declared twice", Versions{oldest(), release(append(slices.Clone(base), "x", "x"), ChangeKind{Name: "x"}, ChangeKind{Name: "x"})}, "change kind x declared twice"},
		{"new kind not parsed", Versions{oldest(), release(base, ChangeKind{Name: "x"})}, "format 0.2: parses change kinds"},
		{"kind parsed but not declared", Versions{oldest(), release(append(slices.Clone(base), "x"))}, "format 0.2: parses change kinds"},
		// As many kinds as wanted, but one other than the one declared
		// (mutation test, session 24: a check of the count alone held).
		{"another kind parsed in place of the new one", Versions{oldest(), release(append(slices.Clone(base), "y"), ChangeKind{Name: "x"})}, "format 0.2: parses change kinds"},
		{"kind of the previous release no longer parsed (a conversion up would rename)", Versions{oldest(), release([]string{"made", "merged"})}, "format 0.2: parses change kinds"},
		{"development layout declares kinds", Versions{oldest(), {Name: "0.2-dev1", Dev: true, Release: "0.2", ChangeTokens: withChangeKinds(base, good), NewChangeKinds: good}, release(withChangeKinds(base, good), good...)}, "format 0.2-dev1: a development layout"},
		{"development layout parses other kinds", Versions{oldest(), {Name: "0.2-dev1", Dev: true, Release: "0.2", ChangeTokens: base}, release(withChangeKinds(base, good), good...)}, "format 0.2-dev1: a development layout"},
	} {
		err := tc.vs.validateChangeKinds()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want consistent", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
