package parquetfooter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// The footer's row groups and column chunks are read here, in Go, from
// its Thrift bytes, rather than with DuckDB's parquet_metadata: that
// renders every chunk's statistics bounds as text, whatever the query
// selects, and DuckDB 1.5.6 fails on a TIMESTAMP_NS bound before
// 1677-09-22 ("Date out of range in timestamp_ns conversion"), which it
// reads and a DuckLake reader reads fine. The answers are parquet_metadata's
// (row_group_num_rows, type, path_in_schema, encodings, num_values, the
// statistics fields, a VARCHAR bound rendered as DuckDB renders it: see
// TestFooterAsParquetMetadata). The schema's leaf elements (physical and
// converted type, precision) are read here too, as parquet_schema gives
// them: the wide-DECIMAL check needs no statement.
//
// A footer is read as DuckDB's generated Thrift readers read it, also
// where a hostile one departs from parquet.thrift
// (TestFooterRepeatedFieldsAsDuckDB): a repeated list field holds its last
// value alone, a repeated struct field (meta_data, statistics) adds its
// fields to the first's, a list's elements are read as the schema's type,
// whatever element type the list declares, an i32, a field id or a size
// is its varint's low 32 bits, and nesting is refused only where they
// refuse it (TestFooterDepthAsDuckDB). A footer read otherwise could hide
// a quirk that the buggy readers hit.

// Footer is what a Parquet file's footer (FileMetaData) holds that the
// footer checks read.
type Footer struct {
	RowGroups []RowGroup
	// Leaves are the schema's elements without children, in schema order
	// (the column_id of parquet_metadata, as parquet_schema lists them).
	Leaves []SchemaLeaf
}

// SchemaLeaf is what the checks read of a leaf element of a footer's
// schema, each field with whether it is set.
type SchemaLeaf struct {
	Name                           string
	Type, ConvertedType, Precision int32
	HasType, HasConverted, HasPrec bool
	// TypeLength is a FIXED_LEN_BYTE_ARRAY's length (0 when not set, as
	// DuckDB takes it).
	TypeLength int32
}

// RowGroup is a row group of a footer.
type RowGroup struct {
	NumRows int64
	Columns []ColumnChunk
}

// ColumnChunk is a column chunk of a row group, in column order (the
// column_id of parquet_metadata).
type ColumnChunk struct {
	// HasMeta: the chunk holds its meta_data (an encrypted column's may
	// not); the fields below are its.
	HasMeta bool
	// Type is the physical type (parquet.thrift's Type: 6 BYTE_ARRAY).
	Type      int32
	Path      []string
	Encodings []int32
	NumValues int64
	Stats     Statistics
}

// Statistics is a chunk's statistics, each field with whether it is set.
type Statistics struct {
	Min, Max, MinValue, MaxValue             []byte
	HasMin, HasMax, HasMinValue, HasMaxValue bool
	NullCount, DistinctCount                 int64
	HasNullCount, HasDistinctCount           bool
}

// Physical types, converted types and encodings of parquet.thrift the
// checks name.
const (
	typeInt32             = 1
	typeInt64             = 2
	typeByteArray         = 6
	typeFixedLenByteArray = 7
	convertedDecimal      = 5
	encodingDeltaLengthBA = 6
	encodingDeltaBA       = 7
)

// PathInSchema is the chunk's path as parquet_metadata's path_in_schema
// renders it (its parts joined by ", ").
func (c ColumnChunk) PathInSchema() string { return strings.Join(c.Path, ", ") }

// footerMagic ends a Parquet file whose footer is plain; encryptedMagic
// one whose footer is encrypted (which is not read here, as DuckDB's
// parquet_metadata does not without the key).
const (
	footerMagic    = "PAR1"
	encryptedMagic = "PARE"
)

// ReadFooter reads the footer of the Parquet file at path (a local file:
// a data file, or a stand-in holding only its footer). The error names
// the file.
func ReadFooter(ctx context.Context, path string) (*Footer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := footerBytes(path)
	if err != nil {
		return nil, fmt.Errorf("read the Parquet footer of %s: %w", oneline.Name(path), err)
	}
	f, err := parseFooter(b)
	if err != nil {
		return nil, fmt.Errorf("read the Parquet footer of %s: %w", oneline.Name(path), err)
	}
	return f, nil
}

// RowGroupRows reads the row counts of the row groups of the Parquet file
// at path, in file order (parquet_metadata's row_group_num_rows by
// row_group_id).
func RowGroupRows(ctx context.Context, path string) ([]int64, error) {
	f, err := ReadFooter(ctx, path)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(f.RowGroups))
	for i, g := range f.RowGroups {
		out[i] = g.NumRows
	}
	return out, nil
}

// footerBytes reads the Thrift bytes of a file's footer: the file ends
// with them, their length (4 bytes, little-endian) and "PAR1". A path
// that is not a regular file is refused before it is opened, and opened
// without blocking (a named pipe, put there meanwhile, would wait for a
// writer forever).
func footerBytes(path string) ([]byte, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if size < 12 {
		return nil, fmt.Errorf("%d bytes, too small for a Parquet file", size)
	}
	var tail [8]byte
	if got, err := file.ReadAt(tail[:], size-8); got < len(tail) {
		return nil, err
	}
	switch string(tail[4:]) {
	case footerMagic:
	case encryptedMagic:
		return nil, errors.New("the footer is encrypted")
	default:
		return nil, fmt.Errorf("no Parquet magic bytes at its end (%q)", tail[4:])
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n == 0 || n > size-12 {
		return nil, fmt.Errorf("footer length %d in a file of %d bytes", n, size)
	}
	b := make([]byte, n)
	if got, err := file.ReadAt(b, size-8-n); got < len(b) {
		return nil, err
	}
	return b, nil
}

// required checks that a struct had its required fields (ids in need,
// seen as bits of got): Thrift's readers refuse a struct without them.
func required(what string, got uint64, need ...int16) error {
	for _, id := range need {
		if got&(1<<uint(id)) == 0 {
			return fmt.Errorf("%s lacks its required field %d", what, id)
		}
	}
	return nil
}

// mark records field id as seen in got (ids past 63 are not tracked: no
// required field has one).
func mark(got *uint64, id int16) {
	if id >= 0 && id < 64 {
		*got |= 1 << uint(id)
	}
}

// parseFooter decodes a FileMetaData.
func parseFooter(b []byte) (*Footer, error) {
	d := &decoder{b: b}
	f := &Footer{}
	var got uint64
	err := d.structFields(func(id int16, t byte) error {
		switch {
		case id == 1 && typeIs(t, ctI32), id == 3 && typeIs(t, ctI64): // version, num_rows
			mark(&got, id)
			_, err := d.varint()
			return err
		case id == 2 && typeIs(t, ctList): // schema
			mark(&got, id)
			f.Leaves = f.Leaves[:0] // a repeated field's last value stands
			n := 0
			return d.list(func(byte) error {
				e, children, err := parseSchemaElement(d)
				if err != nil {
					return fmt.Errorf("schema element %d: %w", n, err)
				}
				n++
				if children == 0 {
					f.Leaves = append(f.Leaves, e)
				}
				return nil
			})
		case id == 4 && typeIs(t, ctList): // row_groups
			mark(&got, id)
			f.RowGroups = f.RowGroups[:0] // a repeated field's last value stands
			return d.list(func(byte) error {
				g, err := parseRowGroup(d)
				if err != nil {
					return fmt.Errorf("row group %d: %w", len(f.RowGroups), err)
				}
				f.RowGroups = append(f.RowGroups, g)
				return nil
			})
		}
		return d.skip(t)
	})
	if err != nil {
		return nil, err
	}
	if err := required("FileMetaData", got, 1, 2, 3, 4); err != nil {
		return nil, err
	}
	return f, nil
}

// parseSchemaElement decodes a SchemaElement: its leaf fields and its
// num_children (0 when unset).
func parseSchemaElement(d *decoder) (SchemaLeaf, int32, error) {
	var e SchemaLeaf
	var children int32
	var got uint64
	err := d.structFields(func(id int16, t byte) error {
		var err error
		switch {
		case id == 1 && typeIs(t, ctI32): // type
			e.Type, err = d.i32()
			e.HasType = true
		case id == 2 && typeIs(t, ctI32): // type_length
			e.TypeLength, err = d.i32()
		case id == 4 && typeIs(t, ctBinary): // name
			mark(&got, id)
			var b []byte
			b, err = d.binary()
			e.Name = string(b)
		case id == 5 && typeIs(t, ctI32): // num_children
			children, err = d.i32()
		case id == 6 && typeIs(t, ctI32): // converted_type
			e.ConvertedType, err = d.i32()
			e.HasConverted = true
		case id == 8 && typeIs(t, ctI32): // precision
			e.Precision, err = d.i32()
			e.HasPrec = true
		default:
			err = d.skip(t)
		}
		return err
	})
	if err == nil {
		err = required("SchemaElement", got, 4)
	}
	return e, children, err
}

func parseRowGroup(d *decoder) (RowGroup, error) {
	var g RowGroup
	var got uint64
	err := d.structFields(func(id int16, t byte) error {
		switch {
		case id == 1 && typeIs(t, ctList): // columns
			mark(&got, id)
			g.Columns = g.Columns[:0] // a repeated field's last value stands
			return d.list(func(byte) error {
				c, err := parseColumnChunk(d)
				if err != nil {
					return fmt.Errorf("column %d: %w", len(g.Columns), err)
				}
				g.Columns = append(g.Columns, c)
				return nil
			})
		case id == 2 && typeIs(t, ctI64): // total_byte_size
			mark(&got, id)
			_, err := d.varint()
			return err
		case id == 3 && typeIs(t, ctI64): // num_rows
			mark(&got, id)
			n, err := d.varint()
			g.NumRows = n
			return err
		}
		return d.skip(t)
	})
	if err == nil {
		err = required("RowGroup", got, 1, 2, 3)
	}
	return g, err
}

func parseColumnChunk(d *decoder) (ColumnChunk, error) {
	var c ColumnChunk
	var got uint64
	err := d.structFields(func(id int16, t byte) error {
		switch {
		case id == 2 && typeIs(t, ctI64): // file_offset
			mark(&got, id)
			_, err := d.varint()
			return err
		case id == 3 && typeIs(t, ctStruct): // meta_data
			c.HasMeta = true
			return parseColumnMeta(d, &c)
		}
		return d.skip(t)
	})
	if err == nil {
		err = required("ColumnChunk", got, 2)
	}
	return c, err
}

func parseColumnMeta(d *decoder, c *ColumnChunk) error {
	var got uint64
	err := d.structFields(func(id int16, t byte) error {
		var err error
		switch {
		case id == 1 && typeIs(t, ctI32): // type
			mark(&got, id)
			c.Type, err = d.i32()
			return err
		case id == 2 && typeIs(t, ctList): // encodings
			mark(&got, id)
			c.Encodings = c.Encodings[:0]
			return d.list(func(byte) error {
				e, err := d.i32()
				c.Encodings = append(c.Encodings, e)
				return err
			})
		case id == 3 && typeIs(t, ctList): // path_in_schema
			mark(&got, id)
			c.Path = c.Path[:0]
			return d.list(func(byte) error {
				s, err := d.binary()
				c.Path = append(c.Path, string(s))
				return err
			})
		case id == 4 && typeIs(t, ctI32), // codec
			(id == 6 || id == 7 || id == 9) && typeIs(t, ctI64): // sizes, data_page_offset
			mark(&got, id)
			_, err = d.varint()
			return err
		case id == 5 && typeIs(t, ctI64): // num_values
			mark(&got, id)
			c.NumValues, err = d.varint()
			return err
		case id == 12 && typeIs(t, ctStruct): // statistics
			// A repeated struct adds its fields to the first's.
			return parseStatistics(d, &c.Stats)
		}
		return d.skip(t)
	})
	if err == nil {
		err = required("ColumnMetaData", got, 1, 2, 3, 4, 5, 6, 7, 9)
	}
	return err
}

func parseStatistics(d *decoder, s *Statistics) error {
	return d.structFields(func(id int16, t byte) error {
		var err error
		switch {
		case id == 1 && typeIs(t, ctBinary):
			s.Max, err = d.binary()
			s.HasMax = true
		case id == 2 && typeIs(t, ctBinary):
			s.Min, err = d.binary()
			s.HasMin = true
		case id == 3 && typeIs(t, ctI64):
			s.NullCount, err = d.varint()
			s.HasNullCount = true
		case id == 4 && typeIs(t, ctI64):
			s.DistinctCount, err = d.varint()
			s.HasDistinctCount = true
		case id == 5 && typeIs(t, ctBinary):
			s.MaxValue, err = d.binary()
			s.HasMaxValue = true
		case id == 6 && typeIs(t, ctBinary):
			s.MinValue, err = d.binary()
			s.HasMinValue = true
		default:
			err = d.skip(t)
		}
		return err
	})
}

// renderVarchar renders a statistics bound of a VARCHAR column as DuckDB's
// parquet_metadata does: as it is when valid UTF-8, else as a blob
// (printable ASCII but the backslash and quotes as it is, every other
// byte as \xHH).
func renderVarchar(b []byte) string {
	if validUTF8(b) {
		return string(b)
	}
	return renderBlob(b)
}

func renderBlob(b []byte) string {
	const hex = "0123456789ABCDEF"
	var s strings.Builder
	for _, c := range b {
		if c >= 32 && c <= 126 && c != '\\' && c != '\'' && c != '"' {
			s.WriteByte(c)
			continue
		}
		s.WriteString(`\x`)
		s.WriteByte(hex[c>>4])
		s.WriteByte(hex[c&0x0f])
	}
	return s.String()
}

// validUTF8 is the UTF-8 check DuckDB applies to a VARCHAR bound.
func validUTF8(b []byte) bool { return utf8.Valid(b) }
