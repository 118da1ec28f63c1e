package fdljson

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// checkKeysAndEscapes rejects an object key given twice: encoding/json keeps
// the last value, DuckDB's ->> the first, and its read_json fails. Keys are
// compared unescaped ("seq" and "s\u0065q" are one key). It also rejects a
// \u escape of half a UTF-16 surrogate pair (a lone \ud800): encoding/json
// reads U+FFFD, DuckDB refuses the file ("no low surrogate"). data must be valid
// JSON (json.Unmarshal accepted it): the scan relies on it, and is a plain
// pass over the bytes. On a files.json of 100,000 files (8 MB) it takes
// 0.05 s, a twentieth of ParseFiles; a walk with json.Decoder.Token took
// 0.76 s.
func checkKeysAndEscapes(file string, data []byte) error {
	var stack []*scope
	expectKey := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if (c == '}' || c == ']' || c == ',') && len(stack) == 0 {
			return &Error{File: file, Err: fmt.Errorf("parse JSON: unbalanced %q at byte offset %d", c, i)}
		}
		switch c {
		case '{':
			stack = append(stack, &scope{object: true})
			expectKey = true
		case '[':
			stack = append(stack, &scope{})
			expectKey = false
		case '}', ']':
			stack = stack[:len(stack)-1]
			expectKey = false
		case ',':
			top := stack[len(stack)-1]
			expectKey = top.object
			if !top.object {
				top.index++
			}
		case ':':
			expectKey = false
		case '"':
			end, escaped := stringEnd(data, i)
			if escaped {
				if at := loneSurrogate(data[:end], i+1); at >= 0 {
					return fieldErr(file, scopePath(stack), "lone UTF-16 surrogate %s at byte offset %d (write the character itself, or a high and low surrogate pair)", data[at:at+6], at)
				}
			}
			if expectKey {
				raw := data[i+1 : end]
				key := string(raw)
				if escaped {
					if err := json.Unmarshal(data[i:end+1], &key); err != nil {
						return &Error{File: file, Err: fmt.Errorf("parse JSON: %w", err)}
					}
				}
				top := stack[len(stack)-1]
				if top.seen(key) {
					top.keys = append(top.keys, key) // the path names it
					return fieldErr(file, scopePath(stack), "duplicate key %q (readers disagree on which value counts: each key must appear once per object)", key)
				}
			}
			i = end
		}
	}
	return nil
}

// scope is an object or array being scanned.
type scope struct {
	object bool
	index  int      // an array's current element
	keys   []string // an object's keys so far, the last the current one
	set    map[string]bool
}

// seen records key and reports whether the object had it already.
func (s *scope) seen(key string) bool {
	if s.set != nil {
		if s.set[key] {
			return true
		}
		s.set[key] = true
	} else if slices.Contains(s.keys, key) {
		return true
	} else if len(s.keys) == 32 { // many keys (files.json's tables): a set
		s.set = make(map[string]bool, 64)
		for _, k := range s.keys {
			s.set[k] = true
		}
		s.set[key] = true
	}
	s.keys = append(s.keys, key)
	return false
}

// stringEnd returns the index of the quote closing the string opening at
// data[start], and whether it holds a backslash escape.
func stringEnd(data []byte, start int) (int, bool) {
	escaped := false
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i, escaped
		}
	}
	return len(data), escaped
}

// loneSurrogate returns the offset of the first \u escape in data[from:]
// that is half a surrogate pair without its other half, or -1. data ends
// before the string's closing quote.
func loneSurrogate(data []byte, from int) int {
	for i := from; i < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		if data[i+1] != 'u' {
			i++ // a one-character escape
			continue
		}
		r := hex4(data[i+2 : i+6])
		switch {
		case r >= 0xdc00 && r <= 0xdfff:
			return i
		case r >= 0xd800 && r <= 0xdbff:
			if i+12 > len(data) || data[i+6] != '\\' || data[i+7] != 'u' {
				return i
			}
			if low := hex4(data[i+8 : i+12]); low < 0xdc00 || low > 0xdfff {
				return i
			}
			i += 11
		default:
			i += 5
		}
	}
	return -1
}

// hex4 reads four hex digits (valid JSON guarantees them).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// scopePath names the current key of the innermost object the way the
// parse errors name fields: catalog.path, formats[0].until, or
// tables["main.t"] for a key that is not an identifier.
func scopePath(stack []*scope) string {
	var b strings.Builder
	for _, s := range stack {
		switch {
		case !s.object:
			fmt.Fprintf(&b, "[%d]", s.index)
		case len(s.keys) == 0:
		case plainKey.MatchString(s.keys[len(s.keys)-1]):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.keys[len(s.keys)-1])
		default:
			b.WriteString("[" + strconv.Quote(s.keys[len(s.keys)-1]) + "]")
		}
	}
	return b.String()
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
