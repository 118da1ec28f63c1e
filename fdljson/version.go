package fdljson

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/fdl-formats/fdl-formats/formats"
)

// Version is version.json. Fields the specification marks "may" are nil or
// empty when absent; unknown fields are ignored.
type Version struct {
	FDL       string    `json:"fdl"`
	ID        string    `json:"id"`
	Seq       int64     `json:"seq"`
	Parents   []string  `json:"parents"`
	CreatedAt time.Time `json:"created_at"`
	Author    Author    `json:"author"`
	Message   string    `json:"message"`
	Catalog   Catalog   `json:"catalog"`
	// Dataset is nil for versions written before dataset.json was required.
	Dataset  *FileRef `json:"dataset,omitempty"`
	DuckLake DuckLake `json:"ducklake"`
	Files    *FileRef `json:"files,omitempty"`
	// Changes is nil when version.json has no "changes", and not nil
	// (perhaps empty) when it has one: "changes": [] claims that no
	// column differs from the parent, which check holds it to.
	Changes     []Change                   `json:"changes,omitempty"`
	Inputs      []json.RawMessage          `json:"inputs,omitempty"`
	Annotations map[string]json.RawMessage `json:"annotations,omitempty"`

	// IDTime is the creation time the id carries (IDTime). CreatedAt is
	// created_at, the writer's word; the until rule reads Created.
	IDTime time.Time `json:"-"`
}

// Author is who made a version; name is required.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
}

// FileRef names a file beside version.json with its size and sha256.
type FileRef struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Catalog is the frozen catalog's reference plus its DuckDB storage format.
type Catalog struct {
	FileRef
	Storage string `json:"storage"`
}

// DuckLake is the catalog's format, frozen snapshot and snapshot range.
type DuckLake struct {
	Format     string  `json:"format"`
	SnapshotID int64   `json:"snapshot_id"`
	Snapshots  []int64 `json:"snapshots,omitempty"`
}

// Change is one column difference from the parent.
type Change struct {
	Table    string `json:"table"`
	Kind     string `json:"kind"`
	Column   string `json:"column,omitempty"`
	Breaking bool   `json:"breaking"`
}

// Parent returns the parent followed for history (the first), or "".
func (v *Version) Parent() string {
	if len(v.Parents) == 0 {
		return ""
	}
	return v.Parents[0]
}

// Created is when the version was created, as the until rule of fdl.json
// reads it: the later of created_at and the time its id carries. created_at
// is only the writer's word (a writer may put the data's date there, or run
// on a clock years off), and the UUIDv7 id "sorts by creation time" (FDL
// 0.1, Versions): taking the later, a created_at set back before a format's
// until does not get a catalog in that format written or certified.
func (v *Version) Created() time.Time {
	if v.IDTime.After(v.CreatedAt) {
		return v.IDTime
	}
	return v.CreatedAt
}

// Format looks up the catalog's DuckLake format in the registry.
func (v *Version) Format() (*formats.Version, error) { return formats.Lookup(v.DuckLake.Format) }

// ParseVersion parses and validates version.json. file names it in errors;
// dirID is the name of its version folder, which the id must equal ("" skips
// that check).
func ParseVersion(file, dirID string, data []byte) (*Version, error) {
	o, err := decodeObject(file, "", data)
	if err != nil {
		return nil, err
	}
	v := &Version{}
	if err := o.req("fdl", &v.FDL); err != nil {
		return nil, err
	}
	if v.FDL == "" {
		return nil, fieldErr(file, "fdl", "empty")
	}
	if err := o.req("id", &v.ID); err != nil {
		return nil, err
	}
	if err := checkVersionID(file, "id", v.ID); err != nil {
		return nil, err
	}
	if v.IDTime, err = IDTime(v.ID); err != nil {
		return nil, fieldErr(file, "id", "%v", err)
	}
	if dirID != "" && v.ID != dirID {
		return nil, fieldErr(file, "id", "%q differs from its folder %q; a reader must not read this version", v.ID, dirID)
	}
	if err := o.req("seq", &v.Seq); err != nil {
		return nil, err
	}
	if v.Seq < 1 {
		return nil, fieldErr(file, "seq", "%d: must be 1 or more", v.Seq)
	}
	if err := o.req("parents", &v.Parents); err != nil {
		return nil, err
	}
	for i, p := range v.Parents {
		if err := checkVersionID(file, fmt.Sprintf("parents[%d]", i), p); err != nil {
			return nil, err
		}
		if p == v.ID {
			return nil, fieldErr(file, fmt.Sprintf("parents[%d]", i), "a version cannot be its own parent")
		}
	}
	var created string
	if err := o.req("created_at", &created); err != nil {
		return nil, err
	}
	t, err := parseISOTime(created)
	if err != nil {
		return nil, fieldErr(file, "created_at", "%v", err)
	}
	v.CreatedAt = t
	author, err := o.sub("author")
	if err != nil {
		return nil, err
	}
	if err := author.req("name", &v.Author.Name); err != nil {
		return nil, err
	}
	if _, err := author.opt("email", &v.Author.Email); err != nil {
		return nil, err
	}
	if err := o.req("message", &v.Message); err != nil {
		return nil, err
	}
	cat, err := o.sub("catalog")
	if err != nil {
		return nil, err
	}
	if v.Catalog.FileRef, err = parseFileRef(cat); err != nil {
		return nil, err
	}
	// catalogs/ holds the catalogs written in other formats, each named by
	// its format: the frozen catalog there would be one of them too.
	if strings.HasPrefix(v.Catalog.Path, "catalogs/") {
		return nil, fieldErr(cat.file, cat.field("path"), "%q is under catalogs/, which holds the catalogs in other formats (catalogs/<format>.duckdb); the frozen catalog lies beside version.json (ducklake.duckdb)", v.Catalog.Path)
	}
	if err := cat.req("storage", &v.Catalog.Storage); err != nil {
		return nil, err
	}
	if o.has("dataset") {
		sub, err := o.sub("dataset")
		if err != nil {
			return nil, err
		}
		ref, err := parseFileRef(sub)
		if err != nil {
			return nil, err
		}
		v.Dataset = &ref
	}
	dl, err := o.sub("ducklake")
	if err != nil {
		return nil, err
	}
	if err := dl.req("format", &v.DuckLake.Format); err != nil {
		return nil, err
	}
	if _, err := formats.Lookup(v.DuckLake.Format); err != nil {
		return nil, &Error{File: file, Field: "ducklake.format", Err: err}
	}
	if err := dl.req("snapshot_id", &v.DuckLake.SnapshotID); err != nil {
		return nil, err
	}
	if v.DuckLake.SnapshotID < 0 {
		return nil, fieldErr(file, "ducklake.snapshot_id", "%d: must not be negative", v.DuckLake.SnapshotID)
	}
	if ok, err := dl.opt("snapshots", &v.DuckLake.Snapshots); err != nil {
		return nil, err
	} else if ok {
		s := v.DuckLake.Snapshots
		if len(s) != 2 || s[0] > s[1] || s[1] > v.DuckLake.SnapshotID {
			return nil, fieldErr(file, "ducklake.snapshots", "%v: want [first, last] with first <= last <= snapshot_id", s)
		}
	}
	if o.has("files") {
		sub, err := o.sub("files")
		if err != nil {
			return nil, err
		}
		ref, err := parseFileRef(sub)
		if err != nil {
			return nil, err
		}
		v.Files = &ref
	}
	if o.has("changes") {
		var raws []json.RawMessage
		if err := o.decode("changes", &raws); err != nil {
			return nil, err
		}
		v.Changes = make([]Change, 0, len(raws))
		for i, raw := range raws {
			c, err := decodeObject(file, fmt.Sprintf("changes[%d]", i), raw)
			if err != nil {
				return nil, err
			}
			var ch Change
			if err := c.req("table", &ch.Table); err != nil {
				return nil, err
			}
			if err := c.req("kind", &ch.Kind); err != nil {
				return nil, err
			}
			if _, err := c.opt("column", &ch.Column); err != nil {
				return nil, err
			}
			if _, err := c.opt("breaking", &ch.Breaking); err != nil {
				return nil, err
			}
			v.Changes = append(v.Changes, ch)
		}
	}
	if _, err := o.opt("inputs", &v.Inputs); err != nil {
		return nil, err
	}
	if _, err := o.opt("annotations", &v.Annotations); err != nil {
		return nil, err
	}
	return v, nil
}

func parseFileRef(o *object) (FileRef, error) {
	var r FileRef
	if err := o.req("path", &r.Path); err != nil {
		return r, err
	}
	if err := checkOwnPath(o.file, o.field("path"), r.Path); err != nil {
		return r, err
	}
	if err := o.req("bytes", &r.Bytes); err != nil {
		return r, err
	}
	if r.Bytes < 0 {
		return r, fieldErr(o.file, o.field("bytes"), "%d: must not be negative", r.Bytes)
	}
	if err := o.req("sha256", &r.SHA256); err != nil {
		return r, err
	}
	if !sha256Hex.MatchString(r.SHA256) {
		return r, fieldErr(o.file, o.field("sha256"), "%q: want 64 lower-case hex digits", short([]byte(r.SHA256)))
	}
	return r, nil
}
