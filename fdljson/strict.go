package fdljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// The checks below reject what encoding/json accepts but other readers of
// the same file read differently. They run on the whole file, so every
// nesting level is covered.

// checkUTF8 rejects invalid UTF-8: encoding/json replaces it with U+FFFD,
// DuckDB's JSON refuses the file.
func checkUTF8(file string, data []byte) error {
	if !utf8.Valid(data) {
		return fieldErr(file, "", "invalid UTF-8 at byte offset %d (FDL files are UTF-8 JSON)", invalidUTF8Offset(data))
	}
	return nil
}

func invalidUTF8Offset(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// checkDuplicateKeys rejects an object key given twice: encoding/json keeps
// the last value, DuckDB's ->> the first, and its read_json fails. data is
// valid JSON (json.Unmarshal accepted it).
func checkDuplicateKeys(file string, data []byte) error {
	return walkValue(file, json.NewDecoder(bytes.NewReader(data)), "")
}

// walkValue reads one JSON value from dec; path is its JSON path.
func walkValue(file string, dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return syntaxErr(file, path, err)
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch delim {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return syntaxErr(file, path, err)
			}
			key, ok := tok.(string)
			if !ok {
				return fieldErr(file, path, "parse JSON: want an object key, got %v", tok)
			}
			child := joinKey(path, key)
			if seen[key] {
				return fieldErr(file, child, "duplicate key %q (readers disagree on which value counts: each key must appear once per object)", key)
			}
			seen[key] = true
			if err := walkValue(file, dec, child); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := walkValue(file, dec, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return syntaxErr(file, path, err)
	}
	return nil
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// joinKey extends a JSON path the way the parse errors name fields:
// catalog.path, or tables["main.t"] for a key that is not an identifier.
func joinKey(path, key string) string {
	if !plainKey.MatchString(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func syntaxErr(file, path string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &Error{File: file, Field: path, Err: fmt.Errorf("parse JSON: %w", err)}
}
