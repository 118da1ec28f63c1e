package fdljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/fdl-formats/fdl-formats/internal/datapath"
)

// object is one JSON object being validated: it remembers the file and the
// path so every error names both.
type object struct {
	file, path string
	m          map[string]json.RawMessage
}

func decodeObject(file, path string, raw []byte) (*object, error) {
	top := path == ""
	if top {
		if err := checkUTF8(file, raw); err != nil {
			return nil, err
		}
	}
	orig := raw
	// JSON's own white space only: bytes.TrimSpace also took a no-break
	// space (or any Unicode space) around the object for it, which strict
	// JSON readers refuse.
	raw = bytes.Trim(raw, jsonSpace)
	if top && bytes.HasPrefix(raw, utf8BOM) {
		return nil, fieldErr(file, path, "the file starts with a UTF-8 byte order mark, which JSON does not allow: save it without one (UTF-8 without BOM)")
	}
	// A file that is not even JSON is a syntax error, said with its line
	// and column below.
	if len(raw) == 0 || (raw[0] != '{' && (!top || json.Valid(raw))) {
		what := "the file"
		if path != "" {
			what = "the value"
		}
		return nil, fieldErr(file, path, "%s is not a JSON object", what)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		var syn *json.SyntaxError
		if top && errors.As(err, &syn) {
			// Where in the file: a hand-edited fdl.json said only
			// "invalid character '}' looking for beginning of object key
			// string".
			at := len(orig) - len(bytes.TrimLeft(orig, jsonSpace)) + int(syn.Offset) - 1
			line, col := lineColumn(orig, at)
			return nil, &Error{File: file, Err: fmt.Errorf("parse JSON at line %d, column %d: %w", line, col, err)}
		}
		return nil, &Error{File: file, Field: path, Err: fmt.Errorf("parse JSON: %w", err)}
	}
	if top {
		if err := checkKeysAndEscapes(file, raw); err != nil {
			return nil, err
		}
	}
	return &object{file: file, path: path, m: m}, nil
}

// jsonSpace is JSON's white space (RFC 8259): space, tab, line feed and
// carriage return.
const jsonSpace = " \t\n\r"

// utf8BOM is the UTF-8 byte order mark, which JSON text must not begin with.
var utf8BOM = []byte("\xef\xbb\xbf")

// lineColumn is the 1-based line and column (in bytes) of data[at], at
// clamped into data.
func lineColumn(data []byte, at int) (line, col int) {
	at = max(0, min(at, len(data)))
	before := data[:at]
	return bytes.Count(before, []byte("\n")) + 1, at - bytes.LastIndexByte(before, '\n')
}

func (o *object) field(key string) string {
	if o.path == "" {
		return key
	}
	return o.path + "." + key
}

// has reports whether key is present and not null.
func (o *object) has(key string) bool {
	raw, ok := o.m[key]
	return ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// req decodes a must-field.
func (o *object) req(key string, dst any) error {
	if !o.has(key) {
		return fieldErr(o.file, o.field(key), "missing (required)")
	}
	return o.decode(key, dst)
}

// opt decodes a may-field and reports whether it was there.
func (o *object) opt(key string, dst any) (bool, error) {
	if !o.has(key) {
		return false, nil
	}
	return true, o.decode(key, dst)
}

func (o *object) decode(key string, dst any) error {
	if err := json.Unmarshal(o.m[key], dst); err != nil {
		return fieldErr(o.file, o.field(key), "want %s, got %s", kindOf(dst), short(o.m[key]))
	}
	return nil
}

// sub decodes a nested must-object.
func (o *object) sub(key string) (*object, error) {
	if !o.has(key) {
		return nil, fieldErr(o.file, o.field(key), "missing (required)")
	}
	return decodeObject(o.file, o.field(key), o.m[key])
}

func kindOf(dst any) string {
	switch dst.(type) {
	case *string:
		return "a string"
	case *int64, *int:
		return "an integer"
	case *[]string:
		return "a list of strings"
	case *[]int64:
		return "a list of integers"
	case *bool:
		return "true or false"
	}
	return "a different JSON type"
}

func short(raw []byte) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

var (
	uuidV7    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// IsVersionID reports whether s is a version ID: a UUIDv7 in lower case with
// hyphens (RFC 9562: version nibble 7, variant bits 10).
func IsVersionID(s string) bool { return uuidV7.MatchString(s) }

// IDTime returns the creation time a version ID carries: a UUIDv7's first
// 48 bits, the Unix time in milliseconds (RFC 9562, section 5.7), in UTC.
// It refuses a string that is not a version ID (IsVersionID).
func IDTime(id string) (time.Time, error) {
	if !IsVersionID(id) {
		return time.Time{}, fmt.Errorf("%q is not a UUIDv7 (lower case, with hyphens)", id)
	}
	ms, err := strconv.ParseInt(id[:8]+id[9:13], 16, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("read the time of %q: %w", id, err)
	}
	return time.UnixMilli(ms).UTC(), nil
}

func checkVersionID(file, field, s string) error {
	if IsVersionID(s) {
		return nil
	}
	if IsVersionID(strings.ToLower(s)) {
		return fieldErr(file, field, "%q must be lower case", s)
	}
	return fieldErr(file, field, "%q is not a UUIDv7 (lower case, with hyphens)", s)
}

// isoLayouts are the ISO 8601 date-times a writer may give (the spec asks
// for "UTC, ISO 8601"): the extended form with or without seconds (RFC
// 3339 is its profile with seconds) and the basic form, each with a
// fraction of a second where seconds are given, and with "Z" or a numeric
// offset (+hh:mm, +hhmm, +hh) that parseISOTime requires to be zero.
var isoLayouts = []string{
	"2006-01-02T15:04:05Z07:00", "2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05Z0700", "2006-01-02T15:04Z0700",
	"2006-01-02T15:04:05Z07", "2006-01-02T15:04Z07",
	"20060102T150405Z0700", "20060102T1504Z0700",
	"20060102T150405Z07:00", "20060102T1504Z07:00",
	"20060102T150405Z07", "20060102T1504Z07",
}

// parseISOTime reads an ISO 8601 date-time in UTC (see isoLayouts).
func parseISOTime(s string) (time.Time, error) {
	for _, layout := range isoLayouts {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		if _, off := t.Zone(); off != 0 {
			return time.Time{}, fmt.Errorf("%q must be UTC (Z or +00:00)", s)
		}
		return t.UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 date-time with a time of day, such as 2026-10-30T09:00:00Z (2026-10-30T09:00Z and 20261030T090000Z are read too)", s)
}

// parseUntil reads an RFC 3339 date ("2026-06-30", meaning 00:00 UTC that
// day) or date-time.
func parseUntil(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 date (2026-06-30) nor date-time (2026-06-30T00:00:00Z)", s)
	}
	return t.UTC(), nil
}

// checkRelPath accepts a slash-separated relative path that stays inside
// its folder and that every reader reads as the same file (no character of
// datapath.Unsafe).
func checkRelPath(file, field, p string) error {
	if p == "" {
		return fieldErr(file, field, "empty path")
	}
	if strings.HasPrefix(p, "/") || strings.Contains(p, `\`) || strings.Contains(p, "://") {
		return fieldErr(file, field, "%q must be a relative path with forward slashes", p)
	}
	if strings.ContainsFunc(p, unicode.IsControl) {
		return fieldErr(file, field, "%q must not hold control characters (a line break, a tab): a reader over HTTP cannot ask for it, and a statement naming it (resolve's) breaks", p)
	}
	if strings.ContainsAny(p, datapath.Unsafe) {
		return fieldErr(file, field, "%q must not hold ? or #: readers over HTTP or S3 take them as a query or fragment, so they would open another file than a local reader", p)
	}
	if !datapath.ValidEscapes(p) {
		return fieldErr(file, field, "%q holds a %% not followed by two hex digits, which no reader over HTTP can ask for", p)
	}
	// The data path rule: ".." and empty parts, also once a web server
	// decodes the escapes ("%2e%2e").
	if _, why := datapath.Under(true, strings.TrimSuffix(p, "/")); why != "" {
		return fieldErr(file, field, "%q must not contain '.', '..' or empty parts, plain or escaped: %s", p, why)
	}
	return nil
}

// checkOwnPath is checkRelPath for a name the repository's writer chooses
// (data_dir, a version's catalog, dataset.json and files.json), which must
// not hold a "%" either: a web server decodes it while a folder and S3 do
// not, and no writer needs one there (data file paths may: DuckDB escapes
// hive partition values so).
func checkOwnPath(file, field, p string) error {
	if err := checkRelPath(file, field, p); err != nil {
		return err
	}
	if strings.Contains(p, "%") {
		return fieldErr(file, field, "%q must not hold %%: a web server decodes it, a folder and S3 do not, so readers would open different files", p)
	}
	return nil
}
