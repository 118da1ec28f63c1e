package parquetfooter

import (
	"errors"
	"fmt"
)

// A Parquet footer is a FileMetaData struct in Thrift's compact protocol.
// decoder reads that protocol from a byte slice: the fields a caller
// handles, and skips the others (as Thrift's own generated readers do,
// also for a known field of another type than expected). It never
// panics: a truncated or hostile footer is an error.

// Compact protocol types (the low nibble of a field header, or of a
// list's).
const (
	ctStop   = 0
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
	ctUUID   = 13
)

// maxDepth caps the nesting of structs and skipped containers: Parquet's
// FileMetaData nests a few levels; a deeper footer is hostile. It is the
// limit of DuckDB's Thrift readers (DEFAULT_RECURSION_LIMIT), which count
// a read struct, and a skipped value of any type, as a level: a footer
// they read is never too deep here (TestFooterDepthAsDuckDB).
const maxDepth = 64

var errTruncated = errors.New("footer truncated")

type decoder struct {
	b     []byte
	pos   int
	depth int
}

func (d *decoder) byte() (byte, error) {
	if d.pos >= len(d.b) {
		return 0, errTruncated
	}
	c := d.b[d.pos]
	d.pos++
	return c, nil
}

func (d *decoder) uvarint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := d.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("varint at byte %d too long", d.pos)
}

// varint reads a zigzag varint (i16, i32 and i64 alike).
func (d *decoder) varint() (int64, error) {
	u, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	return int64(u>>1) ^ -int64(u&1), nil
}

// i32 reads a zigzag i32 as Thrift's C++ reader (DuckDB's) does: the
// varint's low 32 bits, whatever its width (a footer read otherwise than
// DuckDB reads it could hide a quirk).
func (d *decoder) i32() (int32, error) {
	u, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	n := uint32(u)
	return int32(n>>1) ^ -int32(n&1), nil
}

func (d *decoder) skipBytes(n int) error {
	if n < 0 || n > len(d.b)-d.pos {
		return errTruncated
	}
	d.pos += n
	return nil
}

// size reads a binary's, list's or map's size as Thrift's C++ reader
// (DuckDB's) does: an i32 of the varint's low 32 bits, not negative.
func (d *decoder) size() (uint64, error) {
	u, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	n := int32(uint32(u))
	if n < 0 {
		return 0, fmt.Errorf("negative size %d at byte %d", n, d.pos)
	}
	return uint64(n), nil
}

func (d *decoder) binary() ([]byte, error) {
	n, err := d.size()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(d.b)-d.pos) {
		return nil, errTruncated
	}
	out := d.b[d.pos : d.pos+int(n) : d.pos+int(n)]
	d.pos += int(n)
	return out, nil
}

// listHeader reads a list's (or set's) size and element type. Each
// element takes a byte at least, so a size beyond the bytes left is
// refused before any is read.
func (d *decoder) listHeader() (n int, elem byte, err error) {
	c, err := d.byte()
	if err != nil {
		return 0, 0, err
	}
	size := uint64(c >> 4)
	if size == 15 {
		if size, err = d.size(); err != nil {
			return 0, 0, err
		}
	}
	if size > uint64(len(d.b)-d.pos) {
		return 0, 0, errTruncated
	}
	return int(size), c & 0x0f, nil
}

// skip skips a value of type t.
func (d *decoder) skip(t byte) error {
	switch t {
	case ctTrue, ctFalse:
		return nil // a struct field's value is in its type
	case ctByte:
		return d.skipBytes(1)
	case ctI16, ctI32, ctI64:
		_, err := d.uvarint()
		return err
	case ctDouble:
		return d.skipBytes(8)
	case ctBinary:
		_, err := d.binary()
		return err
	case ctUUID:
		return d.skipBytes(16)
	case ctStruct:
		return d.structFields(func(_ int16, t byte) error { return d.skip(t) })
	case ctList, ctSet:
		if err := d.enter(); err != nil {
			return err
		}
		defer d.leave()
		return d.list(func(elem byte) error { return d.skipElem(elem) })
	case ctMap:
		if err := d.enter(); err != nil {
			return err
		}
		defer d.leave()
		n, err := d.size()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if n > uint64(len(d.b)-d.pos) {
			return errTruncated
		}
		kv, err := d.byte()
		if err != nil {
			return err
		}
		for range n {
			if err := d.skipElem(kv >> 4); err != nil {
				return err
			}
			if err := d.skipElem(kv & 0x0f); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown Thrift type %d at byte %d", t, d.pos)
}

// skipElem skips a container's element: a boolean there takes a byte.
func (d *decoder) skipElem(t byte) error {
	if t == ctTrue || t == ctFalse {
		return d.skipBytes(1)
	}
	return d.skip(t)
}

func (d *decoder) enter() error {
	if d.depth >= maxDepth {
		return fmt.Errorf("footer nested deeper than %d at byte %d", maxDepth, d.pos)
	}
	d.depth++
	return nil
}

func (d *decoder) leave() { d.depth-- }

// list reads a list's (or set's) header and calls each for each element
// with the element type; each must read the element. A list read does not
// count as a level of nesting, as in DuckDB's Thrift readers (a skipped
// one does: skip), so that no footer they read is too deep here.
func (d *decoder) list(each func(elem byte) error) error {
	n, elem, err := d.listHeader()
	if err != nil {
		return err
	}
	for range n {
		if err := each(elem); err != nil {
			return err
		}
	}
	return nil
}

// structFields reads a struct's fields up to its stop, calling field with
// each field's id and type; field must read (or skip) the value.
func (d *decoder) structFields(field func(id int16, t byte) error) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	var last int16
	for {
		c, err := d.byte()
		if err != nil {
			return err
		}
		t := c & 0x0f
		if t == ctStop {
			return nil
		}
		id := last + int16(c>>4)
		if c>>4 == 0 {
			// An i16 as Thrift's C++ reader reads one: an i32's low
			// 16 bits (i32).
			v, err := d.i32()
			if err != nil {
				return err
			}
			id = int16(v)
		}
		last = id
		if err := field(id, t); err != nil {
			return err
		}
	}
}

// typeIs tells whether a field of type t holds a value of type want (a
// boolean field's type is ctTrue or ctFalse).
func typeIs(t, want byte) bool {
	if want == ctTrue || want == ctFalse {
		return t == ctTrue || t == ctFalse
	}
	return t == want
}
