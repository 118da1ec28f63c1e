// Package footertest rewrites data files so that their Parquet footers
// trigger a formats.FooterQuirk, for tests of convert, compare and
// parquetfooter. It writes real Parquet files with DuckDB.
package footertest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // the duckdb driver

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// GeoCRSNull is GeoParquet metadata whose column g has "crs": null.
const GeoCRSNull = `{"version":"1.0.0","primary_column":"g","columns":{"g":{"encoding":"WKB","geometry_types":["Point"],"crs":null}}}`

// Rewrite rewrites the Parquet file at path, with the same rows (sel: the
// select list over them, "" for *), column order and field ids (fieldIDs:
// DuckDB's FIELD_IDS struct literal, e.g. "{id: 1, s: 2}"), so that its footer triggers the footer quirk named
// quirk:
//   - FooterStringStatsInvalidUTF8: every occurrence of from in the footer
//     (a VARCHAR bound) is patched to to, of the same length;
//   - FooterJSONDeltaLength: written with PARQUET_VERSION V2 and no
//     dictionary (JSON columns come out DELTA_LENGTH_BYTE_ARRAY);
//   - FooterGeoCRSNull: written with "geo" metadata GeoCRSNull;
//   - FooterDecimalWideInInt: every DECIMAL(18,s) (INT64) of the footer
//     patched to precision 20 (sel casts the column to DECIMAL(18,s)),
//     in its schema element and its logical type;
//   - FooterDecimalByteArray: the BLOB column named from (sel makes it the
//     big-endian two's complement bytes of a decimal's unscaled value,
//     zero-length for a zero) typed DECIMAL of precision and scale to
//     ("4,2") in its schema element (converted type, scale, precision
//     inserted before its field id: the footer grows); with to "0", the
//     FIXED_LEN_BYTE_ARRAY DECIMAL column named from given length 0 (every
//     value zero-length; its pages unchanged);
//   - FooterDeltaByteArray: the encodings of the FIXED_LEN_BYTE_ARRAY
//     column named from (a UUID, as DuckDB writes it: PLAIN) listed as
//     DELTA_BYTE_ARRAY in every chunk (the pages stay PLAIN, so every
//     release reads the file: a footer for the footer check).
//
// It returns the new file's size and footer size.
func Rewrite(ctx context.Context, db *sql.DB, path, sel, fieldIDs, quirk, from, to string) (size, footer int64, err error) {
	tmp := path + ".rewrite.parquet"
	opts := "FORMAT parquet, FIELD_IDS " + fieldIDs
	switch quirk {
	case formats.FooterJSONDeltaLength:
		opts += ", PARQUET_VERSION V2, DICTIONARY_SIZE_LIMIT 1"
	case formats.FooterGeoCRSNull:
		opts += ", KV_METADATA {geo: '" + strings.ReplaceAll(GeoCRSNull, "'", "''") + "'}"
	}
	if sel == "" {
		sel = "*"
	}
	lit := "'" + strings.ReplaceAll(path, "'", "''") + "'"
	if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (SELECT %s FROM read_parquet(%s)) TO '%s' (%s)", sel, lit, strings.ReplaceAll(tmp, "'", "''"), opts)); err != nil {
		return 0, 0, fmt.Errorf("rewrite %s: %w", path, err)
	}
	b, err := os.ReadFile(tmp)
	if err != nil {
		return 0, 0, err
	}
	footer = int64(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if quirk == formats.FooterDecimalWideInInt {
		// Thrift compact: field delta 1, type i32 (0x15), then the
		// zigzag varint of the precision (18: 0x24, 20: 0x28), as a
		// SchemaElement's precision follows its scale and a
		// DecimalType's precision its scale.
		from, to = "\x15\x24", "\x15\x28"
	}
	if quirk == formats.FooterDeltaByteArray {
		// The column chunk's metadata as DuckDB's writer leaves it for a
		// FIXED_LEN_BYTE_ARRAY column named from: type 7 (0x15 0x0E), its
		// encodings a list of one (0x19 0x15) PLAIN (0x00), then its
		// path_in_schema (0x19 0x18, the name's length and bytes): the one
		// encoding listed becomes DELTA_BYTE_ARRAY (7, zigzag 0x0E). The
		// pages stay PLAIN: only the footer says so.
		name := from
		from = "\x15\x0e\x19\x15\x00\x19\x18" + string(rune(len(name))) + name
		to = "\x15\x0e\x19\x15\x0e\x19\x18" + string(rune(len(name))) + name
	}
	if quirk == formats.FooterStringStatsInvalidUTF8 || quirk == formats.FooterDecimalWideInInt || quirk == formats.FooterDeltaByteArray {
		if len(from) != len(to) {
			return 0, 0, fmt.Errorf("patch %q to %q: lengths differ", from, to)
		}
		start := len(b) - 8 - int(footer)
		n := bytes.Count(b[start:], []byte(from))
		if n == 0 {
			return 0, 0, fmt.Errorf("%s: %q is not in the footer", path, from)
		}
		copy(b[start:], bytes.ReplaceAll(b[start:], []byte(from), []byte(to)))
	}
	if quirk == formats.FooterDecimalByteArray && to == "0" {
		if err := fixedLenZero(b, footer, from); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", path, err)
		}
	} else if quirk == formats.FooterDecimalByteArray {
		if b, footer, err = byteArrayDecimal(b, footer, from, to); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return 0, 0, err
	}
	os.Remove(tmp)
	return int64(len(b)), footer, nil
}

// byteArrayDecimal types the BLOB column name of the Parquet file b
// (footer: its footer's length) DECIMAL(ps: "precision,scale") in its
// schema element, which DuckDB's writer leaves as type BYTE_ARRAY,
// repetition, name and field id (Thrift compact: the name's header 0x18,
// its length and bytes, then the field id's header 0x55, a delta of 5): it
// inserts converted type DECIMAL (field 6), scale (7) and precision (8)
// and makes the field id's delta 1. It returns the file and its footer's
// new length.
func byteArrayDecimal(b []byte, footer int64, name, ps string) ([]byte, int64, error) {
	var prec, scale int
	if _, err := fmt.Sscanf(ps, "%d,%d", &prec, &scale); err != nil || len(name) >= 128 || prec >= 64 || scale >= 64 {
		return nil, 0, fmt.Errorf("cannot type column %q DECIMAL(%s)", name, ps)
	}
	start := len(b) - 8 - int(footer)
	elem := append([]byte{0x18, byte(len(name))}, name...)
	withID := append(elem, 0x55) // a path_in_schema list of one is 0x18 too, followed by the codec's 0x15
	at := bytes.Index(b[start:], withID)
	if at < 0 || bytes.Count(b[start:], withID) != 1 {
		return nil, 0, fmt.Errorf("no single schema element %q with a field id in the footer", name)
	}
	at += start + len(elem)
	// zigzag varints of 5 (DECIMAL), scale and precision, each below 64.
	ins := []byte{0x25, 10, 0x15, byte(2 * scale), 0x15, byte(2 * prec), 0x15}
	out := make([]byte, 0, len(b)+len(ins)-1)
	out = append(out, b[:at]...)
	out = append(out, ins...)
	out = append(out, b[at+1:]...)
	footer += int64(len(ins) - 1)
	binary.LittleEndian.PutUint32(out[len(out)-8:], uint32(footer))
	return out, footer, nil
}

// fixedLenZero sets to 0 the type_length of the FIXED_LEN_BYTE_ARRAY
// column name of the Parquet file b (footer: its footer's length), in
// place: its schema element as DuckDB's writer leaves it, type 7 (0x15
// 0x0E), type_length (0x15 and one varint byte below 64), repetition (0x15
// and one byte), then the name (0x18, its length, its bytes).
func fixedLenZero(b []byte, footer int64, name string) error {
	start := len(b) - 8 - int(footer)
	elem := append([]byte{0x18, byte(len(name))}, name...)
	for at := start; ; {
		i := bytes.Index(b[at:], elem)
		if i < 0 {
			return fmt.Errorf("no FIXED_LEN_BYTE_ARRAY schema element %q in the footer", name)
		}
		i += at
		if i-6 >= start && b[i-6] == 0x15 && b[i-5] == 0x0E && b[i-4] == 0x15 && b[i-3] < 0x80 && b[i-2] == 0x15 {
			b[i-3] = 0
			return nil
		}
		at = i + 1
	}
}

// Lake is a 1.0 lake with one table per footer quirk, written by
// lakegen: words (id, s VARCHAR: 'éclair', 'zèbre', 'apple'), cjk (id, s
// VARCHAR with repeat('日本語', 100), which DuckDB's writer leaves without
// bounds: FooterStringStatsMissingBound from the start), docs (id, j
// JSON) and geo (id, s VARCHAR), one data file each. Break rewrites the
// data files of words, docs and geo so that they trigger the other three
// quirks.
type Lake struct {
	Catalog, Data string
	json          bool
}

// NewLake writes the lake into dir; without withJSON, table docs is left
// out (its JSON column is typed in the catalog only, which an FDL
// repository's dataset.json does not follow).
func NewLake(ctx context.Context, dir string, withJSON bool) (*Lake, error) {
	cols := func(c lakegen.Column) []lakegen.Column { return []lakegen.Column{{Name: "id", Type: "INTEGER"}, c} }
	create := lakegen.Snapshot{lakegen.CreateTable{Table: "words", Columns: cols(lakegen.Column{Name: "s", Type: "VARCHAR"})},
		lakegen.CreateTable{Table: "cjk", Columns: cols(lakegen.Column{Name: "s", Type: "VARCHAR"})},
		lakegen.CreateTable{Table: "geo", Columns: cols(lakegen.Column{Name: "s", Type: "VARCHAR"})}}
	insert := lakegen.Snapshot{lakegen.Insert{Table: "words", Select: "SELECT * FROM (VALUES (1, 'éclair'), (2, 'zèbre'), (3, 'apple'))"},
		lakegen.Insert{Table: "cjk", Select: "SELECT * FROM (VALUES (1, repeat('日本語', 100)), (2, 'apple'))"},
		lakegen.Insert{Table: "geo", Select: "SELECT * FROM (VALUES (1, 'a'), (2, 'b'))"}}
	if withJSON {
		create = append(create, lakegen.CreateTable{Table: "docs", Columns: cols(lakegen.Column{Name: "j", Type: "VARCHAR"})})
		insert = append(insert, lakegen.Insert{Table: "docs", Select: "SELECT i::INTEGER, json_object('a', i) FROM range(3000) r(i)"})
	}
	spec := lakegen.Spec{Name: "footers", Versions: []lakegen.Version{{Message: "v1", Snapshots: []lakegen.Snapshot{create, insert}}}}
	res, err := lakegen.Repository(ctx, dir, spec)
	if err != nil {
		return nil, err
	}
	l := &Lake{Catalog: filepath.Join(dir, "versions", res.Versions[0].ID, "ducklake.duckdb"), Data: filepath.Join(dir, "data"), json: withJSON}
	if withJSON {
		// lakegen has no JSON type: the column becomes one in the catalog.
		err = onCatalog(ctx, l.Catalog, func(c *sql.Conn) error {
			_, err := c.ExecContext(ctx, "UPDATE c.ducklake_column SET column_type = 'json' WHERE column_name = 'j'")
			return err
		})
	}
	return l, err
}

// Break rewrites the data files of words, docs and geo (Rewrite) and
// records their new sizes in every catalog given (the lake's, and
// conversions of it that share its data folder).
func (l *Lake) Break(ctx context.Context, catalogs ...string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	for _, rw := range []rewrite{
		{"words", "", "{id: 1, s: 2}", formats.FooterStringStatsInvalidUTF8, "éclair", "\xC3(clair"},
		{"docs", "id, j::JSON AS j", "{id: 1, j: 2}", formats.FooterJSONDeltaLength, "", ""},
		{"geo", "", "{id: 1, s: 2}", formats.FooterGeoCRSNull, "", ""},
	} {
		if rw.table == "docs" && !l.json {
			continue
		}
		if err := l.rewrite(ctx, db, rw, catalogs); err != nil {
			return err
		}
	}
	return nil
}

// NewWideDecimalLake writes into dir a 1.0 lake, by lakegen, of one table
// decs (id INTEGER, d DECIMAL(20,2)) with one data file (d stored as
// FIXED_LEN_BYTE_ARRAY, as DuckDB writes it); BreakWideDecimal rewrites it
// so that it triggers FooterDecimalWideInInt.
func NewWideDecimalLake(ctx context.Context, dir string) (*Lake, error) {
	spec := lakegen.Spec{Name: "decimals", Versions: []lakegen.Version{{Message: "v1", Snapshots: []lakegen.Snapshot{
		{lakegen.CreateTable{Table: "decs", Columns: []lakegen.Column{{Name: "id", Type: "INTEGER"}, {Name: "d", Type: "DECIMAL(20,2)"}}}},
		{lakegen.Insert{Table: "decs", Select: "SELECT i::INTEGER, (i * 1000003 / 100)::DECIMAL(20,2) FROM range(10) r(i)"}},
	}}}}
	res, err := lakegen.Repository(ctx, dir, spec)
	if err != nil {
		return nil, err
	}
	return &Lake{Catalog: filepath.Join(dir, "versions", res.Versions[0].ID, "ducklake.duckdb"), Data: filepath.Join(dir, "data")}, nil
}

// BreakWideDecimal rewrites the data file of NewWideDecimalLake's decs
// with d stored as INT64 of precision 20 (Rewrite, FooterDecimalWideInInt),
// and records its new size in every catalog given, as Break does.
func (l *Lake) BreakWideDecimal(ctx context.Context, catalogs ...string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	return l.rewrite(ctx, db, rewrite{"decs", "id, d::DECIMAL(18,2) AS d", "{id: 1, d: 2}", formats.FooterDecimalWideInInt, "", ""}, catalogs)
}

// NewByteArrayDecimalLake writes into dir a 1.0 lake, by lakegen, of one
// table amounts (id INTEGER, a DECIMAL(4,2)) with one data file of ten
// rows, a = 0.00, 1.00, ..., 9.00 (stored as INT32, as DuckDB writes it);
// BreakByteArrayDecimal rewrites it so that it triggers
// FooterDecimalByteArray.
func NewByteArrayDecimalLake(ctx context.Context, dir string) (*Lake, error) {
	spec := lakegen.Spec{Name: "amounts", Versions: []lakegen.Version{{Message: "v1", Snapshots: []lakegen.Snapshot{
		{lakegen.CreateTable{Table: "amounts", Columns: []lakegen.Column{{Name: "id", Type: "INTEGER"}, {Name: "a", Type: "DECIMAL(4,2)"}}}},
		{lakegen.Insert{Table: "amounts", Select: "SELECT i::INTEGER, i::DECIMAL(4,2) FROM range(10) r(i)"}},
	}}}}
	res, err := lakegen.Repository(ctx, dir, spec)
	if err != nil {
		return nil, err
	}
	return &Lake{Catalog: filepath.Join(dir, "versions", res.Versions[0].ID, "ducklake.duckdb"), Data: filepath.Join(dir, "data")}, nil
}

// BreakByteArrayDecimal rewrites the data file of NewByteArrayDecimalLake's
// amounts with a stored as BYTE_ARRAY DECIMAL(4,2) (ByteArrayDecimalSQL;
// Rewrite, FooterDecimalByteArray): the same rows to DuckDB 1.5.5 and
// later, 1.00 less a zero to the releases before. It
// records the file's new size in every catalog given, as Break does.
func (l *Lake) BreakByteArrayDecimal(ctx context.Context, catalogs ...string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	sel := "id, " + ByteArrayDecimalSQL("a", "(a * 100)::INTEGER") + " AS a"
	return l.rewrite(ctx, db, rewrite{"amounts", sel, "{id: 1, a: 2}", formats.FooterDecimalByteArray, "a", "4,2"}, catalogs)
}

// NewUUIDLake writes into dir a 1.0 lake, by lakegen, of one table ids
// (id INTEGER, u UUID) with one data file (u stored as
// FIXED_LEN_BYTE_ARRAY, PLAIN, as DuckDB writes it); BreakDeltaByteArray
// rewrites it so that it triggers FooterDeltaByteArray.
func NewUUIDLake(ctx context.Context, dir string) (*Lake, error) {
	spec := lakegen.Spec{Name: "ids", Versions: []lakegen.Version{{Message: "v1", Snapshots: []lakegen.Snapshot{
		{lakegen.CreateTable{Table: "ids", Columns: []lakegen.Column{{Name: "id", Type: "INTEGER"}, {Name: "u", Type: "UUID"}}}},
		{lakegen.Insert{Table: "ids", Select: "SELECT i::INTEGER, ('00000000-0000-0000-0000-' || lpad(i::VARCHAR, 12, '0'))::UUID FROM range(10) r(i)"}},
	}}}}
	res, err := lakegen.Repository(ctx, dir, spec)
	if err != nil {
		return nil, err
	}
	return &Lake{Catalog: filepath.Join(dir, "versions", res.Versions[0].ID, "ducklake.duckdb"), Data: filepath.Join(dir, "data")}, nil
}

// BreakDeltaByteArray rewrites the data file of NewUUIDLake's ids with the
// same rows, its u chunk's encodings listed as DELTA_BYTE_ARRAY (Rewrite,
// FooterDeltaByteArray), and records its new size in every catalog given,
// as Break does.
func (l *Lake) BreakDeltaByteArray(ctx context.Context, catalogs ...string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	return l.rewrite(ctx, db, rewrite{"ids", "", "{id: 1, u: 2}", formats.FooterDeltaByteArray, "u", ""}, catalogs)
}

// ByteArrayDecimalSQL is the BLOB a DECIMAL stored as BYTE_ARRAY holds
// (Rewrite, FooterDecimalByteArray) for the DECIMAL col, whose unscaled
// value unscaled is: a zero-length value for 0, 126 zero bytes and two
// for the value of unscaled 100 (a valid two's complement, whose length
// 128, written little-endian before it in a PLAIN page or a dictionary,
// starts with the byte 0x80), two bytes for the others (unscaled from 0
// to 32767). So a zero written before a 1.00, as in a column of 0.00,
// 1.00, ..., is read as 0.00 by DuckDB 1.5.5 and later and as -0.01 by
// the releases before, which take its sign from the next byte.
func ByteArrayDecimalSQL(col, unscaled string) string {
	return fmt.Sprintf("CASE WHEN %[1]s = 0 THEN ''::BLOB WHEN %[2]s = 100 THEN unhex(repeat('00', 126) || printf('%%04X', %[2]s)) ELSE unhex(printf('%%04X', %[2]s)) END", col, unscaled)
}

// rewrite is one table's data file rewritten (Rewrite's arguments).
type rewrite struct {
	table, sel, fieldIDs, quirk, from, to string
}

// rewrite rewrites the data file of rw.table and records its new size and
// footer size in the lake's catalog and the catalogs given.
func (l *Lake) rewrite(ctx context.Context, db *sql.DB, rw rewrite, catalogs []string) error {
	var name, rel string
	err := onCatalog(ctx, l.Catalog, func(c *sql.Conn) error {
		return c.QueryRowContext(ctx, `SELECT f.path, s.path || t.path || f.path FROM c.ducklake_data_file f JOIN c.ducklake_table t USING (table_id)
				JOIN c.ducklake_schema s USING (schema_id) WHERE t.table_name = ?`, rw.table).Scan(&name, &rel)
	})
	if err != nil {
		return fmt.Errorf("the data file of %s: %w", rw.table, err)
	}
	size, footer, err := Rewrite(ctx, db, filepath.Join(l.Data, filepath.FromSlash(rel)), rw.sel, rw.fieldIDs, rw.quirk, rw.from, rw.to)
	if err != nil {
		return err
	}
	for _, cat := range append([]string{l.Catalog}, catalogs...) {
		err := onCatalog(ctx, cat, func(c *sql.Conn) error {
			_, err := c.ExecContext(ctx, "UPDATE c.ducklake_data_file SET file_size_bytes = ?, footer_size = ? WHERE path = ?", size, footer, name)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", cat, err)
		}
	}
	return nil
}

// Reseal makes the lake's version.json and files.json say what its
// catalog and data files now are (after Break), as an FDL repository's
// must.
func (l *Lake) Reseal() error {
	vdir := filepath.Dir(l.Catalog)
	fj := filepath.Join(vdir, "files.json")
	var files map[string]any
	if err := readJSON(fj, &files); err != nil {
		return err
	}
	tables, _ := files["tables"].(map[string]any)
	for _, t := range tables {
		entries, _ := t.(map[string]any)["files"].([]any)
		for _, e := range entries {
			m := e.(map[string]any)
			b, err := os.ReadFile(filepath.Join(l.Data, filepath.FromSlash(m["path"].(string))))
			if err != nil {
				return err
			}
			m["bytes"], m["footer_bytes"] = len(b), binary.LittleEndian.Uint32(b[len(b)-8:])
		}
	}
	if err := writeJSON(fj, files); err != nil {
		return err
	}
	vj := filepath.Join(vdir, "version.json")
	var v map[string]any
	if err := readJSON(vj, &v); err != nil {
		return err
	}
	for key, name := range map[string]string{"catalog": l.Catalog, "files": fj} {
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ref := v[key].(map[string]any)
		ref["bytes"], ref["sha256"] = len(b), hex.EncodeToString(sum[:])
	}
	return writeJSON(vj, v)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// onCatalog runs f with the catalog file attached as c.
func onCatalog(ctx context.Context, catalog string, f func(*sql.Conn) error) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "ATTACH '"+strings.ReplaceAll(catalog, "'", "''")+"' AS c"); err != nil {
		return err
	}
	if err := f(c); err != nil {
		return err
	}
	_, err = c.ExecContext(ctx, "DETACH c")
	return err
}
