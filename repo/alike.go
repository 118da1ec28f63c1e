package repo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// alike marks a warning that repeats per version in the same words but
// the version's id and its times (a created_at far from its id's time on
// every version of an imported history), per empty or hidden folder
// under versions/, or a version's issue in check's findings that repeats
// per version (IssueWords): text output and the log print the first one
// of a group in full and count the others; --json keeps every one.
type alike struct {
	// group is the kind of warning and whatever else its words depend
	// on but the version ("" for a warning of its own).
	group string
	// version is the id of the version it is about (of the folder, for
	// a folder's warning).
	version string
	// folder marks a warning about a folder under versions/ that is no
	// version (an empty or hidden one): the line counting the others says
	// "folders", not "versions".
	folder bool
}

// The groups of the warnings alike (alike.group).
const (
	alikeCreatedBefore = "created-at-before-id"
	alikeCreatedAfter  = "created-at-after-id"
	alikeVersionFDL    = "version-fdl:" // + the FDL version.json says
	// An empty folder named by a version ID, and one named otherwise.
	alikeEmptyFolder      = "empty-folder"
	alikeEmptyOtherFolder = "empty-folder-not-id"
	alikeHiddenFolder     = "hidden-folder"
	alikeIssue            = "issue:" // + IssueWords
	// A version's folder, or a file or folder in it, linked outside a
	// repository in a folder (layoutLinks).
	alikeLinkedOut = "linked-out"
	// A declared format not written yet (a repository not backfilled:
	// every version's cell), and the oldest-format rule broken in the
	// same words, per format.
	alikeMissing = "missing:"   // + the format
	alikeRule    = "rule-kept:" // + the rule, its format and detail
)

// WarningGroup is a warning of a Matrix as text output prints it: its
// first occurrence, in full, and the versions warned of alike after it.
type WarningGroup struct {
	Detail string
	// More are the ids of the other versions the same warning names, in
	// the order of Warnings (nil for a warning of its own); the names of
	// the other folders, for an empty folder's warning.
	More []string

	folders bool // a warning about folders (MoreAlike's noun)
}

// MoreAlike is the line that counts the group's other versions (or
// folders) and names the first of them; "" for a warning of its own.
func (g WarningGroup) MoreAlike() string {
	return moreAlike(g.More, g.folders)
}

// WarningGroups groups the matrix's warnings that repeat per version in
// the same words but the version and its times, in the order of their
// first occurrence; every other warning is a group of its own.
func (p *Matrix) WarningGroups() []WarningGroup {
	var out []WarningGroup
	for _, g := range groupAlike(len(p.Warnings), func(i int) alike { return p.warningAlike[i] }) {
		out = append(out, WarningGroup{Detail: p.Warnings[g.first], More: g.more, folders: p.warningAlike[g.first].folder})
	}
	return out
}

// FindingGroup is a finding as text output prints it: its first
// occurrence and the versions of the findings alike after it.
type FindingGroup struct {
	Finding
	// More are the ids of the other versions warned of in the same words
	// (a warning of the plan, or a version's issue, that repeats per
	// version), in the order of the findings; nil for a finding of its own. The names of the other
	// folders, for an empty folder's warning.
	More []string
}

// MoreAlike is the line that counts the group's other versions (or
// folders) and names the first of them; "" for a finding of its own.
func (g FindingGroup) MoreAlike() string {
	return moreAlike(g.More, g.alike.folder)
}

// GroupFindings groups the findings that are a plan's warnings, or
// versions' issues, repeated per version in the same words but the
// version and its times, in the order of their first occurrence; every other finding is a group of its
// own.
func GroupFindings(fs []Finding) []FindingGroup {
	var out []FindingGroup
	for _, g := range groupAlike(len(fs), func(i int) alike { return fs[i].alike }) {
		out = append(out, FindingGroup{Finding: fs[g.first], More: g.more})
	}
	return out
}

// alikeGroup is the index of a group's first item and the versions of
// the items alike after it.
type alikeGroup struct {
	first int
	more  []string
}

// groupAlike groups n items by their alike's group (each item without one
// is a group of its own), in the order of their first items.
func groupAlike(n int, at func(i int) alike) []alikeGroup {
	var out []alikeGroup
	index := map[string]int{} // group -> its index in out
	for i := range n {
		a := at(i)
		if a.group == "" {
			out = append(out, alikeGroup{first: i})
			continue
		}
		if j, ok := index[a.group]; ok {
			out[j].more = append(out[j].more, a.version)
			continue
		}
		index[a.group] = len(out)
		out = append(out, alikeGroup{first: i})
	}
	return out
}

// alikeShown is how many of the versions alike MoreAlike names.
const alikeShown = 3

// MoreAlike says in one line how many more versions a warning names in
// the same words, and the first of them: "and 4 more versions alike: A,
// B, C, … (all in --json)"; "" for none.
func MoreAlike(more []string) string {
	return moreAlike(more, false)
}

// moreAlike is MoreAlike, of folders ("and 4 more folders alike: …")
// when folders is set.
func moreAlike(more []string, folders bool) string {
	if len(more) == 0 {
		return ""
	}
	shown := slices.Clone(more[:min(len(more), alikeShown)])
	for i, name := range shown {
		// A folder's name may hold anything (check quotes such a key).
		if strings.ContainsFunc(name, unicode.IsControl) {
			shown[i] = strconv.Quote(name)
		}
	}
	ids := strings.Join(shown, ", ")
	if len(more) > alikeShown {
		ids += ", …"
	}
	noun := "version"
	if folders {
		noun = "folder"
	}
	if len(more) > 1 {
		noun += "s"
	}
	return fmt.Sprintf("and %d more %s alike: %s (all in --json)", len(more), noun, ids)
}

// IssueGroup is a version's issue as backfill prints and logs it: its
// first occurrence, in full, and the versions with the same issue after
// it.
type IssueGroup struct {
	// Version is the id of the version of the first occurrence.
	Version string
	Issue
	// More are the ids of the other versions with an issue of the same
	// problem in the same words but their id (every version's files.json
	// missing), in the order of the plan; nil for an issue of its own.
	More []string
}

// IssueGroups groups the matrix's versions' issues that repeat per
// version in the same words but the version's id, in the order of their
// first occurrence; every other issue is a group of its own.
func (p *Matrix) IssueGroups() []IssueGroup {
	type versionIssue struct {
		version string
		issue   Issue
	}
	var all []versionIssue
	for _, vp := range p.Versions {
		for _, is := range vp.Issues {
			all = append(all, versionIssue{vp.ID, is})
		}
	}
	var out []IssueGroup
	for _, g := range groupAlike(len(all), func(i int) alike { return issueAlike(all[i].version, all[i].issue) }) {
		out = append(out, IssueGroup{Version: all[g.first].version, Issue: all[g.first].issue, More: g.more})
	}
	return out
}

// IssueWords are the words of version's issue but the version's id:
// issues of the same words are alike (every version's files.json
// missing), printed once, then counted. "" for an issue of no version.
func IssueWords(version string, is Issue) string {
	if version == "" {
		return ""
	}
	// The id stands out of the words (a path such as
	// versions/<id>/files.json); nothing else does.
	return string(is.Problem) + "\x00" + strings.ReplaceAll(is.Detail, version, "\x00")
}

// issueAlike is the group of version's issue (IssueWords).
func issueAlike(version string, is Issue) alike {
	words := IssueWords(version, is)
	if words == "" {
		return alike{}
	}
	return alike{group: alikeIssue + words, version: version}
}
