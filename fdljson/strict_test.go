package fdljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
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
		{"after_tricky_strings", "expired.json", func(*testing.T) []byte {
			return []byte(`{"note": "a \\\" {\"reason\": 1, [", "x": [[{}], {"reason": ","}], "reason": "expired", "reason": "withdrawn"}`)
		}, `expired.json: reason: duplicate key "reason"`},
		{"escaped_quote_key", "expired.json", func(*testing.T) []byte {
			return []byte(`{"a\"b": 1, "a\u0022b": 2}`)
		}, `expired.json: ["a\"b"]: duplicate key "a\"b"`},
		{"many_keys", "expired.json", func(*testing.T) []byte {
			var b strings.Builder
			b.WriteString(`{"annotations": {`)
			for i := range 100 {
				fmt.Fprintf(&b, `"k%d": %d, `, i, i)
			}
			b.WriteString(`"k7": 0}}`)
			return []byte(b.String())
		}, `expired.json: annotations.k7: duplicate key "k7"`},
		{"in_nested_arrays", "expired.json", func(*testing.T) []byte {
			return []byte(`{"x": [[1, {"a": 1}], [{"a": 1}, {"a": 1, "b": [], "a": 2}]]}`)
		}, `expired.json: x[1][1].a: duplicate key "a"`},
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
	// The same keys in different objects, or as values, are not duplicates.
	for file, base := range map[string]string{"fdl.json": fdlJSON, "version.json": versionJSON, "files.json": filesJSON, "dataset.json": datasetJSON,
		"expired.json": `{"reason": "withdrawn", "x": {"reason": "reason", "y": [{"reason": 1}, {"reason": "\\\"reason\\\":"}]}, "a\"b": 1, "a\\\"b": 2, "z": [{}, "a", "a", [], "b", "b", {"c": 1}, "c", "c"]}`} {
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

// refHasDuplicate is the reference for checkKeysAndEscapes: a walk with
// json.Decoder.Token, which decodes keys itself.
func refHasDuplicate(t *testing.T, dec *json.Decoder) bool {
	tok, err := dec.Token()
	if err != nil {
		t.Fatal(err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return false
	}
	dup, seen := false, map[string]bool{}
	for dec.More() {
		if d == '{' {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			dup = dup || seen[k.(string)]
			seen[k.(string)] = true
		}
		dup = refHasDuplicate(t, dec) || dup
	}
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	return dup
}

// randomJSON makes a JSON value of keys and strings that share text, hold
// escapes and the characters the scan steers by.
func randomJSON(r *rand.Rand, depth int) string {
	strs := []string{`"a"`, `"b"`, `"\u0061"`, `"a\"b"`, `"{"`, `"}"`, `"["`, `","`, `":"`, `"\\"`, `"a\\"`, `"é"`}
	list := func(n int, item func() string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item()
		}
		return strings.Join(parts, ", ")
	}
	switch k := r.IntN(6); {
	case depth > 4 || k == 0:
		return strs[r.IntN(len(strs))]
	case k == 1:
		return fmt.Sprint(r.IntN(100))
	case k <= 3:
		return "{" + list(r.IntN(4), func() string { return strs[r.IntN(len(strs))] + ": " + randomJSON(r, depth+1) }) + "}"
	default:
		return "[" + list(r.IntN(4), func() string { return randomJSON(r, depth+1) }) + "]"
	}
}

// TestDuplicateKeysMatchesDecoder: the byte scan finds a duplicate exactly
// when a json.Decoder walk does, on random documents.
func TestDuplicateKeysMatchesDecoder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dups := 0
	for range 20000 {
		doc := []byte(`{"root": ` + randomJSON(r, 0) + `}`)
		if !json.Valid(doc) {
			t.Fatalf("generated invalid JSON %s", doc)
		}
		want := refHasDuplicate(t, json.NewDecoder(bytes.NewReader(doc)))
		if want {
			dups++
		}
		if got := checkKeysAndEscapes("f.json", doc) != nil; got != want {
			t.Fatalf("%s: duplicate found %v, want %v", doc, got, want)
		}
	}
	if dups == 0 || dups == 20000 {
		t.Fatalf("%d of 20000 documents have duplicates: the generator tests nothing", dups)
	}
}

// TestParseRejectsLoneSurrogates: a \u escape of half a UTF-16 surrogate
// pair is invalid: encoding/json reads U+FFFD, DuckDB refuses the file
// ("no low surrogate in string"; json_valid is false for each case below).
func TestParseRejectsLoneSurrogates(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"high", `{"reason": "withdrawn", "note": "\ud800"}`, `expired.json: note: lone UTF-16 surrogate \ud800 at byte offset 33`},
		{"low", `{"note": "ab\uDC00"}`, `expired.json: note: lone UTF-16 surrogate \uDC00 at byte offset 12`},
		{"high_then_letter", `{"x": [1, "\ud800\u0041"]}`, `expired.json: x[1]: lone UTF-16 surrogate \ud800 at byte offset 11`},
		{"high_then_high", `{"x": {"y": "\ud800\ud800"}}`, `expired.json: x.y: lone UTF-16 surrogate \ud800 at byte offset 13`},
		{"high_at_end", `{"x": "\n\ud83d"}`, `lone UTF-16 surrogate \ud83d at byte offset 9`},
		{"in_a_key", `{"\udfff": 1}`, `lone UTF-16 surrogate \udfff at byte offset 2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseExpired("expired.json", []byte(tc.json))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want ErrInvalid containing %q", err, tc.want)
			}
		})
	}
	// Pairs, and text that only looks like an escape, are fine.
	for _, doc := range []string{`{"a": "\ud83d\ude00"}`, `{"a": "\uD83D\uDE00x"}`, `{"a": "\\ud800"}`, `{"a": "\\\ud83d\ude00\""}`, `{"\ud83d\ude00": "\u00e9\n"}`} {
		if _, err := ParseExpired("expired.json", []byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}
