package lakegen

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/google/uuid"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestDemoRepository generates the demo repository and checks, with plain
// SQL on what was written, that every version follows the format and that
// reading the Parquet files as DuckLake does gives the rows the generator
// wrote, at every snapshot of every version.
func TestDemoRepository(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	res, err := Repository(ctx, dir, Demo())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Versions); got != 3 {
		t.Fatalf("versions = %d, want 3", got)
	}
	if last := res.Versions[2].SnapshotID; last != 15 {
		t.Fatalf("last snapshot = %d, want 15", last)
	}
	want := map[int64][2]int64{ // snapshot -> rows of measurements, stations (-1: no table)
		1: {300, -1}, 2: {500, -1}, 3: {500, 0}, 5: {500, 12}, 7: {600, 12}, 8: {540, 12},
		13: {590, 12}, 14: {506, 12}, 15: {506, 11},
	}
	for s, w := range want {
		st, _ := res.Snapshot(s)
		if got := st.Tables["main.measurements"].Rows; got != w[0] {
			t.Errorf("snapshot %d: measurements has %d rows, want %d", s, got, w[0])
		}
		got, ok := st.Tables["main.stations"]
		if (w[1] < 0) == ok || (ok && got.Rows != w[1]) {
			t.Errorf("snapshot %d: stations = %+v, want %d rows", s, got, w[1])
		}
	}

	checkRepository(t, dir, res, "demo")
}

// checkRepository checks every version of a generated repository.
func checkRepository(t *testing.T, dir string, res *Result, name string) {
	t.Helper()
	db := openDB(t)
	var repo map[string]any
	readJSON(t, filepath.Join(dir, "fdl.json"), &repo)
	if repo["data_dir"] != "data/" {
		t.Errorf("fdl.json data_dir = %v", repo["data_dir"])
	}
	parse(t, filepath.Join(dir, "fdl.json"), func(f string, b []byte) error { _, err := fdljson.ParseRepo(f, b); return err })
	var parent string
	for i, v := range res.Versions {
		t.Run(fmt.Sprintf("version%d", i+1), func(t *testing.T) {
			vdir := filepath.Join(dir, "versions", v.ID)
			checkVersionJSON(t, vdir, v, parent, name)
			// The project's own parsers of the FDL documents accept them.
			parse(t, filepath.Join(vdir, "version.json"), func(f string, b []byte) error { _, err := fdljson.ParseVersion(f, v.ID, b); return err })
			parse(t, filepath.Join(vdir, "dataset.json"), func(f string, b []byte) error { _, err := fdljson.ParseDataset(f, b); return err })
			parse(t, filepath.Join(vdir, "files.json"), func(f string, b []byte) error { _, err := fdljson.ParseFiles(f, b); return err })
			cat := filepath.Join(vdir, "ducklake.duckdb")
			exec(t, db, fmt.Sprintf("ATTACH '%s' AS c (READ_ONLY)", cat))
			defer exec(t, db, "DETACH c")
			checkLayout(t, db, v, res.DataPath)
			checkFiles(t, db, dir)
			checkFilesJSON(t, db, vdir)
			checkRows(t, db, dir, res, v)
		})
		parent = v.ID
	}
}

func parse(t *testing.T, path string, fn func(string, []byte) error) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fn(path, b); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}

func openDB(t *testing.T) *sql.Conn {
	t.Helper()
	db := testduck.Open(t, "")
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func exec(t *testing.T, db *sql.Conn, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// query returns every row as strings (NULL as "<nil>").
func query(t *testing.T, db *sql.Conn, q string, args ...any) [][]string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "<nil>"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

type versionDoc struct {
	FDL     string   `json:"fdl"`
	ID      string   `json:"id"`
	Seq     int      `json:"seq"`
	Parents []string `json:"parents"`
	Created string   `json:"created_at"`
	Author  struct{ Name string }
	Message string
	Catalog struct {
		Path, Storage, SHA256 string
		Bytes                 int64
	}
	Dataset struct {
		Path, SHA256 string
		Bytes        int64
	}
	Files struct {
		Path, SHA256 string
		Bytes        int64
	}
	DuckLake struct {
		Format     string  `json:"format"`
		SnapshotID int64   `json:"snapshot_id"`
		Snapshots  []int64 `json:"snapshots"`
	} `json:"ducklake"`
}

func checkVersionJSON(t *testing.T, vdir string, v VersionResult, parent, name string) {
	var doc versionDoc
	readJSON(t, filepath.Join(vdir, "version.json"), &doc)
	id, err := uuid.Parse(doc.ID)
	if err != nil || id.Version() != 7 || doc.ID != strings.ToLower(doc.ID) || doc.ID != filepath.Base(vdir) {
		t.Errorf("version id %q: not the lower-case UUIDv7 of its folder (%v)", doc.ID, err)
	}
	if doc.FDL != "0.1" || doc.Seq != v.Seq || doc.Author.Name == "" || doc.Message == "" || doc.Created != v.CreatedAt.Format(time.RFC3339) {
		t.Errorf("version.json header: %+v", doc)
	}
	// The id carries created_at's time: fdl-formats warns when the two lie
	// a day apart, and its until rule reads the later.
	if idTime, err := fdljson.IDTime(doc.ID); err != nil || !idTime.Equal(v.CreatedAt) {
		t.Errorf("id %s carries %v (%v), want created_at %s", doc.ID, idTime, err, doc.Created)
	}
	if (parent == "" && len(doc.Parents) != 0) || (parent != "" && !slices.Equal(doc.Parents, []string{parent})) {
		t.Errorf("parents = %v, want %q", doc.Parents, parent)
	}
	if doc.Catalog.Storage != "duckdb-v1.5.0" || doc.DuckLake.Format != "1.0" || doc.DuckLake.SnapshotID != v.SnapshotID ||
		!slices.Equal(doc.DuckLake.Snapshots, v.Snapshots[:]) {
		t.Errorf("catalog/ducklake fields: %+v %+v", doc.Catalog, doc.DuckLake)
	}
	for _, ref := range []struct {
		path, sum string
		bytes     int64
	}{{doc.Catalog.Path, doc.Catalog.SHA256, doc.Catalog.Bytes}, {doc.Dataset.Path, doc.Dataset.SHA256, doc.Dataset.Bytes}, {doc.Files.Path, doc.Files.SHA256, doc.Files.Bytes}} {
		b, err := os.ReadFile(filepath.Join(vdir, ref.path))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if int64(len(b)) != ref.bytes || hex.EncodeToString(sum[:]) != ref.sum {
			t.Errorf("%s: bytes/sha256 in version.json do not match the file", ref.path)
		}
	}
	var ds struct {
		Name   string `json:"name"`
		Tables []struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
		} `json:"tables"`
	}
	readJSON(t, filepath.Join(vdir, "dataset.json"), &ds)
	if ds.Name != name || len(ds.Tables) == 0 {
		t.Errorf("dataset.json: %+v", ds)
	}
}

// checkLayout: the catalog is exactly format 1.0 and holds nothing after
// the version's snapshot and no inlined data.
func checkLayout(t *testing.T, db *sql.Conn, v VersionResult, dataPath string) {
	layout := formats.Layout{}
	for _, r := range query(t, db, "SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = 'c' ORDER BY table_name, column_index") {
		layout[r[0]] = append(layout[r[0]], r[1])
	}
	stamp := query(t, db, "SELECT value FROM c.ducklake_metadata WHERE key = 'version' AND scope IS NULL")[0][0]
	got, err := formats.Detect(stamp, layout)
	if err != nil || got != formats.V1_0 {
		t.Fatalf("Detect = %v, %v; want 1.0", got, err)
	}
	if r := query(t, db, "SELECT max(snapshot_id), count(*) FROM c.ducklake_snapshot"); r[0][0] != fmt.Sprint(v.SnapshotID) || r[0][1] != fmt.Sprint(v.SnapshotID+1) {
		t.Errorf("snapshots: max, count = %v, want %d", r[0], v.SnapshotID)
	}
	for _, q := range []string{
		"SELECT count(*) FROM c.ducklake_snapshot_changes WHERE snapshot_id > %d",
		"SELECT count(*) FROM c.ducklake_data_file WHERE begin_snapshot > %[1]d OR end_snapshot > %[1]d",
		"SELECT count(*) FROM c.ducklake_column WHERE begin_snapshot > %[1]d OR end_snapshot > %[1]d",
		"SELECT count(*) FROM c.ducklake_inlined_data_tables WHERE %d >= 0",
	} {
		if n := query(t, db, fmt.Sprintf(q, v.SnapshotID))[0][0]; n != "0" {
			t.Errorf("%s: %s rows", q, n)
		}
	}
	if r := query(t, db, "SELECT value FROM c.ducklake_metadata WHERE key = 'data_path'"); r[0][0] != dataPath {
		t.Errorf("data_path = %q", r[0][0])
	}
	// Every snapshot's changes use tokens the format knows.
	for _, r := range query(t, db, "SELECT changes_made FROM c.ducklake_snapshot_changes") {
		for _, tok := range strings.Split(r[0], ",") {
			if kind, _, _ := strings.Cut(tok, ":"); !formats.V1_0.SupportsChangeToken(kind) {
				t.Errorf("unknown change token %q", tok)
			}
		}
	}
}

func tablePaths(t *testing.T, db *sql.Conn, root string) map[string]string {
	out := map[string]string{}
	for _, r := range query(t, db, `SELECT DISTINCT t.table_id, s.path || t.path FROM c.ducklake_table t JOIN c.ducklake_schema s USING (schema_id)`) {
		out[r[0]] = filepath.Join(root, "data", filepath.FromSlash(r[1]))
	}
	return out
}

// checkFiles: every data and delete file the catalog names exists with the
// recorded size, row count and footer size, and carries the right field ids.
func checkFiles(t *testing.T, db *sql.Conn, root string) {
	dirs := tablePaths(t, db, root)
	for _, r := range query(t, db, "SELECT table_id, data_file_id, path, file_size_bytes, record_count, footer_size, begin_snapshot FROM c.ducklake_data_file ORDER BY data_file_id") {
		path := filepath.Join(dirs[r[0]], filepath.FromSlash(r[2]))
		checkParquet(t, db, path, r[3], r[4], r[5])
		// Field ids and names equal the column rows visible when the file was written.
		got := query(t, db, "SELECT field_id, name FROM parquet_schema(?) WHERE field_id IS NOT NULL ORDER BY field_id", path)
		want := query(t, db, `SELECT column_id, column_name FROM c.ducklake_column WHERE table_id = ? AND begin_snapshot <= ?
			AND (end_snapshot IS NULL OR end_snapshot > ?) ORDER BY column_id`, r[0], r[6], r[6])
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: field ids %v, want %v", path, got, want)
		}
	}
	for _, r := range query(t, db, "SELECT table_id, path, file_size_bytes, delete_count, footer_size, partial_max IS NOT NULL FROM c.ducklake_delete_file ORDER BY delete_file_id") {
		path := filepath.Join(dirs[r[0]], filepath.FromSlash(r[1]))
		checkParquet(t, db, path, r[2], r[3], r[4])
		var ids []string
		for _, f := range query(t, db, "SELECT field_id FROM parquet_schema(?) WHERE field_id IS NOT NULL", path) {
			ids = append(ids, f[0])
		}
		want := []string{"2147483646", "2147483645"}
		if r[5] == "true" {
			want = append(want, "2147483539")
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%s: delete file field ids %v, want %v", path, ids, want)
		}
	}
}

func checkParquet(t *testing.T, db *sql.Conn, path, size, rows, footer string) {
	st, err := os.Stat(path)
	if err != nil {
		t.Errorf("catalog names a missing file: %v", err)
		return
	}
	if fmt.Sprint(st.Size()) != size {
		t.Errorf("%s: %d bytes, catalog says %s", path, st.Size(), size)
	}
	r := query(t, db, "SELECT num_rows, footer_size FROM parquet_file_metadata(?)", path)
	if r[0][0] != rows || r[0][1] != footer {
		t.Errorf("%s: rows, footer = %v, catalog says %s, %s", path, r[0], rows, footer)
	}
}

// checkFilesJSON: files.json lists exactly the live data files and their
// live delete files.
func checkFilesJSON(t *testing.T, db *sql.Conn, vdir string) {
	var doc struct {
		Tables map[string]struct {
			Files []struct {
				Path        string `json:"path"`
				Rows        int64  `json:"rows"`
				Bytes       int64  `json:"bytes"`
				FooterBytes int64  `json:"footer_bytes"`
				Deletes     *struct {
					Path  string `json:"path"`
					Rows  int64  `json:"rows"`
					Bytes int64  `json:"bytes"`
				} `json:"deletes"`
			} `json:"files"`
			RenamedColumns bool `json:"renamed_columns"`
		} `json:"tables"`
	}
	readJSON(t, filepath.Join(vdir, "files.json"), &doc)
	var got []string
	for name, tab := range doc.Tables {
		for _, f := range tab.Files {
			line := fmt.Sprintf("%s %s %d %d %d", name, f.Path, f.Rows, f.Bytes, f.FooterBytes)
			if f.Deletes != nil {
				line += fmt.Sprintf(" %s %d %d", f.Deletes.Path, f.Deletes.Rows, f.Deletes.Bytes)
			}
			got = append(got, line)
		}
	}
	var want []string
	for _, r := range query(t, db, `
SELECT 'main.' || t.table_name, s.path || t.path || f.path, f.record_count, f.file_size_bytes, f.footer_size,
       s.path || t.path || d.path, d.delete_count, d.file_size_bytes
FROM c.ducklake_data_file f
JOIN c.ducklake_table t ON t.table_id = f.table_id AND t.end_snapshot IS NULL
JOIN c.ducklake_schema s ON s.schema_id = t.schema_id
LEFT JOIN c.ducklake_delete_file d ON d.data_file_id = f.data_file_id AND d.end_snapshot IS NULL
WHERE f.end_snapshot IS NULL`) {
		line := strings.Join(r[:5], " ")
		if r[5] != "<nil>" {
			line += " " + strings.Join(r[5:], " ")
		}
		want = append(want, line)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("files.json:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range query(t, db, `SELECT 'main.' || t.table_name, EXISTS (SELECT 1 FROM c.ducklake_column c WHERE c.table_id = t.table_id
		GROUP BY c.column_id HAVING count(DISTINCT c.column_name) > 1) FROM c.ducklake_table t WHERE t.end_snapshot IS NULL`) {
		if got := doc.Tables[r[0]].RenamedColumns; fmt.Sprint(got) != r[1] {
			t.Errorf("%s: renamed_columns = %v, want %s", r[0], got, r[1])
		}
	}
}

// duckdbType turns DuckLake column rows back into a DuckDB type.
func duckdbType(t *testing.T, db *sql.Conn, tid, cid, typ string, snap int64) string {
	simple := map[string]string{"int64": "BIGINT", "int32": "INTEGER", "varchar": "VARCHAR", "float64": "DOUBLE", "date": "DATE", "boolean": "BOOLEAN"}
	if s, ok := simple[typ]; ok {
		return s
	}
	if typ != "struct" && typ != "list" {
		t.Fatalf("type %s not handled by the test", typ)
	}
	var fields []string
	for _, r := range query(t, db, `SELECT column_id, column_name, column_type FROM c.ducklake_column WHERE table_id = ? AND parent_column = ?
		AND begin_snapshot <= ? AND (end_snapshot IS NULL OR end_snapshot > ?) ORDER BY column_order`, tid, cid, snap, snap) {
		fields = append(fields, fmt.Sprintf("%q %s", r[1], duckdbType(t, db, tid, r[0], r[2], snap)))
	}
	if typ == "list" {
		return strings.SplitN(fields[0], " ", 2)[1] + "[]"
	}
	return "STRUCT(" + strings.Join(fields, ", ") + ")"
}

// checkRows reads every table at every snapshot of the version from the
// catalog and the Parquet files (matching columns by field id, filling
// initial_default, applying delete files) and compares with what the
// generator says it wrote.
func checkRows(t *testing.T, db *sql.Conn, root string, res *Result, v VersionResult) {
	dirs := tablePaths(t, db, root)
	for s := int64(0); s <= v.SnapshotID; s++ {
		expect, ok := res.Snapshot(s)
		if !ok {
			t.Fatalf("no result for snapshot %d", s)
		}
		tables := query(t, db, "SELECT table_id, table_name FROM c.ducklake_table WHERE begin_snapshot <= ? AND (end_snapshot IS NULL OR end_snapshot > ?)", s, s)
		if len(tables) != len(expect.Tables) {
			t.Errorf("snapshot %d: %d tables, want %d", s, len(tables), len(expect.Tables))
		}
		for _, tab := range tables {
			want := expect.Tables["main."+tab[1]]
			cols := query(t, db, `SELECT column_id, column_name, column_type, initial_default FROM c.ducklake_column WHERE table_id = ? AND parent_column IS NULL
				AND begin_snapshot <= ? AND (end_snapshot IS NULL OR end_snapshot > ?) ORDER BY column_order`, tab[0], s, s)
			var names, schema []string
			for _, c := range cols {
				names = append(names, c[1])
				schema = append(schema, fmt.Sprintf("%s: {name: '%s', type: '%s', default_value: NULL}", c[0], c[1], duckdbType(t, db, tab[0], c[0], c[2], s)))
			}
			if !slices.Equal(names, want.Columns) {
				t.Errorf("snapshot %d %s: columns %v, want %v", s, tab[1], names, want.Columns)
			}
			var got []string
			files := query(t, db, `SELECT f.path, d.path, d.partial_max IS NOT NULL FROM c.ducklake_data_file f
				LEFT JOIN (SELECT * FROM c.ducklake_delete_file WHERE begin_snapshot <= ? AND (end_snapshot IS NULL OR end_snapshot > ?)) d USING (data_file_id)
				WHERE f.table_id = ? AND f.begin_snapshot <= ? AND (f.end_snapshot IS NULL OR f.end_snapshot > ?) ORDER BY f.data_file_id`, s, s, tab[0], s, s)
			for _, f := range files {
				path := filepath.Join(dirs[tab[0]], filepath.FromSlash(f[0]))
				present := map[string]bool{}
				for _, r := range query(t, db, "SELECT field_id FROM parquet_schema(?) WHERE field_id IS NOT NULL", path) {
					present[r[0]] = true
				}
				var proj []string
				for i, c := range cols {
					if present[c[0]] {
						proj = append(proj, fmt.Sprintf("%q", c[1]))
					} else if c[3] != "<nil>" {
						proj = append(proj, fmt.Sprintf("CAST('%s' AS %s) AS %q", c[3], strings.Split(schema[i], "'")[3], c[1]))
					} else {
						proj = append(proj, fmt.Sprintf("NULL::%s AS %q", strings.Split(schema[i], "'")[3], c[1]))
					}
				}
				where := ""
				if f[1] != "<nil>" {
					del := filepath.Join(dirs[tab[0]], filepath.FromSlash(f[1]))
					cond := ""
					if f[2] == "true" {
						cond = fmt.Sprintf(" WHERE _ducklake_internal_snapshot_id <= %d", s)
					}
					where = fmt.Sprintf("WHERE file_row_number NOT IN (SELECT pos FROM read_parquet('%s')%s)", del, cond)
				}
				q := fmt.Sprintf("SELECT r::VARCHAR FROM (SELECT %s FROM read_parquet('%s', schema = MAP {%s}, file_row_number = true) %s ORDER BY file_row_number) r",
					strings.Join(proj, ", "), path, strings.Join(schema, ", "), where)
				for _, r := range query(t, db, q) {
					got = append(got, r[0])
				}
			}
			if int64(len(got)) != want.Rows || !slices.Equal(got, want.Data) {
				t.Errorf("snapshot %d %s: read %d rows, generator wrote %d; first read %q, first written %q",
					s, tab[1], len(got), want.Rows, first(got), first(want.Data))
			}
		}
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// TestLarge checks the benchmark repository on a small size: rows, files,
// delete files on the first half of the files.
func TestLarge(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	res, err := Large(ctx, dir, 100_000, 4)
	if err != nil {
		t.Fatal(err)
	}
	last := res.Snapshots[len(res.Snapshots)-1].Tables["main.big"].Rows
	if last != 100_000-50 {
		t.Errorf("rows at the last snapshot = %d, want %d", last, 100_000-50)
	}
	db := openDB(t)
	exec(t, db, fmt.Sprintf("ATTACH '%s' AS c (READ_ONLY)", filepath.Join(dir, "versions", res.Versions[0].ID, "ducklake.duckdb")))
	r := query(t, db, "SELECT count(*), sum(record_count)::BIGINT FROM c.ducklake_data_file")
	if r[0][0] != "4" || r[0][1] != "100000" {
		t.Errorf("data files, rows = %v", r[0])
	}
	r = query(t, db, "SELECT count(*), sum(delete_count)::BIGINT FROM c.ducklake_delete_file")
	if r[0][0] != "2" || r[0][1] != "50" {
		t.Errorf("delete files, deletes = %v", r[0])
	}
	checkFiles(t, db, dir)
}

func TestRepositoryRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Repository(context.Background(), dir, Demo()); err == nil {
		t.Fatal("wrote into a non-empty folder")
	}
}

// TestCases generates small repositories that exercise one behaviour each
// and checks them like the demo, plus what DuckLake writes for that case.
func TestCases(t *testing.T) {
	ints := []Column{{Name: "i", Type: "INTEGER"}, {Name: "k", Type: "VARCHAR"}}
	create := CreateTable{Table: "t", Columns: ints}
	two := Snapshot{create, Insert{Table: "t", Files: 2, Select: "SELECT i, 'k' || (i % 3) FROM range(20) t(i)"}}
	cases := []struct {
		name      string
		snapshots []Snapshot
		// sql must return one row whose text equals want, on the last catalog.
		sql, want string
	}{
		{"whole file deleted", []Snapshot{two, {Delete{Table: "t", Where: "i < 10"}}, {Delete{Table: "t", Where: "i = 15"}}},
			"SELECT (SELECT end_snapshot FROM c.ducklake_data_file WHERE data_file_id = 0) || ',' || (SELECT count(*) FROM c.ducklake_delete_file)", "2,1"},
		{"whole file after a delete", []Snapshot{two, {Delete{Table: "t", Where: "i = 1"}}, {Delete{Table: "t", Where: "i < 10"}}},
			"SELECT string_agg(data_file_id || ':' || end_snapshot, ',') FROM (SELECT data_file_id, end_snapshot FROM c.ducklake_delete_file UNION ALL SELECT data_file_id, end_snapshot FROM c.ducklake_data_file WHERE end_snapshot IS NOT NULL ORDER BY ALL)", "0:3,0:3"},
		{"three deletes on one file", []Snapshot{two, {Delete{Table: "t", Where: "i = 1"}}, {Delete{Table: "t", Where: "i = 2"}}, {Delete{Table: "t", Where: "i IN (3, 4)"}}},
			"SELECT begin_snapshot || ',' || partial_max || ',' || delete_count || ',' || (SELECT count(*) FROM c.ducklake_files_scheduled_for_deletion) FROM c.ducklake_delete_file", "2,4,4,2"},
		{"null partition key", []Snapshot{{create}, {PartitionBy{Table: "t", Columns: []string{"k"}}},
			{Insert{Table: "t", Select: "SELECT i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'k' || (i % 2) END FROM range(12) t(i)"}}},
			"SELECT string_agg(coalesce(v.partition_value, 'NULL') || '=' || (f.path LIKE 'k=' || coalesce(v.partition_value, '__HIVE_DEFAULT_PARTITION__') || '/%')::VARCHAR, ',' ORDER BY f.data_file_id) FROM c.ducklake_data_file f JOIN c.ducklake_file_partition_value v USING (data_file_id)",
			"k0=true,k1=true,NULL=true"},
		{"add column without default, list column", []Snapshot{two,
			{AddColumn{Table: "t", Column: Column{Name: "l", Type: "LIST", Fields: []Column{{Type: "BIGINT"}}}}},
			{Insert{Table: "t", Select: "SELECT 100, 'x', [1, 2, NULL]"}}},
			"SELECT string_agg(column_id || ':' || column_name || ':' || coalesce(parent_column::VARCHAR, '-'), ',' ORDER BY column_id) FROM c.ducklake_column", "1:i:-,2:k:-,3:l:-,4:element:3"},
		{"comment column and table twice", []Snapshot{two, {Comment{Table: "t", Text: "one"}}, {Comment{Table: "t", Column: "k", Text: "key"}}, {Comment{Table: "t", Text: "two"}}},
			"SELECT (SELECT string_agg(value || ':' || begin_snapshot || ':' || coalesce(end_snapshot::VARCHAR, '-'), ',' ORDER BY begin_snapshot) FROM c.ducklake_tag) || '|' || (SELECT count(*) FROM c.ducklake_schema_versions) || '|' || (SELECT max(schema_version) FROM c.ducklake_snapshot)",
			"one:2:4,two:4:-|1|4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			res, err := Repository(context.Background(), dir, Spec{Name: "case", RecordRows: true,
				Versions: []Version{{Snapshots: tc.snapshots[:1]}, {Snapshots: tc.snapshots[1:]}}})
			if err != nil {
				t.Fatal(err)
			}
			checkRepository(t, dir, res, "case")
			db := openDB(t)
			exec(t, db, fmt.Sprintf("ATTACH '%s' AS c (READ_ONLY)", filepath.Join(dir, "versions", res.Versions[1].ID, "ducklake.duckdb")))
			if got := query(t, db, tc.sql)[0][0]; got != tc.want {
				t.Errorf("%s\n= %q, want %q", tc.sql, got, tc.want)
			}
		})
	}
}

// BenchmarkLarge writes the benchmark repository at ten million rows in
// eight files (go test -run XXX -bench Large ./lakegen).
func BenchmarkLarge(b *testing.B) {
	for b.Loop() {
		dir := b.TempDir()
		if _, err := Large(context.Background(), dir, 10_000_000, 8); err != nil {
			b.Fatal(err)
		}
	}
}

// TestVersionID: a version's id carries its creation time, and sorts after
// the id made before it even when both were made for the same millisecond.
func TestVersionID(t *testing.T) {
	at := time.Date(2026, 7, 1, 0, 0, 1, 0, time.UTC)
	first, err := versionID(at, "")
	if err != nil {
		t.Fatal(err)
	}
	second, err := versionID(at, first)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   string
		want time.Time
	}{{first, at}, {second, at.Add(time.Millisecond)}} {
		if got, err := fdljson.IDTime(tc.id); err != nil || !got.Equal(tc.want) {
			t.Errorf("id %s carries %v (%v), want %v", tc.id, got, err, tc.want)
		}
	}
	if second <= first {
		t.Errorf("ids %s then %s do not sort by creation", first, second)
	}
	if id, err := versionID(time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), ""); err == nil {
		t.Errorf("a time before 1970 gave id %s, want an error", id)
	}
}

func TestRefusesEmptySnapshot(t *testing.T) {
	spec := Spec{Name: "x", Versions: []Version{{Snapshots: []Snapshot{
		{CreateTable{Table: "t", Columns: []Column{{Name: "i", Type: "INTEGER"}}}},
		{Delete{Table: "t", Where: "i = 1"}},
	}}}}
	if _, err := Repository(context.Background(), t.TempDir(), spec); err == nil || !strings.Contains(err.Error(), "changes nothing") {
		t.Fatalf("err = %v, want a snapshot that changes nothing refused", err)
	}
}
