package repo

import (
	"reflect"
	"testing"
)

// TestWarningGroups: the warnings of one group (the same words but the
// version and its times) are printed as their first, with the versions of
// the others; a created_at before its id's time and one after it, or
// version.json files of two FDL versions, are groups apart; a warning of
// its own stays as it is, in its place. check's findings group alike.
func TestWarningGroups(t *testing.T) {
	t.Parallel()
	m := &Matrix{}
	m.Warnings = append(m.Warnings, "format 0.4 expires")
	m.warnVersion("versions/v1/version.json", "v1 before", alikeCreatedBefore, "v1")
	m.warnVersion("", "v1 fdl 0.2", alikeVersionFDL+"0.2", "v1")
	m.warnVersion("versions/v2/version.json", "v2 before", alikeCreatedBefore, "v2")
	m.warnVersion("versions/v3/version.json", "v3 after", alikeCreatedAfter, "v3")
	m.warnVersion("", "v3 fdl 0.3", alikeVersionFDL+"0.3", "v3")
	m.warn("data", "data folder")
	m.warnVersion("versions/v4/version.json", "v4 before", alikeCreatedBefore, "v4")
	want := []WarningGroup{
		{Detail: "format 0.4 expires"},
		{Detail: "v1 before", More: []string{"v2", "v4"}},
		{Detail: "v1 fdl 0.2"},
		{Detail: "v3 after"},
		{Detail: "v3 fdl 0.3"},
		{Detail: "data folder"},
	}
	if got := m.WarningGroups(); !reflect.DeepEqual(got, want) {
		t.Errorf("WarningGroups = %+v, want %+v", got, want)
	}
	var details []string
	var more [][]string
	for _, g := range GroupFindings(ruleFindings(m)) {
		details, more = append(details, g.Detail), append(more, g.More)
	}
	if !reflect.DeepEqual(details, []string{"format 0.4 expires", "v1 before", "v1 fdl 0.2", "v3 after", "v3 fdl 0.3", "data folder"}) || !reflect.DeepEqual(more[1], []string{"v2", "v4"}) {
		t.Errorf("GroupFindings: %q, more %q", details, more)
	}
}

func TestMoreAlike(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		more []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, "and 1 more version alike: a (all in --json)"},
		{[]string{"a", "b", "c"}, "and 3 more versions alike: a, b, c (all in --json)"},
		{[]string{"a", "b", "c", "d"}, "and 4 more versions alike: a, b, c, … (all in --json)"},
		{[]string{"a\nb"}, `and 1 more version alike: "a\nb" (all in --json)`},
	} {
		if got := MoreAlike(tc.more); got != tc.want {
			t.Errorf("MoreAlike(%q) = %q, want %q", tc.more, got, tc.want)
		}
	}
	// Empty folders are no versions.
	if got, want := (WarningGroup{More: []string{"a"}, folders: true}).MoreAlike(), "and 1 more folder alike: a (all in --json)"; got != want {
		t.Errorf("a folder's MoreAlike = %q, want %q", got, want)
	}
	if got, want := (FindingGroup{Finding: Finding{alike: alike{folder: true}}, More: []string{"a", "b"}}).MoreAlike(), "and 2 more folders alike: a, b (all in --json)"; got != want {
		t.Errorf("folders' MoreAlike = %q, want %q", got, want)
	}
}

// TestIssueGroups: issues of one problem in the same words but their
// version's id group; other words (another sha256) or another problem
// are groups of their own, in their place.
func TestIssueGroups(t *testing.T) {
	t.Parallel()
	missing := func(id string) Issue {
		return Issue{Problem: ProblemInvalid, Detail: "versions/" + id + "/files.json: missing (named in version.json)"}
	}
	m := &Matrix{Versions: []*VersionPlan{
		{ID: "v1", Issues: []Issue{missing("v1"), {Problem: ProblemMismatch, Detail: "versions/v1/dataset.json: sha256 aa"}}},
		{ID: "v2", Issues: []Issue{{Problem: ProblemMismatch, Detail: "versions/v2/dataset.json: sha256 bb"}, missing("v2")}},
		{ID: "v3", Issues: []Issue{{Problem: ProblemUnreadable, Detail: "versions/v3/files.json: missing (named in version.json)"}}},
		{ID: "v4", Issues: []Issue{missing("v4")}},
	}}
	want := []IssueGroup{
		{Version: "v1", Issue: missing("v1"), More: []string{"v2", "v4"}},
		{Version: "v1", Issue: Issue{Problem: ProblemMismatch, Detail: "versions/v1/dataset.json: sha256 aa"}},
		{Version: "v2", Issue: Issue{Problem: ProblemMismatch, Detail: "versions/v2/dataset.json: sha256 bb"}},
		{Version: "v3", Issue: Issue{Problem: ProblemUnreadable, Detail: "versions/v3/files.json: missing (named in version.json)"}},
	}
	if got := m.IssueGroups(); !reflect.DeepEqual(got, want) {
		t.Errorf("IssueGroups = %+v, want %+v", got, want)
	}
}
