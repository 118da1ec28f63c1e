package lakegen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Result tells what a generated repository holds.
type Result struct {
	Dir      string
	DataPath string // the catalogs' data_path (published URL of data/)
	Versions []VersionResult
	// Snapshots lists every snapshot from 0, with each live table's state.
	Snapshots []SnapshotResult
}

// VersionResult is one written version.
type VersionResult struct {
	ID         string
	Seq        int
	CreatedAt  time.Time // created_at; the ID carries it too (versionID)
	SnapshotID int64     // the frozen snapshot
	Snapshots  [2]int64  // first and last snapshot this version adds
}

// SnapshotResult is the state of every live table at one snapshot.
type SnapshotResult struct {
	ID     int64
	Time   time.Time
	Tables map[string]TableState // keyed "main.<table>"
}

// TableState is what a table holds at a snapshot, as the generator wrote it.
type TableState struct {
	Rows    int64
	Columns []string // column names at that snapshot, in order
	// Data holds each row as DuckDB's text of the row struct
	// (SELECT r::VARCHAR FROM (SELECT <columns> ...) r), in row-id order;
	// only with Spec.RecordRows.
	Data []string
}

// Snapshot returns the state at snapshot id.
func (r *Result) Snapshot(id int64) (SnapshotResult, bool) {
	for _, s := range r.Snapshots {
		if s.ID == id {
			return s, true
		}
	}
	return SnapshotResult{}, false
}

// Repository writes an FDL repository into dir (absent or empty): fdl.json,
// data/ with the Parquet data and delete files, and one versions/<uuidv7>/
// per Spec version with version.json (with "changes", the column
// differences from the parent, in every version but the first: see
// changes.go), the frozen ducklake.duckdb (format
// 1.0, DuckDB storage v1.5.0, rows up to that version's snapshot only, no
// inlined data), dataset.json and files.json.
func Repository(ctx context.Context, dir string, spec Spec) (*Result, error) {
	if spec.Name == "" || len(spec.Versions) == 0 {
		return nil, errors.New("lakegen: spec needs a name and at least one version")
	}
	if spec.BaseURL == "" {
		spec.BaseURL = "https://fdl.example/"
	}
	if !strings.HasSuffix(spec.BaseURL, "/") {
		spec.BaseURL += "/"
	}
	if spec.Author == "" {
		spec.Author = "lakegen"
	}
	if spec.Title == "" {
		spec.Title = spec.Name
	}
	if len(spec.Formats) == 0 {
		spec.Formats = DefaultFormats()
	}
	if spec.Start.IsZero() {
		spec.Start = time.Now()
	}
	if err := emptyDir(dir); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	res := &Result{Dir: abs, DataPath: spec.BaseURL + spec.Name + "/data/"}
	dataDir := filepath.Join(abs, "data")
	for _, d := range []string{dataDir, filepath.Join(abs, "versions")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
	}
	if err := writeJSON(filepath.Join(abs, "fdl.json"), repoDoc{FDL: "0.1", DataDir: "data/", Formats: spec.Formats}); err != nil {
		return nil, err
	}
	g, err := newGen(ctx, dataDir, res.DataPath, spec.Start, spec.RecordRows)
	if err != nil {
		return nil, err
	}
	defer g.close()
	var parents []string
	var parent *frozen // what the parent froze, for changes
	for i, v := range spec.Versions {
		first := g.snap + 1
		if i == 0 {
			first = 0
		}
		for _, s := range v.Snapshots {
			if err := g.commit(ctx, s); err != nil {
				return nil, fmt.Errorf("version %d: %w", i+1, err)
			}
		}
		// created_at, a second after the version's last snapshot.
		created := g.snapTime.Add(time.Second).UTC().Truncate(time.Second)
		var after string
		if len(res.Versions) > 0 {
			after = res.Versions[len(res.Versions)-1].ID
		}
		id, err := versionID(created, after)
		if err != nil {
			return nil, err
		}
		vr := VersionResult{ID: id, Seq: i + 1, CreatedAt: created, SnapshotID: g.snap, Snapshots: [2]int64{first, g.snap}}
		// The first version differs from nothing: it writes no changes.
		var changes *[]change
		if parent != nil {
			c := g.columnChanges(parent)
			changes = &c
		}
		if err := g.writeVersion(ctx, abs, spec, v, vr, parents, changes); err != nil {
			return nil, fmt.Errorf("version %d (%s): %w", i+1, vr.ID, err)
		}
		parents, parent = []string{vr.ID}, g.freezeState()
		res.Versions = append(res.Versions, vr)
	}
	res.Snapshots = g.snapshots
	return res, nil
}

// versionID makes a version's UUIDv7 for its creation time: the id's
// 48-bit Unix milliseconds are created's, so the id and created_at agree
// (fdl-formats warns when they lie more than a day apart, and its until
// rule reads the later), and ids sort by creation time, as the spec says
// they do: one that would share the millisecond of the id made before it
// (after, "" for none) takes the next millisecond.
func versionID(created time.Time, after string) (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", err
	}
	if ms := created.UnixMilli(); ms < 0 || ms >= 1<<48 {
		return "", fmt.Errorf("lakegen: version created %s: a UUIDv7 holds times from 1970 to the year 10889 only", created.Format(time.RFC3339))
	}
	var b [8]byte // the milliseconds, big-endian: the id's first 6 bytes are b[2:]
	ms := uint64(created.UnixMilli())
	if after != "" {
		prev, err := uuid.Parse(after)
		if err != nil {
			return "", err
		}
		copy(b[2:], prev[:6])
		ms = max(ms, binary.BigEndian.Uint64(b[:])+1)
	}
	binary.BigEndian.PutUint64(b[:], ms)
	copy(id[:6], b[2:])
	return id.String(), nil
}

func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("lakegen: %s is not empty", dir)
	}
	return nil
}

func mkdirFor(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create folder for %s: %w", path, err)
	}
	return nil
}

// recordSnapshot keeps what each live table holds after a commit. Tables
// the commit did not touch hold what they held at the previous snapshot, so
// only the touched ones are read: a commit costs what it changed, not what
// the catalog holds (the wide benchmark has 300 tables and 3,500 commits).
func (g *gen) recordSnapshot(ctx context.Context) error {
	prev := g.snapshots[len(g.snapshots)-1].Tables
	s := SnapshotResult{ID: g.snap, Time: g.snapTime, Tables: make(map[string]TableState, len(g.tables))}
	for _, t := range g.tables {
		key := "main." + t.name
		st, ok := prev[key]
		if !ok || slices.Contains(g.touched, t) {
			var err error
			if st, err = g.tableState(ctx, t); err != nil {
				return err
			}
		}
		s.Tables[key] = st
	}
	g.snapshots = append(g.snapshots, s)
	return nil
}

// tableState reads what a table holds now from its truth table.
func (g *gen) tableState(ctx context.Context, t *table) (TableState, error) {
	st := TableState{}
	for _, c := range t.cols {
		st.Columns = append(st.Columns, c.name)
	}
	if err := g.conn.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE _end IS NULL", t.truth())).Scan(&st.Rows); err != nil {
		return st, fmt.Errorf("count %s: %w", t.name, err)
	}
	if !g.record {
		return st, nil
	}
	q := fmt.Sprintf("SELECT r::VARCHAR FROM (SELECT %s FROM %s WHERE _end IS NULL ORDER BY _row_id) r", t.selectList(), t.truth())
	rows, err := g.conn.QueryContext(ctx, q)
	if err != nil {
		return st, fmt.Errorf("record %s: %w", t.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return st, fmt.Errorf("record %s: %w", t.name, err)
		}
		st.Data = append(st.Data, line)
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("record %s: %w", t.name, err)
	}
	return st, nil
}

// freeze writes the catalog as it is now into a new DuckDB file at storage
// v1.5.0, with exactly the format's tables in DDL order.
func (g *gen) freeze(ctx context.Context, path string) error {
	if err := g.exec(ctx, fmt.Sprintf("ATTACH %s AS frz (STORAGE_VERSION 'v1.5.0')", quoteString(path))); err != nil {
		return err
	}
	for _, t := range g.format.Tables {
		if err := g.exec(ctx, qualify(t.DDL(), "frz")); err != nil {
			g.exec(ctx, "DETACH frz") //nolint:errcheck // already failing
			return err
		}
		if err := g.exec(ctx, fmt.Sprintf("INSERT INTO frz.%s SELECT * FROM cat.%s", t.Name, t.Name)); err != nil {
			g.exec(ctx, "DETACH frz") //nolint:errcheck // already failing
			return err
		}
	}
	return g.exec(ctx, "DETACH frz")
}

// writeVersion freezes the catalog and writes a version's folder; changes
// is version.json's "changes" (nil: left out).
func (g *gen) writeVersion(ctx context.Context, root string, spec Spec, v Version, vr VersionResult, parents []string, changes *[]change) error {
	vdir := filepath.Join(root, "versions", vr.ID)
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	catalog := filepath.Join(vdir, "ducklake.duckdb")
	if err := g.writeTableStats(ctx); err != nil {
		return err
	}
	if err := g.freeze(ctx, catalog); err != nil {
		return err
	}
	files, err := g.filesJSON(ctx)
	if err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(vdir, "files.json"), files); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(vdir, "dataset.json"), g.datasetJSON(spec)); err != nil {
		return err
	}
	ref := func(name string) (fileRef, error) {
		b, err := os.ReadFile(filepath.Join(vdir, name))
		if err != nil {
			return fileRef{}, err
		}
		sum := sha256.Sum256(b)
		return fileRef{Path: name, Bytes: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}, nil
	}
	cat, err := ref("ducklake.duckdb")
	if err != nil {
		return err
	}
	ds, err := ref("dataset.json")
	if err != nil {
		return err
	}
	fj, err := ref("files.json")
	if err != nil {
		return err
	}
	if parents == nil {
		parents = []string{}
	}
	msg := v.Message
	if msg == "" {
		msg = fmt.Sprintf("version %d", vr.Seq)
	}
	doc := versionFile{
		FDL: "0.1", ID: vr.ID, Seq: vr.Seq, Parents: parents,
		CreatedAt: vr.CreatedAt.Format("2006-01-02T15:04:05Z"),
		Author:    author{Name: spec.Author}, Message: msg,
		Catalog:  catalogRef{Path: cat.Path, Storage: "duckdb-v1.5.0", Bytes: cat.Bytes, SHA256: cat.SHA256},
		Dataset:  ds,
		DuckLake: duckLakeRef{Format: g.format.Name, SnapshotID: vr.SnapshotID, Snapshots: vr.Snapshots[:]},
		Files:    fj,
		Changes:  changes,
	}
	return writeJSON(filepath.Join(vdir, "version.json"), doc)
}

// JSON documents, with fields in the order of the specification's examples.

type versionFile struct {
	FDL       string      `json:"fdl"`
	ID        string      `json:"id"`
	Seq       int         `json:"seq"`
	Parents   []string    `json:"parents"`
	CreatedAt string      `json:"created_at"`
	Author    author      `json:"author"`
	Message   string      `json:"message"`
	Catalog   catalogRef  `json:"catalog"`
	Dataset   fileRef     `json:"dataset"`
	DuckLake  duckLakeRef `json:"ducklake"`
	Files     fileRef     `json:"files"`
	// Changes is left out when nil, and written when empty ([]: no
	// column differs from the parent).
	Changes *[]change `json:"changes,omitempty"`
}

type author struct {
	Name string `json:"name"`
}

type catalogRef struct {
	Path    string `json:"path"`
	Storage string `json:"storage"`
	Bytes   int64  `json:"bytes"`
	SHA256  string `json:"sha256"`
}

type fileRef struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

type duckLakeRef struct {
	Format     string  `json:"format"`
	SnapshotID int64   `json:"snapshot_id"`
	Snapshots  []int64 `json:"snapshots"`
}

type repoDoc struct {
	FDL     string   `json:"fdl"`
	DataDir string   `json:"data_dir"`
	Formats []Format `json:"formats"`
}

type filesDoc struct {
	Tables map[string]filesTable `json:"tables"`
}

type filesTable struct {
	Files          []filesEntry `json:"files"`
	RenamedColumns bool         `json:"renamed_columns,omitempty"`
}

type filesEntry struct {
	Path        string       `json:"path"`
	Rows        int64        `json:"rows"`
	Bytes       int64        `json:"bytes"`
	FooterBytes int64        `json:"footer_bytes"`
	Deletes     *filesDelete `json:"deletes,omitempty"`
}

type filesDelete struct {
	Path  string `json:"path"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
}

// filesJSON lists each live table's live data files from the catalog, in
// the catalog's order, with paths relative to data/.
func (g *gen) filesJSON(ctx context.Context) (filesDoc, error) {
	doc := filesDoc{Tables: map[string]filesTable{}}
	for _, t := range g.tables {
		ft := filesTable{Files: []filesEntry{}, RenamedColumns: t.renamed}
		rows, err := g.conn.QueryContext(ctx, `
SELECT f.path, f.record_count, f.file_size_bytes, f.footer_size, d.path, d.delete_count, d.file_size_bytes
FROM cat.ducklake_data_file f
LEFT JOIN cat.ducklake_delete_file d ON d.data_file_id = f.data_file_id AND d.end_snapshot IS NULL
WHERE f.table_id = ? AND f.end_snapshot IS NULL
ORDER BY f.data_file_id`, t.id)
		if err != nil {
			return doc, fmt.Errorf("list files of %s: %w", t.name, err)
		}
		for rows.Next() {
			var e filesEntry
			var dPath *string
			var dRows, dBytes *int64
			if err := rows.Scan(&e.Path, &e.Rows, &e.Bytes, &e.FooterBytes, &dPath, &dRows, &dBytes); err != nil {
				rows.Close()
				return doc, err
			}
			prefix := schemaPath + t.path
			e.Path = prefix + e.Path
			if dPath != nil {
				e.Deletes = &filesDelete{Path: prefix + *dPath, Rows: *dRows, Bytes: *dBytes}
			}
			ft.Files = append(ft.Files, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return doc, err
		}
		doc.Tables["main."+t.name] = ft
	}
	return doc, nil
}

type datasetDoc struct {
	Name   string         `json:"name"`
	Title  string         `json:"title"`
	Tables []datasetTable `json:"tables"`
}

type datasetTable struct {
	Schema      string         `json:"schema"`
	Name        string         `json:"name"`
	Kind        string         `json:"kind,omitempty"`
	Description string         `json:"description,omitempty"`
	SQL         string         `json:"sql,omitempty"`
	Rows        *int64         `json:"rows,omitempty"`
	Fields      []datasetField `json:"fields,omitempty"`
}

type datasetField struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

// datasetJSON describes the live tables (with what the catalog knows of
// them) and then the views.
func (g *gen) datasetJSON(spec Spec) datasetDoc {
	doc := datasetDoc{Name: spec.Name, Title: spec.Title, Tables: []datasetTable{}}
	last := g.snapshots[len(g.snapshots)-1]
	for _, t := range g.tables {
		rows := last.Tables["main."+t.name].Rows
		dt := datasetTable{Schema: "main", Name: t.name, Rows: &rows}
		if t.comment != nil {
			dt.Description = *t.comment
		}
		for _, c := range t.cols {
			dl, _ := duckLakeType(c.typ)
			dt.Fields = append(dt.Fields, datasetField{Name: c.name, Type: dl, Nullable: !c.notNull})
		}
		doc.Tables = append(doc.Tables, dt)
	}
	for _, v := range g.views {
		doc.Tables = append(doc.Tables, datasetTable{Schema: "main", Name: v.name, Kind: "view", SQL: v.sql})
	}
	return doc
}

// writeJSON writes a document indented by two spaces, without a final
// newline, as the conformance repositories are written.
func writeJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.WriteFile(path, bytes.TrimRight(buf.Bytes(), "\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
