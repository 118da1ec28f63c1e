// Package parquetfooter reads the properties of data files' Parquet footers
// that formats.FooterQuirks name: bugs of some DuckDB releases' Parquet
// reader that the footer alone triggers. convert (refusing a target whose
// readers include such a release) and compare (reporting such a file of the
// catalog under proof) both read them here: the row groups and column
// chunks in Go (ReadFooter: DuckDB's parquet_metadata fails on a footer
// with an early TIMESTAMP_NS bound) and the schema's leaves (a DECIMAL's
// storage and precision), the schema's DuckDB types and the key-value
// metadata with DuckDB's parquet_schema and parquet_kv_metadata, a batch
// of files per statement. The struct-skip checks read row groups here too
// (RowGroupRows).
package parquetfooter

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// Hit is one footer property of a file that a footer quirk is triggered by.
type Hit struct {
	// Quirk is the formats.FooterQuirk's name.
	Quirk string
	// Column is the Parquet column (path_in_schema, or the GeoParquet
	// column name).
	Column string
	// Detail says what the footer holds ("row group 0 max \"\\xC3(clair\"").
	Detail string
}

// Queryer runs a query (a *sql.Conn or *sql.DB).
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// maxBatch caps the files of one statement.
const maxBatch = 256

// Read reads the footers of files (local paths: data files, or stand-ins
// holding only their footers) and returns, for each file read, the hits
// of every footer quirk (an empty list when none). A file that cannot be
// read (missing, not Parquet, encrypted) is left out of the answer: its
// reader reports it. Each file's footer is read once, for all the quirks:
// its row groups and column chunks in Go (ReadFooter), its schema's types
// and its key-value metadata with DuckDB's parquet_schema and
// parquet_kv_metadata, a batch of files per statement.
func Read(ctx context.Context, q Queryer, files []string) (map[string][]Hit, error) {
	out := make(map[string][]Hit, len(files))
	feet := make(map[string]*Footer, len(files))
	var readable []string
	for _, f := range files {
		if _, done := feet[f]; done {
			continue
		}
		foot, err := ReadFooter(ctx, f)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue // left out: its reader reports it
		}
		feet[f] = foot
		readable = append(readable, f)
	}
	for start := 0; start < len(readable); start += maxBatch {
		batch := readable[start:min(start+maxBatch, len(readable))]
		hits, err := readBatch(ctx, q, batch, feet)
		if err == nil {
			for _, f := range batch {
				out[f] = hits[f]
			}
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// One by one: a file that fails is left out, the others answer.
		for _, f := range batch {
			one, err := readBatch(ctx, q, []string{f}, feet)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			out[f] = one[f]
		}
	}
	return out, nil
}

// chunk is a column chunk a quirk may concern, with parquet_metadata's
// column_id and path_in_schema.
type chunk struct {
	rowGroup, column int64
	path             string
	min, max         sql.NullString // min_value, else min (rendered as DuckDB renders a VARCHAR's)
	hasStats         bool           // a statistics field set, and not every value NULL
	deltaLength      bool
	deltaByteArray   bool // DELTA_BYTE_ARRAY among the encodings (any physical type)
	shredded         bool // a VARIANT's typed_value (variantShredded)
}

// candidates are a footer's BYTE_ARRAY chunks whose bounds hold an escape
// (DuckDB renders bounds that are not valid UTF-8 as a blob: \xHH), lack
// a bound while having statistics, or use DELTA_LENGTH_BYTE_ARRAY, its
// chunks of any physical type that use DELTA_BYTE_ARRAY, and its chunks
// of a VARIANT's shredded values (variantShredded): what may concern a
// quirk once the column's type is known.
func candidates(f *Footer) []chunk {
	var out []chunk
	bound := func(v []byte, set bool, old []byte, oldSet bool) sql.NullString {
		switch {
		case set:
			return sql.NullString{String: renderVarchar(v), Valid: true}
		case oldSet:
			return sql.NullString{String: renderVarchar(old), Valid: true}
		}
		return sql.NullString{}
	}
	for g, rg := range f.RowGroups {
		shredded := variantShredded(rg)
		for i, cc := range rg.Columns {
			if cc.HasMeta && shredded[i] {
				out = append(out, chunk{rowGroup: int64(g), column: int64(i), path: cc.PathInSchema(), shredded: true})
				continue
			}
			if cc.HasMeta && cc.Type != typeByteArray && slices.Contains(cc.Encodings, encodingDeltaBA) {
				out = append(out, chunk{rowGroup: int64(g), column: int64(i), path: cc.PathInSchema(), deltaByteArray: true})
				continue
			}
			if !cc.HasMeta || cc.Type != typeByteArray {
				continue
			}
			st := cc.Stats
			c := chunk{rowGroup: int64(g), column: int64(i), path: cc.PathInSchema(),
				min:         bound(st.MinValue, st.HasMinValue, st.Min, st.HasMin),
				max:         bound(st.MaxValue, st.HasMaxValue, st.Max, st.HasMax),
				deltaLength: slices.Contains(cc.Encodings, encodingDeltaLengthBA), deltaByteArray: slices.Contains(cc.Encodings, encodingDeltaBA)}
			c.hasStats = (st.HasNullCount || st.HasDistinctCount || c.min.Valid || c.max.Valid) &&
				(!st.HasNullCount || st.NullCount < cc.NumValues)
			if strings.Contains(c.min.String, `\x`) || strings.Contains(c.max.String, `\x`) || !c.min.Valid || !c.max.Valid || c.deltaLength || c.deltaByteArray {
				out = append(out, c)
			}
		}
	}
	return out
}

// wideDecimalHits finds a footer's DECIMAL leaves of 19 to 38 digits
// stored as INT32 or INT64 (converted type DECIMAL, as DuckDB 1.3.0 and
// 1.3.1 take a DECIMAL: their readers do not read the logical type's), read
// from the schema in Go. The column is named by its chunks' path where a
// row group has it, else by the element's name.
func wideDecimalHits(f *Footer) []Hit {
	var out []Hit
	for i, l := range f.Leaves {
		if !l.HasConverted || l.ConvertedType != convertedDecimal || !l.HasType || (l.Type != typeInt32 && l.Type != typeInt64) ||
			!l.HasPrec || l.Precision <= 18 || l.Precision > 38 {
			continue
		}
		col := l.Name
		if len(f.RowGroups) > 0 && i < len(f.RowGroups[0].Columns) && f.RowGroups[0].Columns[i].HasMeta {
			col = f.RowGroups[0].Columns[i].PathInSchema()
		}
		phys := "INT32"
		if l.Type == typeInt64 {
			phys = "INT64"
		}
		out = append(out, Hit{Quirk: formats.FooterDecimalWideInInt, Column: col, Detail: fmt.Sprintf("the schema stores a DECIMAL of precision %d as %s", l.Precision, phys)})
	}
	return out
}

// byteArrayDecimalHits finds a footer's DECIMAL leaves stored as
// BYTE_ARRAY, or as FIXED_LEN_BYTE_ARRAY of length 0 (converted type
// DECIMAL, as every DuckDB release takes a DECIMAL), read from the schema
// in Go: such a column may hold (the fixed one holds only) zero-length
// values, which the releases before DuckDB 1.5.5 misread
// (formats.FooterDecimalByteArray), and whether a BYTE_ARRAY one does is
// in its pages, not in the footer. The column is named as in
// wideDecimalHits.
func byteArrayDecimalHits(f *Footer) []Hit {
	var out []Hit
	for i, l := range f.Leaves {
		if !l.HasConverted || l.ConvertedType != convertedDecimal || !l.HasType {
			continue
		}
		detail := fmt.Sprintf("the schema stores a DECIMAL of precision %d as BYTE_ARRAY, whose values may be zero-length", l.Precision)
		switch {
		case l.Type == typeByteArray:
		case l.Type == typeFixedLenByteArray && l.TypeLength <= 0:
			detail = fmt.Sprintf("the schema stores a DECIMAL of precision %d as FIXED_LEN_BYTE_ARRAY of length %d: every value is zero-length", l.Precision, l.TypeLength)
		default:
			continue
		}
		col := l.Name
		if len(f.RowGroups) > 0 && i < len(f.RowGroups[0].Columns) && f.RowGroups[0].Columns[i].HasMeta {
			col = f.RowGroups[0].Columns[i].PathInSchema()
		}
		out = append(out, Hit{Quirk: formats.FooterDecimalByteArray, Column: col, Detail: detail})
	}
	return out
}

// variantShredded tells which chunks of a row group hold a VARIANT's
// shredded values: a chunk whose path ends in typed_value below a group
// that also has a metadata chunk (a Parquet variant group: metadata,
// value, typed_value), at any depth (an object's fields and a list's
// elements are shredded the same way). A struct that only looks so is
// taken for a VARIANT too, on the safe side.
func variantShredded(rg RowGroup) []bool {
	roots := map[string]bool{} // the paths of the groups with a metadata chunk, each part ended by "\x00"
	for _, cc := range rg.Columns {
		if n := len(cc.Path); cc.HasMeta && n >= 2 && cc.Path[n-1] == "metadata" {
			roots[joinPath(cc.Path[:n-1])] = true
		}
	}
	out := make([]bool, len(rg.Columns))
	if len(roots) == 0 {
		return out
	}
	for i, cc := range rg.Columns {
		n := len(cc.Path)
		if !cc.HasMeta || n < 2 || cc.Path[n-1] != "typed_value" {
			continue
		}
		for k := 1; k < n && !out[i]; k++ {
			out[i] = roots[joinPath(cc.Path[:k])]
		}
	}
	return out
}

// joinPath joins a path's parts so that no two paths join alike.
func joinPath(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return b.String()
}

// readBatch finds the hits of files, whose footers feet holds, reading
// their schemas and key-value metadata in two statements over all of
// them; it fails when any file cannot be read, or DuckDB names a file
// otherwise than asked.
func readBatch(ctx context.Context, q Queryer, files []string, feet map[string]*Footer) (map[string][]Hit, error) {
	list := make([]string, len(files))
	asked := make(map[string]bool, len(files))
	for i, f := range files {
		list[i], asked[f] = parquetsql.Path(f), true
	}
	from := "([" + strings.Join(list, ", ") + "])"
	name := func(got string) (string, error) {
		if asked[got] {
			return got, nil
		}
		if len(files) == 1 {
			return files[0], nil
		}
		return "", fmt.Errorf("unexpected file %s", got)
	}
	chunks := map[string][]chunk{}
	for _, f := range files {
		if cs := candidates(feet[f]); len(cs) > 0 {
			chunks[f] = cs
		}
	}
	out := make(map[string][]Hit, len(files))
	for _, f := range files {
		out[f] = append(out[f], wideDecimalHits(feet[f])...)
		out[f] = append(out[f], byteArrayDecimalHits(feet[f])...)
	}
	if len(chunks) > 0 {
		var some []string
		for _, f := range files {
			if len(chunks[f]) > 0 {
				some = append(some, f)
			}
		}
		types, err := leafTypes(ctx, q, some, name)
		if err != nil {
			return nil, err
		}
		for f, cs := range chunks {
			out[f] = append(out[f], chunkHits(cs, types[f])...)
		}
	}
	geo, err := geoHits(ctx, q, from, name)
	if err != nil {
		return nil, err
	}
	for f, hs := range geo {
		out[f] = append(out[f], hs...)
	}
	return out, nil
}

// leafType is a Parquet leaf column's type as DuckDB reads it.
type leafType struct {
	duck string // parquet_schema's duckdb_type
	json bool   // logical or converted type JSON
}

// leafTypes reads the leaf columns' types of files, in column order (the
// column_id of parquet_metadata).
func leafTypes(ctx context.Context, q Queryer, files []string, name func(string) (string, error)) (map[string][]leafType, error) {
	list := make([]string, len(files))
	for i, f := range files {
		list[i] = parquetsql.Path(f)
	}
	rows, err := q.QueryContext(ctx, `SELECT file_name, coalesce(num_children, 0), coalesce(duckdb_type, ''), coalesce(logical_type::VARCHAR, ''), coalesce(converted_type, '')
		FROM parquet_schema([`+strings.Join(list, ", ")+`])`)
	if err != nil {
		return nil, fmt.Errorf("read parquet schema: %w", err)
	}
	defer rows.Close()
	out := map[string][]leafType{}
	for rows.Next() {
		var file, duck, logical, converted string
		var children int64
		if err := rows.Scan(&file, &children, &duck, &logical, &converted); err != nil {
			return nil, err
		}
		f, err := name(file)
		if err != nil {
			return nil, err
		}
		if children > 0 {
			continue // the root and groups: no column chunk
		}
		out[f] = append(out[f], leafType{duck: strings.ToUpper(duck),
			json: strings.HasPrefix(strings.ToUpper(logical), "JSON") || strings.EqualFold(converted, "JSON")})
	}
	return out, rows.Err()
}

// chunkHits finds the quirks of a file's candidate chunks.
func chunkHits(cs []chunk, types []leafType) []Hit {
	var out []Hit
	seen := map[[2]string]bool{} // (quirk, column): the first row group says it
	add := func(q, col, detail string) {
		if !seen[[2]string{q, col}] {
			seen[[2]string{q, col}] = true
			out = append(out, Hit{Quirk: q, Column: col, Detail: detail})
		}
	}
	for _, c := range cs {
		if c.column < 0 || int(c.column) >= len(types) {
			continue
		}
		t := types[c.column]
		if c.shredded {
			if w, _, ok := formats.DecimalWidthScale(t.duck); ok && w <= 4 {
				add(formats.FooterVariantDecimal2, c.path, fmt.Sprintf("row group %d holds a VARIANT's values shredded as %s (16 bits)", c.rowGroup, t.duck))
			}
			if t.duck == "BLOB" {
				add(formats.FooterVariantBlobBase64, c.path, fmt.Sprintf("row group %d holds a VARIANT's values shredded as BLOB", c.rowGroup))
			}
			continue
		}
		varchar := t.duck == "VARCHAR" || t.duck == "JSON" // JSON is a VARCHAR to DuckDB
		if c.deltaByteArray && !varchar && t.duck != "BLOB" {
			add(formats.FooterDeltaByteArray, c.path, fmt.Sprintf("row group %d is encoded with DELTA_BYTE_ARRAY, read as %s", c.rowGroup, t.duck))
		}
		if varchar {
			for _, b := range []struct {
				name string
				v    sql.NullString
			}{{"min", c.min}, {"max", c.max}} {
				if b.v.Valid && RenderedInvalidUTF8(b.v.String) {
					add(formats.FooterStringStatsInvalidUTF8, c.path, fmt.Sprintf("row group %d statistics %s %s is not valid UTF-8", c.rowGroup, b.name, strconv.Quote(b.v.String)))
				}
			}
			if c.hasStats && (!c.min.Valid || !c.max.Valid) {
				add(formats.FooterStringStatsMissingBound, c.path, fmt.Sprintf("row group %d has statistics without a %s", c.rowGroup, missing(c)))
			}
		}
		if t.json && c.deltaLength {
			add(formats.FooterJSONDeltaLength, c.path, fmt.Sprintf("row group %d is encoded with DELTA_LENGTH_BYTE_ARRAY", c.rowGroup))
		}
	}
	return out
}

func missing(c chunk) string {
	switch {
	case !c.min.Valid && !c.max.Valid:
		return "min or max"
	case !c.min.Valid:
		return "min"
	}
	return "max"
}

// RenderedInvalidUTF8 tells whether s, a VARCHAR statistics bound as
// DuckDB's parquet_metadata renders it, stands for bytes that are not
// valid UTF-8. DuckDB renders such a bound as a blob: printable ASCII with
// every other byte as \xHH; a valid bound comes as it is. So s is taken
// for an invalid bound when it is all ASCII and its \xHH escapes decode to
// bytes that are not valid UTF-8. A valid bound spelling such escapes
// literally ("\xC3(") reads the same: it is taken for invalid too (a
// refusal on the safe side).
func RenderedInvalidUTF8(s string) bool {
	if !strings.Contains(s, `\x`) {
		return false
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false // a valid bound, as it is
		}
		if c == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b = append(b, byte(v))
				i += 3
				continue
			}
		}
		b = append(b, c)
	}
	return !utf8.Valid(b)
}

// geoHits reads the files' "geo" key-value metadata and finds the
// GeoParquet columns whose "crs" is null.
func geoHits(ctx context.Context, q Queryer, from string, name func(string) (string, error)) (map[string][]Hit, error) {
	rows, err := q.QueryContext(ctx, `SELECT file_name, value FROM parquet_kv_metadata`+from+` WHERE key = 'geo'::BLOB`)
	if err != nil {
		return nil, fmt.Errorf("read parquet key-value metadata: %w", err)
	}
	defer rows.Close()
	out := map[string][]Hit{}
	for rows.Next() {
		var file string
		var value []byte
		if err := rows.Scan(&file, &value); err != nil {
			return nil, err
		}
		f, err := name(file)
		if err != nil {
			return nil, err
		}
		for _, col := range NullCRSColumns(value) {
			out[f] = append(out[f], Hit{Quirk: formats.FooterGeoCRSNull, Column: col, Detail: fmt.Sprintf("the \"geo\" metadata gives column %s \"crs\": null", strconv.Quote(col))})
		}
	}
	return out, rows.Err()
}

// NullCRSColumns returns the columns of GeoParquet metadata (the "geo"
// key's value) whose "crs" is present and null, sorted. Metadata that is
// not a JSON object with a "columns" object gives none (DuckDB ignores
// unparsable JSON, and fails alike in every release on the rest).
func NullCRSColumns(geo []byte) []string {
	var doc struct {
		Columns map[string]map[string]json.RawMessage `json:"columns"`
	}
	if json.Unmarshal(geo, &doc) != nil {
		return nil
	}
	var out []string
	for col, fields := range doc.Columns {
		if crs, ok := fields["crs"]; ok && strings.TrimSpace(string(crs)) == "null" {
			out = append(out, col)
		}
	}
	slices.Sort(out)
	return out
}
