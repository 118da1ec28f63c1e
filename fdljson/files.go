package fdljson

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// Files is files.json: each live table's data files at the frozen snapshot.
type Files struct {
	Tables map[string]*FilesTable `json:"tables"`
}

// FilesTable is one table of files.json.
type FilesTable struct {
	Files          []DataFile `json:"files"`
	RenamedColumns bool       `json:"renamed_columns,omitempty"`
	// Renamed names the renamed columns, when known (from a catalog), for
	// Diff's message; not part of files.json.
	Renamed []string `json:"-"`
}

// DataFile is one data file, relative to the repository's data_dir.
type DataFile struct {
	Path        string      `json:"path"`
	Rows        int64       `json:"rows"`
	Bytes       int64       `json:"bytes"`
	FooterBytes *int64      `json:"footer_bytes,omitempty"`
	Deletes     *DeleteFile `json:"deletes,omitempty"`
}

// DeleteFile is the delete file of a data file.
type DeleteFile struct {
	Path  string `json:"path"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
}

// ParseFiles parses and validates files.json.
func ParseFiles(file string, data []byte) (*Files, error) {
	o, err := decodeObject(file, "", data)
	if err != nil {
		return nil, err
	}
	tabs, err := o.sub("tables")
	if err != nil {
		return nil, err
	}
	f := &Files{Tables: map[string]*FilesTable{}}
	for _, name := range sortedKeys(tabs.m) {
		t, err := decodeObject(file, fmt.Sprintf("tables[%q]", name), tabs.m[name])
		if err != nil {
			return nil, err
		}
		ft := &FilesTable{Files: []DataFile{}}
		if _, err := t.opt("renamed_columns", &ft.RenamedColumns); err != nil {
			return nil, err
		}
		var raws []json.RawMessage
		if err := t.req("files", &raws); err != nil {
			return nil, err
		}
		for i, raw := range raws {
			d, err := decodeObject(file, fmt.Sprintf("%s.files[%d]", t.path, i), raw)
			if err != nil {
				return nil, err
			}
			var df DataFile
			if err := parseSized(d, &df.Path, &df.Rows, &df.Bytes); err != nil {
				return nil, err
			}
			var footer int64
			if ok, err := d.opt("footer_bytes", &footer); err != nil {
				return nil, err
			} else if ok {
				df.FooterBytes = &footer
			}
			if d.has("deletes") {
				del, err := d.sub("deletes")
				if err != nil {
					return nil, err
				}
				df.Deletes = &DeleteFile{}
				if err := parseSized(del, &df.Deletes.Path, &df.Deletes.Rows, &df.Deletes.Bytes); err != nil {
					return nil, err
				}
			}
			ft.Files = append(ft.Files, df)
		}
		f.Tables[name] = ft
	}
	return f, nil
}

func parseSized(o *object, path *string, rows, bytes *int64) error {
	if err := o.req("path", path); err != nil {
		return err
	}
	if err := checkRelPath(o.file, o.field("path"), *path); err != nil {
		return err
	}
	if err := o.req("rows", rows); err != nil {
		return err
	}
	if err := o.req("bytes", bytes); err != nil {
		return err
	}
	if *rows < 0 || *bytes < 0 {
		return fieldErr(o.file, o.path, "rows and bytes must not be negative")
	}
	return nil
}

// Diff lists how files.json differs from what the catalog records (want),
// one line per difference, tables sorted. Empty means they agree. Footer
// sizes are compared only where both record one. Keys and paths are
// written as oneline.Name writes them (Go-quoted where they hold a line
// break or another control character), so that each difference stays one
// line and names them whole.
func (f *Files) Diff(want *Files) []string {
	var out []string
	for _, key := range unionKeys(f.Tables, want.Tables) {
		got, w := f.Tables[key], want.Tables[key]
		name := oneline.Name(key)
		switch {
		case got == nil:
			out = append(out, fmt.Sprintf("table %s: in the catalog, missing from files.json", name))
			continue
		case w == nil:
			out = append(out, fmt.Sprintf("table %s: in files.json, not alive in the catalog", name))
			continue
		}
		if got.RenamedColumns != w.RenamedColumns {
			why := "no column of the table was renamed"
			if w.RenamedColumns {
				why = "a column of the table was renamed, and readers without DuckLake rely on the flag"
				if len(w.Renamed) > 0 {
					why = fmt.Sprintf("column(s) %s of the table were renamed, and readers without DuckLake rely on the flag", strings.Join(w.Renamed, ", "))
				}
			}
			out = append(out, fmt.Sprintf("table %s: renamed_columns is %t in files.json, %t in the catalog (%s)", name, got.RenamedColumns, w.RenamedColumns, why))
		}
		if len(got.Files) != len(w.Files) {
			out = append(out, fmt.Sprintf("table %s: files.json lists %d files, the catalog %d", name, len(got.Files), len(w.Files)))
			continue
		}
		for i := range got.Files {
			g, c := got.Files[i], w.Files[i]
			path := oneline.Name(g.Path)
			if g.Path != c.Path || g.Rows != c.Rows || g.Bytes != c.Bytes {
				out = append(out, fmt.Sprintf("table %s file %d: files.json has %s (%d rows, %d bytes), the catalog %s (%d rows, %d bytes)", name, i, path, g.Rows, g.Bytes, oneline.Name(c.Path), c.Rows, c.Bytes))
			}
			if g.FooterBytes != nil && c.FooterBytes != nil && *g.FooterBytes != *c.FooterBytes {
				out = append(out, fmt.Sprintf("table %s file %s: footer_bytes %d, the catalog %d", name, path, *g.FooterBytes, *c.FooterBytes))
			}
			switch {
			case (g.Deletes == nil) != (c.Deletes == nil):
				out = append(out, fmt.Sprintf("table %s file %s: deletes %v in files.json, %v in the catalog", name, path, g.Deletes != nil, c.Deletes != nil))
			case g.Deletes != nil && *g.Deletes != *c.Deletes:
				gd, cd := g.Deletes, c.Deletes
				out = append(out, fmt.Sprintf("table %s file %s: delete file %s (%d rows, %d bytes) in files.json, the catalog %s (%d rows, %d bytes)", name, path, oneline.Name(gd.Path), gd.Rows, gd.Bytes, oneline.Name(cd.Path), cd.Rows, cd.Bytes))
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]V{}
	for k, v := range a {
		seen[k] = v
	}
	for k, v := range b {
		seen[k] = v
	}
	return sortedKeys(seen)
}
