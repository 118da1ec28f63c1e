package fdljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "update .golden files")

// golden compares got with testdata/<name>.golden.json.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden: %v (run `go test ./fdljson -update`)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n got %s\nwant %s\nrun `go test ./fdljson -update` and review the diff", path, got, want)
	}
}

// edit returns base with JSON-path edits applied: a nil value deletes the key.
func edit(t *testing.T, base string, edits map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(base), &m); err != nil {
		t.Fatal(err)
	}
	for path, v := range edits {
		parts := strings.Split(path, ".")
		cur := m
		for _, p := range parts[:len(parts)-1] {
			cur = cur[p].(map[string]any)
		}
		last := parts[len(parts)-1]
		if v == nil {
			delete(cur, last)
		} else {
			cur[last] = v
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const fdlJSON = `{
  "fdl": "0.1", "data_dir": "data/",
  "formats": [ { "ducklake": "0.3", "duckdb": ">= 1.4.0, < 1.5.0", "until": "2026-06-30" },
               { "ducklake": "1.0", "duckdb": ">= 1.5.2" },
               { "ducklake": "1.1", "duckdb": ">= 2.0.0", "until": "2027-01-01T12:00:00+09:00", "note": "ignored" } ],
  "publisher": "ignored"
}`

func TestParseRepo(t *testing.T) {
	r, err := ParseRepo("fdl.json", []byte(fdlJSON))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "fdl", r)
	if got, want := r.Formats[0].UntilTime, time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("until = %v, want %v", got, want)
	}
	if got, want := r.Formats[2].UntilTime, time.Date(2027, 1, 1, 3, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("until = %v, want %v", got, want)
	}
	if o, _ := r.Oldest(nil); o.DuckLake != "0.3" {
		t.Errorf("Oldest = %s, want 0.3", o.DuckLake)
	}
	june30 := r.Formats[0].UntilTime
	for _, tc := range []struct {
		created, now time.Time
		want         bool
	}{
		{june30.Add(-time.Hour), june30.Add(-time.Second), false},
		{june30.Add(-time.Hour), june30, true},
		{june30, june30.Add(-time.Second), true},
		{june30.Add(time.Hour), june30.Add(-time.Second), true},
	} {
		if got := r.Formats[0].ExpiredFor(tc.created, tc.now); got != tc.want {
			t.Errorf("ExpiredFor(%v, %v) = %v, want %v", tc.created, tc.now, got, tc.want)
		}
	}
	if r.Formats[1].ExpiredFor(june30, june30.AddDate(10, 0, 0)) {
		t.Error("a format without until never expires")
	}
}

// TestUntilAtZeroTime: an until at Go's zero time (0001-01-01T00:00:00Z,
// also written with an offset) is an until long past, not "no until":
// HasUntil tested UntilTime.IsZero(), so such a format never expired and
// backfill went on writing it.
func TestUntilAtZeroTime(t *testing.T) {
	now := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	for _, until := range []string{"0001-01-01", "0001-01-01T00:00:00Z", "0001-01-01T09:00:00+09:00"} {
		r, err := ParseRepo("fdl.json", []byte(`{"fdl": "0.1", "formats": [{"ducklake": "1.0", "until": "`+until+`"}]}`))
		if err != nil {
			t.Fatalf("until %s: %v", until, err)
		}
		if f := r.Formats[0]; !f.HasUntil() || !f.ExpiredAt(now) || !f.ExpiredFor(now.AddDate(-1, 0, 0), now) {
			t.Errorf("until %s: HasUntil %v, ExpiredAt(%s) %v: want an until long past", until, f.HasUntil(), now.Format(time.DateOnly), f.ExpiredAt(now))
		}
	}
}

func TestParseRepoDefaults(t *testing.T) {
	r, err := ParseRepo("fdl.json", []byte(`{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.DataDir != "data/" || r.Formats[0].DuckDB != r.Formats[0].Version.DuckDB || r.Formats[0].DuckDBFrom != "registry" {
		t.Errorf("defaults not applied: %+v", r)
	}
	r, err = ParseRepo("fdl.json", []byte(`{"fdl":"0.1","data_dir":"files","formats":[{"ducklake":"1.0"}]}`))
	if err != nil || r.DataDir != "files/" {
		t.Errorf("data_dir = %v, %v; want files/", r, err)
	}
}

func TestParseRepoErrors(t *testing.T) {
	for _, tc := range []struct {
		name, json, want string
	}{
		{"not_json", `{`, "fdl.json: parse JSON at line 1, column 1: unexpected end of JSON input"},
		// A syntax error names its line and column (it named neither).
		{"trailing_comma", "\n  {\"fdl\": \"0.1\",\n   \"formats\": [{\"ducklake\": \"1.0\",}]}", "fdl.json: parse JSON at line 3, column 35: invalid character '}' looking for beginning of object key string"},
		{"cut_short", "{\"fdl\": \"0.1\",\n\"formats\": [", "fdl.json: parse JSON at line 2, column 12: unexpected end of JSON input"},
		{"not_object", `[]`, "fdl.json: the file is not a JSON object"},
		// JSON's white space is four characters: a no-break space (or any
		// other Unicode space) around the object was taken for one, so
		// check passed an fdl.json that strict JSON readers refuse.
		{"nbsp_before", "\u00a0{\"fdl\":\"0.1\",\"formats\":[{\"ducklake\":\"1.0\"}]}", "fdl.json: parse JSON at line 1, column 1: invalid character"},
		{"nbsp_after", "{\"fdl\":\"0.1\",\"formats\":[{\"ducklake\":\"1.0\"}]}\n\u00a0", "fdl.json: parse JSON at line 2, column 1: invalid character"},
		// A byte order mark (Windows editors) said "not a JSON object".
		{"bom", "\ufeff{\"fdl\":\"0.1\",\"formats\":[{\"ducklake\":\"1.0\"}]}", "fdl.json: the file starts with a UTF-8 byte order mark"},
		{"missing_fdl", `{"formats":[{"ducklake":"1.0"}]}`, "fdl.json: fdl: missing"},
		{"missing_formats", `{"fdl":"0.1"}`, "fdl.json: formats: missing"},
		{"empty_formats", `{"fdl":"0.1","formats":[]}`, "formats: empty"},
		{"formats_not_list", `{"fdl":"0.1","formats":{}}`, "formats: want a list"},
		{"unknown_format", `{"fdl":"0.1","formats":[{"ducklake":"0.9"}]}`, `formats[0].ducklake: unknown format version "0.9"`},
		// A DuckDB release given as the format: which format it reads.
		{"duckdb_release_as_format", `{"fdl":"0.1","formats":[{"ducklake":"2.0"}]}`, `formats[0].ducklake: unknown format version "2.0" (known: 0.1, 0.2, 0.3-dev1, 0.3, 0.4-dev1, 0.4, 1.0, 1.1-dev1, 1.1); DuckDB 2.0 reads DuckLake format 1.1: ducklake names the format, duckdb the range of DuckDB releases`},
		{"duckdb_patch_as_format", `{"fdl":"0.1","formats":[{"ducklake":"1.5.2"}]}`, `DuckDB 1.5.2 reads DuckLake format 1.0:`},
		{"dev_format", `{"fdl":"0.1","formats":[{"ducklake":"1.1-dev1"}]}`, `formats[0].ducklake: 1.1-dev1 is a development layout`},
		{"duplicate_format", `{"fdl":"0.1","formats":[{"ducklake":"1.0"},{"ducklake":"0.4"},{"ducklake":"1.0"}]}`, "formats[2].ducklake: format 1.0 declared twice (also formats[0])"},
		{"missing_ducklake", `{"fdl":"0.1","formats":[{"duckdb":">= 1.0"}]}`, "formats[0].ducklake: missing"},
		{"ducklake_number", `{"fdl":"0.1","formats":[{"ducklake":1.0}]}`, "formats[0].ducklake: want a string, got 1.0"},
		{"bad_constraint", `{"fdl":"0.1","formats":[{"ducklake":"1.0","duckdb":">= banana"}]}`, "formats[0].duckdb: bad version constraint"},
		{"duckdb_wider_than_format", `{"fdl":"0.1","formats":[{"ducklake":"1.1","duckdb":">= 1.5.2"}]}`, `formats[0].duckdb: ">= 1.5.2" admits DuckDB 1.5.2, which does not open format 1.1 read-only (its readers: DuckDB >= 2.0.0)`},
		{"duckdb_below_format", `{"fdl":"0.1","formats":[{"ducklake":"0.4","duckdb":">= 1.3.0, < 1.5.2"}]}`, `formats[0].duckdb: ">= 1.3.0, < 1.5.2" admits DuckDB 1.3.0, which does not open format 0.4`},
		{"duckdb_empty", `{"fdl":"0.1","formats":[{"ducklake":"1.0","duckdb":">= 1.5.2, < 1.5.0"}]}`, `formats[0].duckdb: ">= 1.5.2, < 1.5.0" admits no DuckDB release: format 1.0 would have no reader`},
		{"duckdb_empty_exclusive", `{"fdl":"0.1","formats":[{"ducklake":"1.0","duckdb":"> 1.5.2, < 1.5.3"}]}`, `formats[0].duckdb: "> 1.5.2, < 1.5.3" admits no DuckDB release`},
		{"bad_until", `{"fdl":"0.1","formats":[{"ducklake":"1.0","until":"30/06/2026"}]}`, `formats[0].until: "30/06/2026" is neither`},
		{"bad_until_day", `{"fdl":"0.1","formats":[{"ducklake":"1.0","until":"2026-02-30"}]}`, `formats[0].until`},
		{"absolute_data_dir", `{"fdl":"0.1","data_dir":"/srv/data","formats":[{"ducklake":"1.0"}]}`, "data_dir: \"/srv/data\" must be a relative path"},
		{"escaping_data_dir", `{"fdl":"0.1","data_dir":"../data","formats":[{"ducklake":"1.0"}]}`, "data_dir: \"../data\" must not contain '.', '..' or empty parts"},
		{"percent_data_dir", `{"fdl":"0.1","data_dir":"x%20y/data/","formats":[{"ducklake":"1.0"}]}`, "data_dir: \"x%20y/data/\" must not hold %"},
		{"escaped_dotdot_data_dir", `{"fdl":"0.1","data_dir":"x/%2e%2e/data/","formats":[{"ducklake":"1.0"}]}`, "data_dir: \"x/%2e%2e/data/\" must not contain '.', '..' or empty parts, plain or escaped"},
		{"dot_data_dir", `{"fdl":"0.1","data_dir":"./data/","formats":[{"ducklake":"1.0"}]}`, "data_dir: \"./data/\" must not contain '.', '..' or empty parts, plain or escaped: its relative path has a . part"},
		{"query_data_dir", `{"fdl":"0.1","data_dir":"data?x/","formats":[{"ducklake":"1.0"}]}`, "data_dir: \"data?x/\" must not hold ? or #"},
		{"tab_data_dir", `{"fdl":"0.1","data_dir":"da\tta/","formats":[{"ducklake":"1.0"}]}`, "data_dir: \"da\\tta/\" must not hold control characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRepo("fdl.json", []byte(tc.json))
			if err == nil {
				t.Fatalf("ParseRepo = nil error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseRepo error = %q, want it to contain %q", err, tc.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not match ErrInvalid", err)
			}
		})
	}
}

const versionJSON = `{
  "fdl": "0.1",
  "id": "019a3c4e-7b21-7f3a-9c55-2f0d8e1a4b6c",
  "seq": 12,
  "parents": ["019a2f10-0c4d-7e88-a1b2-55c0d9e3f7aa"],
  "created_at": "2026-10-30T09:00:00Z",
  "author": {"name": "example", "email": "a@example.org", "team": "ignored"},
  "message": "Add the final 2025 figures",
  "catalog": {"path": "ducklake.duckdb", "storage": "duckdb-v1.5.0", "bytes": 4194304,
              "sha256": "9f2c000000000000000000000000000000000000000000000000000000000000"},
  "dataset": {"path": "dataset.json", "bytes": 2048,
              "sha256": "4c1d000000000000000000000000000000000000000000000000000000000000"},
  "ducklake": {"format": "1.0", "snapshot_id": 345, "snapshots": [301, 345]},
  "files": {"path": "files.json", "bytes": 1536,
            "sha256": "7a0e000000000000000000000000000000000000000000000000000000000000"},
  "changes": [{"table": "main.population", "kind": "add_column", "column": "note", "breaking": false}],
  "inputs": [{"source_id": "example:population-2025", "url": "https://example.org/population-2025.csv"}],
  "annotations": {"example-host": {"pinned": true}},
  "future_field": {"anything": 1}
}`

const id = "019a3c4e-7b21-7f3a-9c55-2f0d8e1a4b6c"

func TestParseVersion(t *testing.T) {
	v, err := ParseVersion("versions/"+id+"/version.json", id, []byte(versionJSON))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "version", v)
	if got, want := v.Parent(), "019a2f10-0c4d-7e88-a1b2-55c0d9e3f7aa"; got != want {
		t.Errorf("Parent() = %s, want %s", got, want)
	}
}

// TestIDTime reads the creation time a UUIDv7 carries (its first 48 bits,
// Unix milliseconds); anything else is refused.
func TestIDTime(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want time.Time // zero: refused
	}{
		{id, time.Date(2025, 10, 31, 22, 6, 7, 649e6, time.UTC)}, // the spec's example
		{"01a18fb2-48c5-76b2-8724-28c2c03f2c6b", time.Date(2026, 10, 31, 2, 3, 8, 357e6, time.UTC)},
		{"00000000-0000-7000-8000-000000000000", time.Unix(0, 0).UTC()},
		{"ffffffff-ffff-7fff-bfff-ffffffffffff", time.UnixMilli(1<<48 - 1).UTC()},
		{"019a3c4e-7b21-4f3a-9c55-2f0d8e1a4b6c", time.Time{}}, // UUIDv4
		{"019a3c4e-7b21-7f3a-cc55-2f0d8e1a4b6c", time.Time{}}, // variant 110
		{"019A3C4E-7B21-7F3A-9C55-2F0D8E1A4B6C", time.Time{}}, // upper case
		{"019a3c4e7b217f3a9c552f0d8e1a4b6c", time.Time{}},     // no hyphens
		{"", time.Time{}},
	} {
		got, err := IDTime(tc.id)
		switch {
		case tc.want.IsZero() && err == nil:
			t.Errorf("IDTime(%q) = %v, want an error", tc.id, got)
		case !tc.want.IsZero() && (err != nil || !got.Equal(tc.want) || got.Location() != time.UTC):
			t.Errorf("IDTime(%q) = %v, %v; want %v", tc.id, got, err, tc.want)
		}
	}
}

// TestVersionCreated: the until rule's creation time is the later of
// created_at and the id's time, so a created_at set back is not believed.
func TestVersionCreated(t *testing.T) {
	idTime := time.Date(2025, 10, 31, 22, 6, 7, 649e6, time.UTC)
	for _, tc := range []struct {
		created string
		want    time.Time
	}{
		{"2026-10-30T09:00:00Z", time.Date(2026, 10, 30, 9, 0, 0, 0, time.UTC)},
		{"2025-10-31T22:06:07Z", idTime},
		{"2001-01-01T00:00:00Z", idTime},
	} {
		v, err := ParseVersion("version.json", id, edit(t, versionJSON, map[string]any{"created_at": tc.created}))
		if err != nil {
			t.Fatal(err)
		}
		if !v.IDTime.Equal(idTime) || !v.Created().Equal(tc.want) {
			t.Errorf("created_at %s: IDTime %v, Created %v; want %v, %v", tc.created, v.IDTime, v.Created(), idTime, tc.want)
		}
	}
}

func TestParseVersionAccepts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edits map[string]any
	}{
		{"no_parents", map[string]any{"parents": []any{}, "seq": 1}},
		{"merge_parents", map[string]any{"parents": []any{"019a2f10-0c4d-7e88-a1b2-55c0d9e3f7aa", "019a2f10-0c4d-7e88-b1b2-55c0d9e3f7ab", "019a2f10-0c4d-7e88-81b2-55c0d9e3f7ac"}}},
		{"no_dataset", map[string]any{"dataset": nil}},
		{"no_files", map[string]any{"files": nil}},
		{"no_optional", map[string]any{"changes": nil, "inputs": nil, "annotations": nil, "ducklake.snapshots": nil}},
		{"dev_format", map[string]any{"ducklake.format": "1.1-dev1"}},
		{"fractional_seconds", map[string]any{"created_at": "2026-10-30T09:00:00.123456Z"}},
		// ISO 8601 forms other than RFC 3339's (the spec says "UTC, ISO
		// 8601"); they were refused as "not an ISO 8601 time" (exit 6).
		{"no_seconds", map[string]any{"created_at": "2026-10-30T09:00Z"}},
		{"basic_form", map[string]any{"created_at": "20261030T090000Z"}},
		{"basic_form_no_seconds", map[string]any{"created_at": "20261030T0900Z"}},
		{"zero_offset", map[string]any{"created_at": "2026-10-30T09:00:00+00:00"}},
		{"zero_offset_basic", map[string]any{"created_at": "20261030T090000+0000"}},
		{"zero_offset_hours", map[string]any{"created_at": "2026-10-30T09:00:00+00"}},
		{"empty_message", map[string]any{"message": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseVersion("version.json", id, edit(t, versionJSON, tc.edits)); err != nil {
				t.Errorf("ParseVersion: %v", err)
			}
		})
	}
}

func TestParseVersionErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edits map[string]any
		dir   string
		want  string
	}{
		{"missing_fdl", map[string]any{"fdl": nil}, id, "version.json: fdl: missing (required)"},
		{"missing_id", map[string]any{"id": nil}, id, "id: missing"},
		{"id_not_dir", nil, "019a3c4e-7b21-7f3a-9c55-2f0d8e1a4b6d", `id: "019a3c4e-7b21-7f3a-9c55-2f0d8e1a4b6c" differs from its folder`},
		{"id_upper", map[string]any{"id": strings.ToUpper(id)}, "", "id: \"019A3C4E-7B21-7F3A-9C55-2F0D8E1A4B6C\" must be lower case"},
		{"id_uuid4", map[string]any{"id": "019a3c4e-7b21-4f3a-9c55-2f0d8e1a4b6c"}, "", "is not a UUIDv7"},
		{"id_bad_variant", map[string]any{"id": "019a3c4e-7b21-7f3a-cc55-2f0d8e1a4b6c"}, "", "is not a UUIDv7"},
		{"id_no_hyphens", map[string]any{"id": "019a3c4e7b217f3a9c552f0d8e1a4b6c"}, "", "is not a UUIDv7"},
		{"missing_seq", map[string]any{"seq": nil}, id, "seq: missing"},
		{"seq_zero", map[string]any{"seq": 0}, id, "seq: 0: must be 1 or more"},
		{"seq_string", map[string]any{"seq": "12"}, id, `seq: want an integer, got "12"`},
		{"missing_parents", map[string]any{"parents": nil}, id, "parents: missing"},
		{"parents_string", map[string]any{"parents": "019a2f10-0c4d-7e88-a1b2-55c0d9e3f7aa"}, id, "parents: want a list of strings"},
		{"bad_parent", map[string]any{"parents": []any{"019a2f10-0c4d-7e88-a1b2-55c0d9e3f7aa", "x"}}, id, `parents[1]: "x" is not a UUIDv7`},
		{"self_parent", map[string]any{"parents": []any{id}}, id, "parents[0]: a version cannot be its own parent"},
		{"missing_created_at", map[string]any{"created_at": nil}, id, "created_at: missing"},
		{"bad_created_at", map[string]any{"created_at": "yesterday"}, id, `created_at: "yesterday" is not`},
		{"created_at_not_utc", map[string]any{"created_at": "2026-10-30T09:00:00+09:00"}, id, "must be UTC"},
		{"created_at_basic_not_utc", map[string]any{"created_at": "20261030T090000+0900"}, id, "must be UTC"},
		{"created_at_date_only", map[string]any{"created_at": "2026-10-30"}, id, "with a time of day"},
		{"missing_author", map[string]any{"author": nil}, id, "author: missing"},
		{"missing_author_name", map[string]any{"author.name": nil}, id, "author.name: missing"},
		{"author_string", map[string]any{"author": "me"}, id, "author: the value is not a JSON object"},
		{"missing_message", map[string]any{"message": nil}, id, "message: missing"},
		{"missing_catalog", map[string]any{"catalog": nil}, id, "catalog: missing"},
		{"missing_catalog_sha", map[string]any{"catalog.sha256": nil}, id, "catalog.sha256: missing"},
		{"bad_catalog_sha", map[string]any{"catalog.sha256": "9f2c…"}, id, "catalog.sha256: \"9f2c…\": want 64 lower-case hex digits"},
		{"negative_bytes", map[string]any{"catalog.bytes": -1}, id, "catalog.bytes: -1: must not be negative"},
		{"missing_storage", map[string]any{"catalog.storage": nil}, id, "catalog.storage: missing"},
		{"catalog_escapes", map[string]any{"catalog.path": "../other/ducklake.duckdb"}, id, "catalog.path"},
		{"catalog_query", map[string]any{"catalog.path": "cat.db?x"}, id, `catalog.path: "cat.db?x" must not hold ? or #`},
		{"catalog_fragment", map[string]any{"catalog.path": "cat.db#x"}, id, `catalog.path: "cat.db#x" must not hold ? or #`},
		{"catalog_line_break", map[string]any{"catalog.path": "x\nCOPY (SELECT 1) TO 'f.csv';--.duckdb"}, id, `catalog.path: "x\nCOPY (SELECT 1) TO 'f.csv';--.duckdb" must not hold control characters`},
		{"catalog_percent", map[string]any{"catalog.path": "cat%2Edb"}, id, `catalog.path: "cat%2Edb" must not hold %`},
		{"catalog_in_catalogs", map[string]any{"catalog.path": "catalogs/1.0.duckdb"}, id, `catalog.path: "catalogs/1.0.duckdb" is under catalogs/`},
		{"dataset_percent", map[string]any{"dataset.path": "data%73et.json"}, id, `dataset.path: "data%73et.json" must not hold %`},
		{"dataset_no_sha", map[string]any{"dataset.sha256": nil}, id, "dataset.sha256: missing"},
		{"missing_ducklake", map[string]any{"ducklake": nil}, id, "ducklake: missing"},
		{"unknown_ducklake_format", map[string]any{"ducklake.format": "7.0"}, id, "ducklake.format:"},
		{"missing_snapshot", map[string]any{"ducklake.snapshot_id": nil}, id, "ducklake.snapshot_id: missing"},
		{"bad_snapshots", map[string]any{"ducklake.snapshots": []any{345, 301}}, id, "ducklake.snapshots"},
		{"files_bad_path", map[string]any{"files.path": "/etc/passwd"}, id, "files.path"},
		{"change_no_kind", map[string]any{"changes": []any{map[string]any{"table": "t"}}}, id, "changes[0].kind: missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(versionJSON)
			if tc.edits != nil {
				data = edit(t, versionJSON, tc.edits)
			}
			_, err := ParseVersion("version.json", tc.dir, data)
			if err == nil {
				t.Fatalf("ParseVersion = nil error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "version.json: ") {
				t.Errorf("ParseVersion error = %q, want it to contain %q", err, tc.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not match ErrInvalid", err)
			}
		})
	}
}

func TestParseExpired(t *testing.T) {
	for _, tc := range []struct {
		name, json, reason, err string
	}{
		{"empty", `{}`, ReasonExpired, ""},
		{"withdrawn", `{"reason": "withdrawn", "note": "ignored"}`, ReasonWithdrawn, ""},
		{"with_time", `{"reason": "expired", "expired_at": "2027-01-01T00:00:00Z"}`, ReasonExpired, ""},
		{"bad_time", `{"expired_at": "soon"}`, "", "expired.json: expired_at"},
		{"reason_number", `{"reason": 1}`, "", "expired.json: reason: want a string"},
		{"not_object", `"withdrawn"`, "", "expired.json: the file is not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := ParseExpired("expired.json", []byte(tc.json))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseExpired error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Reason != tc.reason {
				t.Errorf("Reason = %q, want %q", e.Reason, tc.reason)
			}
		})
	}
}

const datasetJSON = `{
  "name": "population", "title": "Population by town",
  "licenses": ["CC-BY-4.0", {"id": "x", "url": "https://example.org"}],
  "extensions": {"old-host": {"a": 1}},
  "tables": [
    {"schema": "main", "name": "population", "rows": 3,
     "fields": [{"name": "town_code", "type": "varchar", "nullable": false}, {"name": "n", "type": "int64"}]},
    {"schema": "main", "name": "v", "kind": "view", "sql": "SELECT 1", "fields": [{"name": "x", "title": "X"}]}
  ]
}`

func TestParseDataset(t *testing.T) {
	d, err := ParseDataset("dataset.json", []byte(datasetJSON))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "dataset", d)
	f := false
	three, four := int64(3), int64(4)
	one, other := "SELECT 1", "SELECT 2"
	catalog := []DatasetTable{
		{Schema: "main", Name: "population", Rows: &three, Fields: []DatasetField{{Name: "town_code", Type: "varchar", Nullable: &f}, {Name: "n", Type: "int64"}}},
		{Schema: "main", Name: "v", Kind: "view", SQL: &one},
	}
	if diffs := d.Diff(catalog); len(diffs) != 0 {
		t.Errorf("Diff = %v, want none", diffs)
	}
	// "tables" lists every table and view: one the catalog has beyond them
	// is a difference; so is a view's SQL.
	catalog = append(catalog, DatasetTable{Schema: "main", Name: "undescribed"})
	catalog[1].SQL = &other
	if got := d.Diff(catalog); len(got) != 2 || !strings.Contains(got[0], `view main.v: sql "SELECT 1", the catalog "SELECT 2"`) || !strings.Contains(got[1], "table main.undescribed: in the catalog, not in tables") {
		t.Errorf("Diff = %q, want the view's SQL and main.undescribed", got)
	}
	catalog = catalog[:2]
	catalog[1].SQL = &one
	catalog[0].Rows = &four
	catalog[0].Fields[1].Type = "int32"
	catalog[1].Kind = ""
	if got := d.Diff(catalog); len(got) != 3 {
		t.Errorf("Diff = %q, want 3 differences (rows, type, kind)", got)
	}
	// A primary key names columns of the catalog's table: one it lacks (a
	// column renamed or dropped since the description was written) is a
	// difference; a view's is the writer's.
	keyed, err := ParseDataset("dataset.json", []byte(`{"name":"d","title":"t","tables":[{"schema":"main","name":"population","primary_key":["town_code","town"]},{"schema":"main","name":"v","kind":"view","primary_key":["x"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := keyed.Diff([]DatasetTable{catalog[0], {Schema: "main", Name: "v", Kind: "view", SQL: &one}}); len(got) != 1 || !strings.Contains(got[0], "table main.population primary_key town: not a column of the catalog's table") {
		t.Errorf("Diff of a primary key naming a missing column = %q", got)
	}
	// A view's entry carries no rows, and its fields no type or nullable.
	withRows, err := ParseDataset("dataset.json", []byte(`{"name":"d","title":"t","tables":[{"schema":"main","name":"v","kind":"view","rows":9,"fields":[{"name":"x","type":"int64"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := withRows.Diff([]DatasetTable{{Schema: "main", Name: "v", Kind: "view"}}); len(got) != 2 || !strings.Contains(got[0], "view main.v: rows 9 given") || !strings.Contains(got[1], "view main.v field x: type or nullable given") {
		t.Errorf("Diff of a view with rows and a typed field = %q", got)
	}
	// Without "tables", nothing is listed and nothing is missing.
	bare, err := ParseDataset("dataset.json", []byte(`{"name":"d","title":"t"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diffs := bare.Diff(catalog); len(diffs) != 0 {
		t.Errorf("Diff without tables = %q, want none", diffs)
	}
	if diffs := d.Diff(nil); len(diffs) != 2 {
		t.Errorf("Diff(empty catalog) = %q, want both described tables missing", diffs)
	}
}

// TestDatasetDottedNames: a schema or table name may hold a dot (a quoted
// identifier), so "a.b"."c" and "a"."b.c" are two tables; one key joining
// schema and name with a dot took them for one, refusing the file as
// describing a table twice and comparing each with the other's columns.
func TestDatasetDottedNames(t *testing.T) {
	one, two := int64(1), int64(2)
	d, err := ParseDataset("dataset.json", []byte(`{"name":"d","title":"t","tables":[{"schema":"a.b","name":"c","rows":1,"fields":[{"name":"x"}]},{"schema":"a","name":"b.c","rows":2,"fields":[{"name":"y"}]}]}`))
	if err != nil {
		t.Fatalf("ParseDataset: %v", err)
	}
	catalog := []DatasetTable{
		{Schema: "a.b", Name: "c", Rows: &one, Fields: []DatasetField{{Name: "x", Type: "int64"}}},
		{Schema: "a", Name: "b.c", Rows: &two, Fields: []DatasetField{{Name: "y", Type: "int64"}}},
	}
	if got := d.Diff(catalog); len(got) != 0 {
		t.Errorf("Diff = %q, want none", got)
	}
	// A third table of the catalog, left out of tables, is the one difference.
	if got := d.Diff(append(catalog, DatasetTable{Schema: "a.b.c", Name: "d"})); len(got) != 1 || got[0] != `table "a.b.c".d: in the catalog, not in tables (which lists every table and view of the catalog's last snapshot)` {
		t.Errorf("Diff with a third table = %q, want it alone", got)
	}
	// Messages tell the two tables apart: a part holding a dot is quoted
	// (before, both read "a.b.c").
	three := int64(3)
	catalog[0].Rows, catalog[1].Rows = &three, &three
	want := []string{`table "a.b".c: rows 1, the catalog 3`, `table a."b.c": rows 2, the catalog 3`}
	if got := d.Diff(catalog); !slices.Equal(got, want) {
		t.Errorf("Diff = %q, want %q", got, want)
	}
}

func TestParseDatasetErrors(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"missing_name", `{"title":"t"}`, "dataset.json: name: missing"},
		{"missing_title", `{"name":"n"}`, "dataset.json: title: missing"},
		{"unknown_key", `{"name":"n","title":"t","owner":"me"}`, "dataset.json: owner: unknown key"},
		{"unknown_table_key", `{"name":"n","title":"t","tables":[{"schema":"main","name":"x","colour":1}]}`, "tables[0].colour: unknown key"},
		{"unknown_field_key", `{"name":"n","title":"t","tables":[{"schema":"main","name":"x","fields":[{"name":"a","unit":"m"}]}]}`, "tables[0].fields[0].unit: unknown key"},
		{"bad_kind", `{"name":"n","title":"t","tables":[{"schema":"main","name":"x","kind":"macro"}]}`, "tables[0].kind"},
		{"table_no_schema", `{"name":"n","title":"t","tables":[{"name":"x"}]}`, "tables[0].schema: missing"},
		// Each table, field and key column once; primary_key a list of
		// column names (the check let all of these pass).
		{"table_twice", `{"name":"n","title":"t","tables":[{"schema":"main","name":"x","title":"A"},{"schema":"main","name":"y"},{"schema":"main","name":"x","title":"B"}]}`, "tables[2]: main.x described twice (also tables[0])"},
		{"view_twice", `{"name":"n","title":"t","tables":[{"schema":"main","name":"v","kind":"view"},{"schema":"main","name":"v","kind":"view"}]}`, "tables[1]: main.v described twice (also tables[0])"},
		{"field_twice", `{"name":"n","title":"t","tables":[{"schema":"main","name":"x","fields":[{"name":"a"},{"name":"b"},{"name":"a","type":"int64"}]}]}`, "tables[0].fields[2]: field a described twice (also fields[0])"},
		{"primary_key_string", `{"name":"n","title":"t","tables":[{"schema":"main","name":"x","primary_key":"a"}]}`, "tables[0].primary_key: want a list of strings"},
		{"primary_key_twice", `{"name":"n","title":"t","tables":[{"schema":"main","name":"x","primary_key":["a","b","a"]}]}`, "tables[0].primary_key[2]: column a named twice (also [0])"},
		{"primary_key_empty_name", `{"name":"n","title":"t","tables":[{"schema":"main","name":"x","primary_key":[""]}]}`, "tables[0].primary_key[0]: empty column name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDataset("dataset.json", []byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseDataset error = %v, want %q", err, tc.want)
			}
		})
	}
}

const filesJSON = `{"tables": {
  "main.del": {"files": [
    {"path": "main/del/a.parquet", "rows": 1000, "bytes": 9097, "footer_bytes": 254,
     "deletes": {"path": "main/del/a-delete.parquet", "rows": 773, "bytes": 5064}},
    {"path": "main/del/b.parquet", "rows": 10, "bytes": 237}]},
  "main.empty": {"files": [], "renamed_columns": true}
}}`

func TestParseFiles(t *testing.T) {
	f, err := ParseFiles("files.json", []byte(filesJSON))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "files", f)
	same, _ := ParseFiles("files.json", []byte(filesJSON))
	if diffs := f.Diff(same); len(diffs) != 0 {
		t.Errorf("Diff(self) = %v", diffs)
	}
	same.Tables["main.del"].Files[0].Deletes.Rows = 772
	same.Tables["main.del"].Files[1].Rows = 11
	delete(same.Tables, "main.empty")
	same.Tables["main.new"] = &FilesTable{}
	same.Tables["main.del"].RenamedColumns = !f.Tables["main.del"].RenamedColumns
	if got := f.Diff(same); len(got) != 5 || !strings.Contains(strings.Join(got, "\n"), "table main.del: renamed_columns is") {
		t.Errorf("Diff = %q, want 5 differences, renamed_columns among them", got)
	}
	// A data file path may hold a "%": DuckDB escapes hive partition
	// values so (name=hello%20world).
	if _, err := ParseFiles("files.json", []byte(`{"tables":{"main.t":{"files":[{"path":"name=hello%20world/a.parquet","rows":1,"bytes":1}]}}}`)); err != nil {
		t.Errorf("ParseFiles of a %%-escaped hive folder: %v", err)
	}
	for _, tc := range []struct{ name, json, want string }{
		{"no_tables", `{}`, "files.json: tables: missing"},
		{"no_files", `{"tables":{"main.t":{}}}`, `tables["main.t"].files: missing`},
		{"bad_rows", `{"tables":{"main.t":{"files":[{"path":"a","rows":"1","bytes":1}]}}}`, `tables["main.t"].files[0].rows: want an integer`},
		{"abs_path", `{"tables":{"main.t":{"files":[{"path":"/a","rows":1,"bytes":1}]}}}`, `files[0].path`},
		{"query_path", `{"tables":{"main.t":{"files":[{"path":"a.parquet?x","rows":1,"bytes":1}]}}}`, `files[0].path: "a.parquet?x" must not hold ? or #`},
		{"bare_percent_path", `{"tables":{"main.t":{"files":[{"path":"100%.parquet","rows":1,"bytes":1}]}}}`, `files[0].path: "100%.parquet" holds a % not followed by two hex digits`},
		{"bad_deletes", `{"tables":{"main.t":{"files":[{"path":"a","rows":1,"bytes":1,"deletes":{"path":"d"}}]}}}`, `files[0].deletes.rows: missing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFiles("files.json", []byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseFiles error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestParseISOTime: every ISO 8601 form a writer may give names the same
// instant; the forms RFC 3339 lacks were refused before.
func TestParseISOTime(t *testing.T) {
	want := time.Date(2026, 10, 30, 9, 0, 0, 0, time.UTC)
	for _, s := range []string{"2026-10-30T09:00:00Z", "2026-10-30T09:00Z", "20261030T090000Z", "20261030T0900Z", "2026-10-30T09:00:00+00:00", "2026-10-30T09:00:00-00:00", "20261030T090000+0000", "2026-10-30T09:00:00+00", "2026-10-30T09:00:00.000Z"} {
		got, err := parseISOTime(s)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("parseISOTime(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"2026-10-30", "2026-10-30 09:00:00Z", "2026-10-30T09Z", "yesterday", "2026-10-30T09:00:00+01:00", "2026-10-30T09:00:00"} {
		if got, err := parseISOTime(s); err == nil {
			t.Errorf("parseISOTime(%q) = %v, want an error", s, got)
		}
	}
}

// TestFilesDiffNamesPathsQuoted: a path or key holding a line break is
// Go-quoted in Diff's lines (each stays one line), an ordinary one is as
// it is; a differing delete file is named by its path, rows and bytes.
func TestFilesDiffNamesPathsQuoted(t *testing.T) {
	odd := "main/t/a\n::error::x.parquet"
	got := &Files{Tables: map[string]*FilesTable{"main.t": {Files: []DataFile{
		{Path: "main/t/b.parquet", Rows: 1, Bytes: 2, Deletes: &DeleteFile{Path: "main/t/d.parquet", Rows: 1, Bytes: 3}},
	}}}}
	want := &Files{Tables: map[string]*FilesTable{"main.t": {Files: []DataFile{
		{Path: "main/t/b.parquet", Rows: 1, Bytes: 2, Deletes: &DeleteFile{Path: odd, Rows: 1, Bytes: 3}},
	}}, "main.u\nv": {Files: []DataFile{}}}}
	diffs := got.Diff(want)
	for _, w := range []string{
		`table main.t file main/t/b.parquet: delete file main/t/d.parquet (1 rows, 3 bytes) in files.json, the catalog "main/t/a\n::error::x.parquet" (1 rows, 3 bytes)`,
		`table "main.u\nv": in the catalog, missing from files.json`,
	} {
		if !slices.Contains(diffs, w) {
			t.Errorf("Diff = %q, want %q among them", diffs, w)
		}
	}
}

// TestParseVersionChangesPresence: "changes": [] is a claim (no column
// differs from the parent) that check holds the catalog to, where an
// absent field claims nothing; ParseVersion tells them apart (Changes nil
// only when absent or null). Before, both parsed as nil.
func TestParseVersionChangesPresence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes any // nil: the field removed
		raw     string
		present bool
		n       int
	}{
		{"absent", nil, "", false, 0},
		{"null", nil, `null`, false, 0},
		{"empty", []any{}, "", true, 0},
		{"one", []any{map[string]any{"table": "main.t", "kind": "drop_column", "column": "c", "breaking": true}}, "", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := edit(t, versionJSON, map[string]any{"changes": tc.changes})
			if tc.raw != "" {
				data = []byte(strings.Replace(string(data), `"fdl":`, `"changes":`+tc.raw+`,"fdl":`, 1))
			}
			v, err := ParseVersion("version.json", id, data)
			if err != nil {
				t.Fatal(err)
			}
			if (v.Changes != nil) != tc.present || len(v.Changes) != tc.n {
				t.Errorf("Changes = %#v, want present %t with %d entries", v.Changes, tc.present, tc.n)
			}
		})
	}
}
