package formats

import (
	"fmt"
	"slices"
)

// ChangeKind is a ducklake_snapshot_changes kind (the part of a
// changes_made entry before ':') that a release's readers parse and the
// previous release's do not. Declared once, here, it gives both how a
// conversion down writes the kind (ChangeKindAs, ChangeKindRenames) and how
// the proof reads it against an older format.
type ChangeKind struct {
	Name string
	// Before is what the previous release calls the same change: a kind
	// its readers parse, or "" when it has no name for it (a conversion
	// down drops the entry).
	Before string
	// Alias: the release's own readers take Name for Before, one change
	// under two names (DuckLake's ParseChangeType maps both to one change
	// type), so a reader of the release does not tell them apart.
	Alias bool
}

// withChangeKinds is the list of kinds a release's readers parse: the
// previous release's, then the new ones in declaration order.
func withChangeKinds(before []string, added []ChangeKind) []string {
	out := slices.Clone(before)
	for _, k := range added {
		out = append(out, k.Name)
	}
	return out
}

// ChangeKindAs is how a catalog converted down to v records a change of
// kind: kind itself where v's readers parse it, else, walking the releases
// from the newest down as the conversion steps do, the Before of the
// release that introduced it, until v's readers parse the result; "" when
// a release on the way has no name for it (the entry is dropped). A kind
// no release introduced is returned as is (v's readers may refuse it).
func (v *Version) ChangeKindAs(kind string) string {
	rel := All.Releases()
	for i := len(rel) - 1; i >= 0 && kind != "" && !v.SupportsChangeToken(kind); i-- {
		if k, ok := rel[i].newChangeKind(kind); ok {
			kind = k.Before
		}
	}
	return kind
}

// ChangeKindRenames are the change kinds from's readers parse and to's do
// not, each mapped to how to records it (ChangeKindAs; "" drops the
// entry). Empty going up: every release parses the kinds of the one before.
func ChangeKindRenames(from, to *Version) map[string]string {
	out := map[string]string{}
	for _, kind := range from.ChangeTokens {
		if !to.SupportsChangeToken(kind) {
			out[kind] = to.ChangeKindAs(kind)
		}
	}
	return out
}

// ReadChangeKind is the kind DuckLake's readers take kind for: the Before
// of a kind declared an Alias (inline_flush is read as flushed_inlined),
// else kind itself. Only readers that parse kind get here, and every
// release after the one that introduced an alias keeps reading it so.
func ReadChangeKind(kind string) string {
	for _, v := range All.Releases() {
		if k, ok := v.newChangeKind(kind); ok && k.Alias {
			return k.Before
		}
	}
	return kind
}

func (v *Version) newChangeKind(name string) (ChangeKind, bool) {
	for _, k := range v.NewChangeKinds {
		if k.Name == name {
			return k, true
		}
	}
	return ChangeKind{}, false
}

// validateChangeKinds checks the change kinds of the releases in vs, oldest
// first: the oldest declares none new; every later one parses exactly the
// kinds of the one before plus those it declares (so a conversion up
// renames nothing), each really new, with a Before the release before
// parses or "" (so every chain down ends in a kind of the oldest or ""),
// none named ""; an Alias names what it is read as. A development layout
// parses its release's kinds and declares none.
func (vs Versions) validateChangeKinds() error {
	var prev *Version
	for _, v := range vs {
		if v.Dev {
			rel := vs.named(v.Release)
			if len(v.NewChangeKinds) > 0 || (rel != nil && !slices.Equal(v.ChangeTokens, rel.ChangeTokens)) {
				return fmt.Errorf("format %s: a development layout parses the change kinds of release %s and declares none", v.Name, v.Release)
			}
			continue
		}
		if prev == nil {
			if len(v.NewChangeKinds) > 0 {
				return fmt.Errorf("format %s: the oldest release has no release before it to name its new change kinds", v.Name)
			}
			prev = v
			continue
		}
		for i, k := range v.NewChangeKinds {
			switch {
			case k.Name == "":
				// A kind "" would make the readers accept an entry ":value",
				// and be taken for a dropped entry (ChangeKindAs's "").
				return fmt.Errorf("format %s: change kind %d has no name", v.Name, i+1)
			case slices.ContainsFunc(v.NewChangeKinds[:i], func(o ChangeKind) bool { return o.Name == k.Name }):
				return fmt.Errorf("format %s: change kind %s declared twice", v.Name, k.Name)
			case prev.SupportsChangeToken(k.Name):
				return fmt.Errorf("format %s: change kind %s is not new: format %s parses it", v.Name, k.Name, prev.Name)
			case k.Before != "" && !prev.SupportsChangeToken(k.Before):
				return fmt.Errorf("format %s: change kind %s becomes %s, which format %s does not parse", v.Name, k.Name, k.Before, prev.Name)
			case k.Alias && k.Before == "":
				return fmt.Errorf("format %s: change kind %s is an alias of nothing", v.Name, k.Name)
			}
		}
		if want := withChangeKinds(prev.ChangeTokens, v.NewChangeKinds); !slices.Equal(v.ChangeTokens, want) {
			return fmt.Errorf("format %s: parses change kinds %v, want format %s's and its new ones: %v", v.Name, v.ChangeTokens, prev.Name, want)
		}
		prev = v
	}
	return nil
}

func (vs Versions) named(name string) *Version {
	for _, v := range vs {
		if v.Name == name {
			return v
		}
	}
	return nil
}
