package fdljson

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// parsers maps each FDL file to its Parse function, so one table covers all.
var parsers = map[string]func(data []byte) error{
	"fdl.json": func(data []byte) error { _, err := ParseRepo("fdl.json", data); return err },
	"version.json": func(data []byte) error {
		_, err := ParseVersion("versions/"+id+"/version.json", id, data)
		return err
	},
	"files.json":   func(data []byte) error { _, err := ParseFiles("files.json", data); return err },
	"dataset.json": func(data []byte) error { _, err := ParseDataset("dataset.json", data); return err },
	"expired.json": func(data []byte) error { _, err := ParseExpired("expired.json", data); return err },
}

// replaceOnce is base with the first old replaced by new; the test fails
// if old is not in base (the case would test nothing).
func replaceOnce(t *testing.T, base, old, new string) []byte {
	t.Helper()
	if !strings.Contains(base, old) {
		t.Fatalf("%q not in the base file", old)
	}
	return []byte(strings.Replace(base, old, new, 1))
}

// TestParseRejectsDuplicateKeys: a key given twice in one object, at any
// nesting level and even an ignored one, is invalid: encoding/json keeps
// the last value, DuckDB's JSON the first (and read_json fails), so two
// readers would read two repositories.
func TestParseRejectsDuplicateKeys(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		json       func(t *testing.T) []byte
		want       string
	}{
		{"data_dir", "fdl.json", func(t *testing.T) []byte {
			return replaceOnce(t, fdlJSON, `"data_dir": "data/",`, `"data_dir": "data/", "data_dir": "elsewhere/",`)
		}, `fdl.json: data_dir: duplicate key "data_dir"`},
		{"format_until", "fdl.json", func(t *testing.T) []byte {
			return replaceOnce(t, fdlJSON, `"until": "2026-06-30"`, `"until": "2026-06-30", "until": "2099-01-01"`)
		}, `fdl.json: formats[0].until: duplicate key "until"`},
		{"ignored_key", "fdl.json", func(t *testing.T) []byte {
			return replaceOnce(t, fdlJSON, `"publisher": "ignored"`, `"publisher": "ignored", "publisher": "other"`)
		}, `fdl.json: publisher: duplicate key`},
		{"catalog", "version.json", func(t *testing.T) []byte {
			return replaceOnce(t, versionJSON, `"message":`, `"catalog": {"path": "other.duckdb"}, "message":`)
		}, "versions/" + id + `/version.json: catalog: duplicate key "catalog"`},
		{"catalog_path", "version.json", func(t *testing.T) []byte {
			return replaceOnce(t, versionJSON, `"path": "ducklake.duckdb",`, `"path": "ducklake.duckdb", "path": "other.duckdb",`)
		}, `version.json: catalog.path: duplicate key "path"`},
		{"escaped_key", "version.json", func(t *testing.T) []byte {
			return replaceOnce(t, versionJSON, `"seq": 12,`, `"seq": 12, "s\u0065q": 13,`)
		}, `version.json: seq: duplicate key "seq"`},
		{"annotation", "version.json", func(t *testing.T) []byte {
			return replaceOnce(t, versionJSON, `{"pinned": true}`, `{"pinned": true, "pinned": false}`)
		}, `version.json: annotations["example-host"].pinned: duplicate key`},
		{"table", "files.json", func(t *testing.T) []byte {
			return replaceOnce(t, filesJSON, `"main.empty": {"files": [], "renamed_columns": true}`, `"main.empty": {"files": []}, "main.del": {"files": []}`)
		}, `files.json: tables["main.del"]: duplicate key "main.del"`},
		{"file_rows", "files.json", func(t *testing.T) []byte {
			return replaceOnce(t, filesJSON, `"rows": 10,`, `"rows": 10, "rows": 11,`)
		}, `files.json: tables["main.del"].files[1].rows: duplicate key "rows"`},
		{"field_type", "dataset.json", func(t *testing.T) []byte {
			return replaceOnce(t, datasetJSON, `"type": "int64"`, `"type": "int64", "type": "int32"`)
		}, `dataset.json: tables[0].fields[1].type: duplicate key "type"`},
		{"reason", "expired.json", func(*testing.T) []byte {
			return []byte(`{"reason": "withdrawn", "reason": "expired"}`)
		}, `expired.json: reason: duplicate key "reason"`},
	} {
		t.Run(tc.file+"/"+tc.name, func(t *testing.T) {
			err := parsers[tc.file](tc.json(t))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want ErrInvalid containing %q", err, tc.want)
			}
		})
	}
	// The same keys in different objects are not duplicates.
	for file, base := range map[string]string{"fdl.json": fdlJSON, "version.json": versionJSON, "files.json": filesJSON, "dataset.json": datasetJSON, "expired.json": `{"reason": "withdrawn"}`} {
		if err := parsers[file]([]byte(base)); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// TestParseRejectsInvalidUTF8: bytes that are not UTF-8, in a value or a
// key, make the file invalid: encoding/json would read U+FFFD in their place
// and DuckDB's JSON refuses the file. The error gives the byte offset.
func TestParseRejectsInvalidUTF8(t *testing.T) {
	for _, tc := range []struct {
		name, file, base, old, bad string
	}{
		{"fdl_in_data_dir", "fdl.json", fdlJSON, `"data/"`, "\"dat\xffa/\""},
		{"fdl_in_ignored_key", "fdl.json", fdlJSON, `"publisher"`, "\"publ\xc3isher\""},
		{"version_message_overlong", "version.json", versionJSON, `"Add the`, "\"\xc0\xafAdd the"},
		{"version_surrogate", "version.json", versionJSON, `"example"`, "\"ex\xed\xa0\x80ample\""},
		{"files_path_truncated", "files.json", filesJSON, `"main/del/b.parquet"`, "\"main/del/b\xe2\x82.parquet\""},
		{"dataset_title", "dataset.json", datasetJSON, `"Population by town"`, "\"Population by t\xf8wn\""},
		{"expired_reason", "expired.json", `{"reason": "withdrawn"}`, `"withdrawn"`, "\"withdrawn\x80\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := replaceOnce(t, tc.base, tc.old, tc.bad)
			i := strings.Index(tc.base, tc.old)
			offset := i + strings.IndexFunc(tc.bad, func(r rune) bool { return r == utf8.RuneError })
			err := parsers[tc.file](data)
			want := fmt.Sprintf("%s: invalid UTF-8 at byte offset %d", tc.file, offset)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
				t.Errorf("error = %v, want ErrInvalid containing %q", err, want)
			}
		})
	}
}
