package formats

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	goversion "github.com/hashicorp/go-version"
)

// Versions is an ordered list of formats, oldest first.
type Versions []*Version

// All lists every known format, oldest first; development layouts sit just
// before the release they converge to.
var All = Versions{V0_1, V0_2, V0_3Dev1, V0_3, V0_4Dev1, V0_4, V1_0, V1_1Dev1, V1_1}

// Releases lists the released formats, oldest first.
func (vs Versions) Releases() Versions {
	var out Versions
	for _, v := range vs {
		if !v.Dev {
			out = append(out, v)
		}
	}
	return out
}

// Names lists the formats' names.
func (vs Versions) Names() []string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return names
}

// Index returns the position of v in vs, or -1.
func (vs Versions) Index(v *Version) int { return slices.Index(vs, v) }

var (
	// ErrUnknownVersion is returned by Lookup and Detect for a format name or
	// version string that is not in the registry.
	ErrUnknownVersion = errors.New("unknown format version")
	// ErrTooNew is returned by Detect for a catalog newer than every known format.
	ErrTooNew = errors.New("catalog format is newer than every known format")
	// ErrInconsistentLayout is returned by Detect when the tables and columns
	// of a catalog do not match the format its version row names.
	ErrInconsistentLayout = errors.New("catalog layout does not match its version")
)

// Lookup finds a format by name ("1.0", "0.4-dev1").
func Lookup(name string) (*Version, error) {
	for _, v := range All {
		if v.Name == name {
			return v, nil
		}
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownVersion, name, strings.Join(All.Names(), ", "))
}

// Validate checks the registry: unique names, releases in version order,
// every column typed, development layouts pointing at a release, row keys
// of the table's columns, change kinds declared consistently
// (validateChangeKinds).
func (vs Versions) Validate() error {
	seen := map[string]bool{}
	var prev *goversion.Version
	for _, v := range vs {
		if seen[v.Name] {
			return fmt.Errorf("format %s declared twice", v.Name)
		}
		seen[v.Name] = true
		if _, err := goversion.NewConstraint(v.DuckDB); err != nil {
			return fmt.Errorf("format %s: duckdb constraint %q: %w", v.Name, v.DuckDB, err)
		}
		if v.DataPathRows == 0 {
			return fmt.Errorf("format %s: no DataPathRows rule", v.Name)
		}
		if v.Dev {
			if _, err := Lookup(v.Release); err != nil {
				return fmt.Errorf("format %s: release: %w", v.Name, err)
			}
			if v.TableStats != (TableStatsReading{}) {
				return fmt.Errorf("format %s: a development layout reads table statistics as its release: TableStats must be zero", v.Name)
			}
		} else {
			if st := v.TableStats; st.CastByEvery == StatsTypesNone || st.CastBySome < st.CastByEvery || (st.FoldMinMax == "" && st.ScanMinMax != "") || (st.FoldStringMinMax == "" && st.ScanStringMinMax != "") {
				return fmt.Errorf("format %s: TableStats %+v: no types cast, CastBySome short of CastByEvery, or ScanMinMax without FoldMinMax (ScanStringMinMax without FoldStringMinMax)", v.Name, st)
			}
			cur, err := goversion.NewVersion(v.Name)
			if err != nil {
				return fmt.Errorf("format %s: %w", v.Name, err)
			}
			if prev != nil && !cur.GreaterThan(prev) {
				return fmt.Errorf("format %s listed after %s", v.Name, prev)
			}
			prev = cur
		}
		if err := v.validateEarlyFixes(); err != nil {
			return err
		}
		tables := map[string]bool{}
		for _, t := range v.Tables {
			if tables[t.Name] {
				return fmt.Errorf("format %s: table %s declared twice", v.Name, t.Name)
			}
			tables[t.Name] = true
			cols := map[string]bool{}
			for _, c := range t.Columns {
				if c.Type == "" || cols[c.Name] {
					return fmt.Errorf("format %s: column %s.%s untyped or declared twice", v.Name, t.Name, c.Name)
				}
				cols[c.Name] = true
			}
			// Keys name rows in errors (CheckRequired): columns of the
			// table, and only of a table with required columns.
			for _, k := range t.Key {
				if !cols[k] {
					return fmt.Errorf("format %s: key column %s.%s is no column of the table", v.Name, t.Name, k)
				}
			}
			if len(t.Key) > 0 && !slices.ContainsFunc(t.Columns, func(c Column) bool { return c.NullRead != "" }) {
				return fmt.Errorf("format %s: table %s has a key but no required column", v.Name, t.Name)
			}
		}
	}
	return vs.validateChangeKinds()
}

// ReaderOf returns the released format that a DuckDB version opens read-only
// without migrating, following each format's DuckDB constraint. DuckDB 2.0
// opens both 1.0 and 1.1; ReaderOf returns the newest.
func ReaderOf(duckdb string) (*Version, error) {
	dv, err := goversion.NewVersion(duckdb)
	if err != nil {
		return nil, fmt.Errorf("duckdb version %q: %w", duckdb, err)
	}
	rel := All.Releases()
	for i := len(rel) - 1; i >= 0; i-- {
		c, _ := goversion.NewConstraint(rel[i].DuckDB)
		if c.Check(dv) {
			return rel[i], nil
		}
	}
	return nil, fmt.Errorf("no known DuckLake format is read by DuckDB %s", duckdb)
}

// Opens reports whether a DuckDB version opens this format read-only.
func (v *Version) Opens(duckdb string) bool {
	dv, err := goversion.NewVersion(duckdb)
	if err != nil {
		return false
	}
	c, err := goversion.NewConstraint(v.DuckDB)
	return err == nil && c.Check(dv)
}

// OpenedOutside returns a DuckDB version that constraint c admits but that
// does not open v read-only, or nil when every version c admits opens v:
// a range declared for v's readers (fdl.json) must lie within v's own,
// else readers in the difference are sent to a catalog they cannot open.
// The versions tried are every bound either constraint names and its
// neighbours (the previous and next patch, the next minor and major
// release), where any difference of two such ranges starts.
func (v *Version) OpenedOutside(c goversion.Constraints) *goversion.Version {
	own, err := goversion.NewConstraint(v.DuckDB)
	if err != nil {
		return nil // validated by All.Validate
	}
	for _, t := range nearBounds(c.String() + "," + v.DuckDB) {
		if c.Check(t) && !own.Check(t) {
			return t
		}
	}
	return nil
}

// AdmitsNone reports whether constraint c admits no DuckDB release at all
// (">= 1.5.2, < 1.5.0"), by the versions OpenedOutside tries: a declared
// range that empty leaves the format with no reader, which no publisher
// means.
func (v *Version) AdmitsNone(c goversion.Constraints) bool {
	for _, t := range nearBounds(c.String() + "," + v.DuckDB) {
		if c.Check(t) {
			return false
		}
	}
	return true
}

// nearBounds are every bound the constraints name and its neighbours (the
// previous and next patch, the next minor and major release), sorted:
// where the sets of versions two ranges admit can start to differ.
func nearBounds(constraints string) []*goversion.Version {
	var tried []*goversion.Version
	for _, bound := range boundVersions(constraints) {
		s := bound.Segments()
		a, b, p := s[0], s[1], s[2]
		near := []string{fmt.Sprintf("%d.%d.%d", a, b, p), fmt.Sprintf("%d.%d.%d", a, b, p+1),
			fmt.Sprintf("%d.%d.0", a, b+1), fmt.Sprintf("%d.0.0", a+1)}
		switch {
		case p > 0:
			near = append(near, fmt.Sprintf("%d.%d.%d", a, b, p-1))
		case b > 0:
			near = append(near, fmt.Sprintf("%d.%d.999", a, b-1))
		case a > 0:
			near = append(near, fmt.Sprintf("%d.999.999", a-1))
		}
		for _, n := range near {
			// A neighbour of a bound at int64's maximum overflows into
			// text no version parses: there is no such version to try.
			if t, err := goversion.NewVersion(n); err == nil {
				tried = append(tried, t)
			}
		}
	}
	slices.SortFunc(tried, func(x, y *goversion.Version) int { return x.Compare(y) })
	return tried
}

// boundVersions are the versions a constraint string names.
func boundVersions(constraints string) []*goversion.Version {
	var out []*goversion.Version
	for _, part := range strings.Split(constraints, ",") {
		fields := strings.Fields(strings.TrimLeft(strings.TrimSpace(part), "<>=!~"))
		if len(fields) == 0 {
			continue
		}
		if bv, err := goversion.NewVersion(fields[len(fields)-1]); err == nil {
			out = append(out, bv)
		}
	}
	return out
}

// validateEarlyFixes checks that each of v's EarlyQuirks names the release
// that fixed it (EarlyFixes), a version of v's range, and that no fix is
// named for a quirk that is none of them.
func (v *Version) validateEarlyFixes() error {
	c, err := goversion.NewConstraint(v.DuckDB)
	if err != nil {
		return fmt.Errorf("format %s: duckdb constraint %q: %w", v.Name, v.DuckDB, err)
	}
	for q, fixed := range v.EarlyFixes {
		if !v.EarlyReadsWith(q) || q&(q-1) != 0 {
			return fmt.Errorf("format %s: EarlyFixes names %s (%s), which is not one of its EarlyQuirks", v.Name, q.Info().Name, fixed)
		}
	}
	for _, qi := range AllQuirks {
		if !v.EarlyReadsWith(qi.Quirk) {
			continue
		}
		fixed, err := goversion.NewVersion(v.EarlyFixes[qi.Quirk])
		if err != nil {
			return fmt.Errorf("format %s: EarlyFixes: no release named for %s, one of its EarlyQuirks: %w", v.Name, qi.Name, err)
		}
		if !c.Check(fixed) {
			return fmt.Errorf("format %s: EarlyFixes: %s fixed in DuckDB %s, outside the format's range %s", v.Name, qi.Name, fixed, v.DuckDB)
		}
	}
	return nil
}
