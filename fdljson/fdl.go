package fdljson

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/formats"
)

// SpecVersion is the FDL specification version whose rules this package
// and the repository checks implement ("fdl" in fdl.json and version.json).
const SpecVersion = "0.1"

// DefaultDataDir is the data folder when fdl.json does not name one.
const DefaultDataDir = "data/"

// Repo is fdl.json: the repository's declared catalog formats.
type Repo struct {
	FDL     string   `json:"fdl"`
	DataDir string   `json:"data_dir"`
	Formats []Format `json:"formats"`
}

// Format is one entry of fdl.json "formats".
type Format struct {
	// DuckLake is the format's name in the registry ("1.0").
	DuckLake string `json:"ducklake"`
	// DuckDB is the version constraint of the DuckDB releases that read it;
	// the registry's constraint when fdl.json leaves it out.
	DuckDB string `json:"duckdb"`
	// Until is the instant the format stops being written, as written in
	// fdl.json ("" when it does not expire).
	Until string `json:"until,omitempty"`

	Version    *formats.Version      `json:"-"`
	Readers    goversion.Constraints `json:"-"`
	UntilTime  time.Time             `json:"-"` // zero when Until is empty (HasUntil tells)
	DuckDBFrom string                `json:"-"` // "fdl.json" or "registry"
}

// HasUntil reports whether the format has an end date. By Until, not
// UntilTime: an until of 0001-01-01T00:00:00Z is Go's zero time, and read
// as none the format never expired.
func (f Format) HasUntil() bool { return f.Until != "" }

// ExpiredAt reports whether the format is no longer written as of now.
func (f Format) ExpiredAt(now time.Time) bool { return f.HasUntil() && !now.Before(f.UntilTime) }

// ExpiredFor reports whether the format is not written for a version created
// at created: at or after its until, or because until has passed as of now.
func (f Format) ExpiredFor(created, now time.Time) bool {
	return f.HasUntil() && (!created.Before(f.UntilTime) || !now.Before(f.UntilTime))
}

// Format returns the declared entry for a format name, if any.
func (r *Repo) Format(name string) (Format, bool) {
	for _, f := range r.Formats {
		if f.DuckLake == name {
			return f, true
		}
	}
	return Format{}, false
}

// Oldest returns the oldest declared format among those kept by keep (all
// when keep is nil), in registry order.
func (r *Repo) Oldest(keep func(Format) bool) (Format, bool) {
	var best Format
	found := false
	for _, f := range r.Formats {
		if keep != nil && !keep(f) {
			continue
		}
		if !found || formats.All.Index(f.Version) < formats.All.Index(best.Version) {
			best, found = f, true
		}
	}
	return best, found
}

// ParseRepo parses and validates fdl.json. file names it in errors.
func ParseRepo(file string, data []byte) (*Repo, error) {
	o, err := decodeObject(file, "", data)
	if err != nil {
		return nil, err
	}
	r := &Repo{}
	if err := o.req("fdl", &r.FDL); err != nil {
		return nil, err
	}
	if r.FDL == "" {
		return nil, fieldErr(file, "fdl", "empty")
	}
	r.DataDir = DefaultDataDir
	if _, err := o.opt("data_dir", &r.DataDir); err != nil {
		return nil, err
	}
	if err := checkOwnPath(file, "data_dir", r.DataDir); err != nil {
		return nil, err
	}
	if !strings.HasSuffix(r.DataDir, "/") {
		r.DataDir += "/"
	}
	var raws []json.RawMessage
	if !o.has("formats") {
		return nil, fieldErr(file, "formats", "missing (required)")
	}
	if err := json.Unmarshal(o.m["formats"], &raws); err != nil {
		return nil, fieldErr(file, "formats", "want a list of objects, got %s", short(o.m["formats"]))
	}
	if len(raws) == 0 {
		return nil, fieldErr(file, "formats", "empty: declare at least one format")
	}
	for i, raw := range raws {
		f, err := parseFormat(file, fmt.Sprintf("formats[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		for j, prev := range r.Formats {
			if prev.Version == f.Version {
				return nil, fieldErr(file, fmt.Sprintf("formats[%d].ducklake", i), "format %s declared twice (also formats[%d])", f.DuckLake, j)
			}
		}
		r.Formats = append(r.Formats, f)
	}
	return r, nil
}

func parseFormat(file, path string, raw []byte) (Format, error) {
	o, err := decodeObject(file, path, raw)
	if err != nil {
		return Format{}, err
	}
	var f Format
	if err := o.req("ducklake", &f.DuckLake); err != nil {
		return f, err
	}
	v, err := formats.Lookup(f.DuckLake)
	if err != nil {
		// After a DuckDB upgrade the DuckDB release is the number at hand
		// ("2.0"), not the DuckLake format it writes (1.1): say which.
		if r, rerr := formats.ReaderOf(f.DuckLake); rerr == nil {
			err = fmt.Errorf("%w; DuckDB %s reads DuckLake format %s: ducklake names the format, duckdb the range of DuckDB releases", err, f.DuckLake, r.Name)
		}
		return f, &Error{File: file, Field: o.field("ducklake"), Err: err}
	}
	if v.Dev {
		return f, fieldErr(file, o.field("ducklake"), "%s is a development layout; declare a released format (%s)", v.Name, strings.Join(formats.All.Releases().Names(), ", "))
	}
	f.Version = v
	f.DuckDBFrom = "fdl.json"
	if ok, err := o.opt("duckdb", &f.DuckDB); err != nil {
		return f, err
	} else if !ok {
		f.DuckDB, f.DuckDBFrom = v.DuckDB, "registry"
	}
	c, err := goversion.NewConstraint(f.DuckDB)
	if err != nil {
		return f, fieldErr(file, o.field("duckdb"), "bad version constraint %q (want e.g. \">= 1.5.2, < 2.0.0\"): %v", f.DuckDB, err)
	}
	if out := v.OpenedOutside(c); out != nil {
		return f, fieldErr(file, o.field("duckdb"), "%q admits DuckDB %s, which does not open format %s read-only (its readers: DuckDB %s); a reader there would be sent to a catalog it cannot open: declare a range within the format's", f.DuckDB, out, v.Name, v.DuckDB)
	}
	if v.AdmitsNone(c) {
		return f, fieldErr(file, o.field("duckdb"), "%q admits no DuckDB release: format %s would have no reader; declare a range within the format's (its readers: DuckDB %s)", f.DuckDB, v.Name, v.DuckDB)
	}
	f.Readers = c
	if ok, err := o.opt("until", &f.Until); err != nil {
		return f, err
	} else if ok {
		t, err := parseUntil(f.Until)
		if err != nil {
			return f, &Error{File: file, Field: o.field("until"), Err: err}
		}
		f.UntilTime = t
	}
	return f, nil
}

// Names lists the declared format names in fdl.json order.
func (r *Repo) Names() []string {
	names := make([]string, len(r.Formats))
	for i, f := range r.Formats {
		names[i] = f.DuckLake
	}
	return names
}

// Sorted returns the declared formats oldest first (registry order).
func (r *Repo) Sorted() []Format {
	out := slices.Clone(r.Formats)
	slices.SortStableFunc(out, func(a, b Format) int {
		return formats.All.Index(a.Version) - formats.All.Index(b.Version)
	})
	return out
}
