package compare

import (
	"fmt"
	"strconv"
	"strings"
)

// A row's hash is DuckDB's vectorised hash() of a flat list of scalar
// values that encodes the row without ambiguity. hash() alone is built for
// hash tables, not fingerprints: it hashes -0.0 like 0.0, a NULL struct like
// a struct of NULLs, NULL, [] and [NULL] alike, [1, 2], [] like [1], [2]
// (list elements are chained without their boundaries), INTERVAL '1 month'
// like '30 days', VARIANT values by their physical shape, and a 128-bit
// value (HUGEINT, UUID, DECIMAL wider than 18 digits) like the one with its
// two 64-bit halves swapped. The encoding adds what hash() drops: the sign
// bit of every float, a NULL flag and the length of every struct, list and
// map, one hash per list element, the text of VARIANT, INTERVAL, UUID and
// wide DECIMAL values, and the upper half of a HUGEINT. See docs/compare.md.

// dtype is a parsed DuckDB type.
type dtype struct {
	base   string   // upper-case name: STRUCT, LIST, MAP, or a scalar type
	args   string   // a scalar's parameters as written, e.g. "(38, 2)"
	fields []dfield // STRUCT
	elem   *dtype   // LIST and fixed-size ARRAY
	size   string   // a fixed-size ARRAY's size as written (t[n]), "" for a LIST
	key    *dtype   // MAP
	val    *dtype   // MAP
}

type dfield struct {
	name string
	typ  *dtype
}

// parseType parses a DuckDB type as DESCRIBE and Column.DuckType spell it:
// scalars with optional parameters, STRUCT(name type, ...), MAP(k, v) and
// t[] / t[n] suffixes.
func parseType(s string) (*dtype, error) {
	p := &typeParser{s: s}
	t, err := p.typ()
	if err != nil {
		return nil, fmt.Errorf("type %q: %w", s, err)
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("type %q: unexpected %q", s, p.s[p.i:])
	}
	return t, nil
}

type typeParser struct {
	s string
	i int
}

func (p *typeParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *typeParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *typeParser) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("want %q at %d", c, p.i)
	}
	p.i++
	return nil
}

// name reads an identifier, quoted ("a ""b""") or bare.
func (p *typeParser) name() (string, error) {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '"' {
		var b strings.Builder
		for p.i++; p.i < len(p.s); p.i++ {
			if p.s[p.i] == '"' {
				if p.i+1 < len(p.s) && p.s[p.i+1] == '"' {
					b.WriteByte('"')
					p.i++
					continue
				}
				p.i++
				return b.String(), nil
			}
			b.WriteByte(p.s[p.i])
		}
		return "", fmt.Errorf("unterminated quoted name")
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(" (),[]", rune(p.s[p.i])) {
		p.i++
	}
	if p.i == start {
		return "", fmt.Errorf("want a name at %d", p.i)
	}
	return p.s[start:p.i], nil
}

// skipArgs skips a balanced parameter list such as (18, 3) or ('OGC:CRS84').
func (p *typeParser) skipArgs() error {
	depth := 0
	inStr := false
	for ; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; {
		case inStr:
			inStr = c != '\''
		case c == '\'':
			inStr = true
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				p.i++
				return nil
			}
		}
	}
	return fmt.Errorf("unbalanced parentheses")
}

func (p *typeParser) typ() (*dtype, error) {
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	// Multi-word names: TIMESTAMP WITH TIME ZONE, TIME WITH TIME ZONE.
	for c := p.peek(); c != 0 && !strings.ContainsRune("(),[]\"", rune(c)); c = p.peek() {
		w, err := p.name()
		if err != nil {
			return nil, err
		}
		n += " " + w
	}
	t := &dtype{base: strings.ToUpper(n)}
	switch t.base {
	case "STRUCT", "ROW":
		t.base = "STRUCT"
		if err := p.expect('('); err != nil {
			return nil, err
		}
		for {
			fn, err := p.name()
			if err != nil {
				return nil, err
			}
			ft, err := p.typ()
			if err != nil {
				return nil, err
			}
			t.fields = append(t.fields, dfield{fn, ft})
			if p.peek() == ',' {
				p.i++
				continue
			}
			if err := p.expect(')'); err != nil {
				return nil, err
			}
			break
		}
	case "MAP":
		if err := p.expect('('); err != nil {
			return nil, err
		}
		if t.key, err = p.typ(); err != nil {
			return nil, err
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
		if t.val, err = p.typ(); err != nil {
			return nil, err
		}
		if err := p.expect(')'); err != nil {
			return nil, err
		}
	case "LIST":
		// DuckDB spells a list t[]: a bare LIST names no element type,
		// and encode would hash a nil one (a panic).
		return nil, fmt.Errorf("LIST without an element type at %d (want t[])", p.i)
	default:
		if p.peek() == '(' {
			start := p.i
			if err := p.skipArgs(); err != nil {
				return nil, err
			}
			t.args = p.s[start:p.i]
		}
	}
	for p.peek() == '[' {
		start := p.i + 1
		for p.i < len(p.s) && p.s[p.i] != ']' {
			p.i++
		}
		if p.i == len(p.s) {
			return nil, fmt.Errorf("unterminated [")
		}
		size := strings.TrimSpace(p.s[start:p.i])
		p.i++
		t = &dtype{base: "LIST", elem: t, size: size}
	}
	return t, nil
}

// hashKind says how a scalar type is hashed.
func (t *dtype) hashKind() string {
	switch t.base {
	case "FLOAT", "DOUBLE", "REAL", "FLOAT4", "FLOAT8":
		return "float" // hash() maps -0.0 to 0.0: add the sign bit
	case "VARIANT", "INTERVAL", "UNION", "UUID":
		// VARIANT: equal values may differ in physical shape; INTERVAL:
		// hash() normalises 1 month = 30 days; UNION: by its text too;
		// UUID: a 128-bit value (below).
		return "text"
	case "HUGEINT", "UHUGEINT", "INT128", "UINT128":
		// hash() xors the hashes of a 128-bit value's two 64-bit halves,
		// so values with their halves swapped hash alike: add the upper
		// half.
		return "wide"
	case "DECIMAL", "NUMERIC":
		if decimalPrecision(t.args) > 18 {
			return "text" // stored as a 128-bit integer
		}
	}
	return "plain"
}

// decimalPrecision is the precision of DECIMAL parameters such as
// "(38, 2)" (DuckDB's default DECIMAL is DECIMAL(18, 3)).
func decimalPrecision(args string) int {
	p, _, _ := strings.Cut(strings.Trim(args, "() "), ",")
	n, err := strconv.Atoi(strings.TrimSpace(p))
	if err != nil {
		return 18
	}
	return n
}

// encode returns the scalar expressions that encode value e of type t.
// depth names lambda variables.
func encode(e string, t *dtype, depth int) []string {
	switch t.base {
	case "STRUCT":
		out := []string{e + " IS NULL"}
		for _, f := range t.fields {
			out = append(out, encode("struct_extract("+e+", "+sqlString(f.name)+")", f.typ, depth)...)
		}
		return out
	case "LIST":
		return []string{e + " IS NULL", "len(" + e + ")", elementHashes(e, t.elem, depth)}
	case "MAP":
		v := fmt.Sprintf("x%d", depth)
		inner := append(encode(v+".key", t.key, depth+1), encode(v+".value", t.val, depth+1)...)
		return []string{e + " IS NULL", "cardinality(" + e + ")",
			fmt.Sprintf("list_transform(map_entries(%s), lambda %s: hash(%s))", e, v, strings.Join(inner, ", "))}
	}
	if t.base == "VARIANT" {
		return []string{variantText(e)}
	}
	switch t.hashKind() {
	case "float":
		return []string{e, "signbit(" + e + ")"}
	case "text":
		return []string{"CAST(" + e + " AS VARCHAR)"}
	case "wide":
		return []string{e, "(" + e + " >> 64)"}
	}
	return []string{e}
}

// elementHashes is a list's elements as one hash each (so that element
// boundaries count), or the list itself when its elements are plain
// scalars, which hash() already hashes one by one.
func elementHashes(e string, el *dtype, depth int) string {
	if el.base != "STRUCT" && el.base != "LIST" && el.base != "MAP" && el.hashKind() == "plain" {
		return e
	}
	v := fmt.Sprintf("x%d", depth)
	return fmt.Sprintf("list_transform(%s, lambda %s: hash(%s))", e, v, strings.Join(encode(v, el, depth+1), ", "))
}

// hashSalt starts the second row hash, so that it chains the values from
// another starting point than the first.
const hashSalt = "'fdl-formats digest v3'"

// rowHashes returns the two 64-bit row hash expressions over the columns
// (names and DuckDB types) of a row query aliased t. The first chains the
// encoded values in column order; the second starts from a salt, chains
// them in reverse order, and adds a NULL flag per top-level scalar column
// (hash() gives NULL a fixed value that one value of each type shares).
func rowHashes(names, types []string) (h1, h2 string, err error) {
	var enc, flags []string
	for i, n := range names {
		t, err := parseType(types[i])
		if err != nil {
			return "", "", fmt.Errorf("column %s: %w", n, err)
		}
		e := "t." + ident(n)
		enc = append(enc, encode(e, t, 0)...)
		if t.base != "STRUCT" && t.base != "LIST" && t.base != "MAP" {
			flags = append(flags, e+" IS NULL")
		}
	}
	if len(enc) == 0 {
		return "", "", fmt.Errorf("a row query without columns")
	}
	rev := make([]string, 0, len(enc)+len(flags)+1)
	rev = append(rev, hashSalt)
	for i := len(enc) - 1; i >= 0; i-- {
		rev = append(rev, enc[i])
	}
	rev = append(rev, flags...)
	return "hash(" + strings.Join(enc, ", ") + ")", "hash(" + strings.Join(rev, ", ") + ")", nil
}

// variantText is SQL for VARIANT value e as the text it is hashed by:
// DuckDB's (CAST AS VARCHAR) wherever DuckDB renders it, so every value it
// renders hashes as before; NULL for NULL (a VARIANT null is one). DuckDB
// reads, compares and writes a TIMESTAMP_NS before 1677-09-22 inside a
// VARIANT but fails to render it ("Date out of range in timestamp_ns
// conversion"), as the whole value's text: such a value, and any other
// DuckDB fails to render, is variantUnrenderable's text (try() gives NULL
// where the cast fails, row by row).
func variantText(e string) string {
	return "CASE WHEN " + e + " IS NULL THEN NULL ELSE coalesce(try(CAST(" + e + " AS VARCHAR)), " + variantUnrenderable(e) + ") END"
}

// variantUnrenderable is SQL for the text of VARIANT value e that DuckDB
// cannot render: a TIMESTAMP_NS itself as DuckDB would write it
// (timestampNSRowText, from epoch_ns); any other (an object, array or
// other value holding one) "VARIANT " and the hex of its Parquet variant
// encoding's metadata and value (variant_to_parquet_variant of the value
// normalised, variant_normalize: a value read from Parquet, where an
// object's fields are sorted and a shredded value put back together,
// gives the same bytes however it was stored). The bytes name the value
// and the type of each of its parts: 1::INTEGER and 1::BIGINT, equal as
// text, differ there.
func variantUnrenderable(e string) string {
	p := "CAST(variant_to_parquet_variant(variant_normalize(" + e + ")) AS STRUCT(metadata BLOB, value BLOB))"
	return "CASE WHEN variant_typeof(" + e + ") = 'TIMESTAMP_NANOS' THEN " + timestampNSRowText("CAST("+e+" AS TIMESTAMP_NS)") +
		" ELSE 'VARIANT ' || hex(struct_extract(" + p + ", 'metadata')) || ' ' || hex(struct_extract(" + p + ", 'value')) END"
}
