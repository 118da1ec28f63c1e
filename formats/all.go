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
// every column typed, development layouts pointing at a release.
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
		if v.Dev {
			if _, err := Lookup(v.Release); err != nil {
				return fmt.Errorf("format %s: release: %w", v.Name, err)
			}
		} else {
			cur, err := goversion.NewVersion(v.Name)
			if err != nil {
				return fmt.Errorf("format %s: %w", v.Name, err)
			}
			if prev != nil && !cur.GreaterThan(prev) {
				return fmt.Errorf("format %s listed after %s", v.Name, prev)
			}
			prev = cur
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
		}
	}
	return nil
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
