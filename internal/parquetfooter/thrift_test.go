package parquetfooter

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// thriftWriter writes Thrift's compact protocol, every field header in
// its long form (type, then the id as a zigzag varint), which readers
// take as they take the short one.
type thriftWriter struct {
	b []byte
	// rawType, where set, is the raw varint written for each chunk's
	// physical type (a zigzag i32 wider than 32 bits).
	rawType uint64
}

func (w *thriftWriter) field(t byte, id int16) *thriftWriter {
	w.b = append(w.b, t)
	return w.int(int64(id))
}

func (w *thriftWriter) int(v int64) *thriftWriter {
	w.b = binary.AppendUvarint(w.b, uint64(v<<1)^uint64(v>>63))
	return w
}

func (w *thriftWriter) bin(s string) *thriftWriter {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
	return w
}

func (w *thriftWriter) list(n int, elem byte) *thriftWriter {
	if n < 15 {
		w.b = append(w.b, byte(n)<<4|elem)
		return w
	}
	w.b = append(w.b, 0xf0|elem)
	w.b = binary.AppendUvarint(w.b, uint64(n))
	return w
}

func (w *thriftWriter) stop() *thriftWriter {
	w.b = append(w.b, ctStop)
	return w
}

// stats writes a Statistics struct of field 12 with the bounds given
// (field id: value).
func (w *thriftWriter) stats(bounds map[int16]string) *thriftWriter {
	w.field(ctStruct, 12)
	for _, id := range []int16{1, 2, 5, 6} {
		if v, ok := bounds[id]; ok {
			w.field(ctBinary, id).bin(v)
		}
	}
	return w.stop()
}

// chunk writes a ColumnChunk of the VARCHAR column s, whose meta_data
// holds statistics once per entry of stats.
func (w *thriftWriter) chunk(elem byte, stats ...map[int16]string) *thriftWriter {
	w.field(ctI64, 2).int(4)
	w.field(ctStruct, 3)
	if w.rawType != 0 {
		w.field(ctI32, 1)
		w.b = binary.AppendUvarint(w.b, w.rawType)
	} else {
		w.field(ctI32, 1).int(typeByteArray)
	}
	w.field(ctList, 2).list(1, ctI32).int(0)
	w.field(ctList, 3).list(1, elem).bin("s")
	w.field(ctI32, 4).int(0)
	w.field(ctI64, 5).int(1)
	w.field(ctI64, 6).int(10)
	w.field(ctI64, 7).int(10)
	w.field(ctI64, 9).int(4)
	for _, s := range stats {
		w.stats(s)
	}
	return w.stop().stop()
}

// head writes FileMetaData's version, schema (a root and the VARCHAR
// column s) and num_rows.
func (w *thriftWriter) head() *thriftWriter {
	w.field(ctI32, 1).int(1)
	w.field(ctList, 2).list(2, ctStruct)
	w.field(ctBinary, 4).bin("duckdb_schema").field(ctI32, 5).int(1).stop()
	w.field(ctI32, 1).int(typeByteArray).field(ctI32, 3).int(1).field(ctBinary, 4).bin("s").field(ctI32, 6).int(0).stop()
	return w.field(ctI64, 3).int(1)
}

// rowGroup writes a RowGroup of one row whose columns lists are chunks
// (each a list of chunk writers).
func (w *thriftWriter) rowGroup(columns ...[]func(*thriftWriter)) *thriftWriter {
	for _, cs := range columns {
		w.field(ctList, 1).list(len(cs), ctStruct)
		for _, c := range cs {
			c(w)
		}
	}
	return w.field(ctI64, 2).int(10).field(ctI64, 3).int(1).stop()
}

// TestFooterRepeatedFieldsAsDuckDB: a footer that repeats a field,
// declares a list's elements of another type than its schema's, or writes
// an i32, a field id or a size wider than its type, is read as DuckDB's generated Thrift readers
// read it (and parquet_metadata answers): a repeated list holds its last
// value alone, a repeated statistics struct adds its fields to the
// first's, a list's elements are read as the schema's type whatever the
// type declared, and an i32, i16 or size is the varint's low bits. A quirk the
// buggy readers hit in such a footer is then not missed.
func TestFooterRepeatedFieldsAsDuckDB(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	dir := t.TempDir()
	plain := func(w *thriftWriter) { w.chunk(ctBinary, map[int16]string{2: "a", 1: "b"}) }
	invalid := func(w *thriftWriter) { w.chunk(ctBinary, map[int16]string{6: "\xC3(", 5: "b"}) }
	cases := []struct {
		name   string
		footer func(w *thriftWriter)
	}{
		{"row_groups twice", func(w *thriftWriter) {
			w.head()
			w.field(ctList, 4).list(2, ctStruct)
			w.rowGroup([]func(*thriftWriter){invalid})
			w.rowGroup([]func(*thriftWriter){invalid})
			w.field(ctList, 4).list(1, ctStruct)
			w.rowGroup([]func(*thriftWriter){plain})
			w.stop()
		}},
		{"columns twice", func(w *thriftWriter) {
			w.head()
			w.field(ctList, 4).list(1, ctStruct)
			w.rowGroup([]func(*thriftWriter){invalid}, []func(*thriftWriter){plain})
			w.stop()
		}},
		{"statistics twice", func(w *thriftWriter) {
			w.head()
			w.field(ctList, 4).list(1, ctStruct)
			w.rowGroup([]func(*thriftWriter){func(w *thriftWriter) {
				w.chunk(ctBinary, map[int16]string{6: "\xC3(", 5: "b"}, map[int16]string{2: "a", 1: "b"})
			}})
			w.stop()
		}},
		{"path_in_schema declared of another type", func(w *thriftWriter) {
			w.head()
			w.field(ctList, 4).list(1, ctStruct)
			w.rowGroup([]func(*thriftWriter){func(w *thriftWriter) {
				w.chunk(ctI32, map[int16]string{6: "\xC3(", 5: "b"})
			}})
			w.stop()
		}},
		{"type wider than 32 bits", func(w *thriftWriter) {
			// Thrift's readI32 keeps the varint's low 32 bits: BYTE_ARRAY.
			w.rawType = 1<<32 | typeByteArray<<1
			w.head()
			w.field(ctList, 4).list(1, ctStruct)
			w.rowGroup([]func(*thriftWriter){invalid})
			w.stop()
		}},
		{"field id wider than 16 bits", func(w *thriftWriter) {
			// Thrift's readI16 keeps the varint's low bits: row_groups.
			w.head()
			w.b = append(w.b, ctList)
			w.b = binary.AppendUvarint(w.b, 1<<40|4<<1)
			w.list(1, ctStruct)
			w.rowGroup([]func(*thriftWriter){invalid})
			w.stop()
		}},
		{"sizes wider than 32 bits", func(w *thriftWriter) {
			// Thrift's sizes are i32s: the varint's low 32 bits.
			w.head()
			w.field(ctList, 4)
			w.b = append(w.b, 0xf0|ctStruct)
			w.b = binary.AppendUvarint(w.b, 1<<32|1)
			w.field(ctList, 1).list(1, ctStruct)
			invalid(w)
			w.field(ctI64, 2).int(10).field(ctI64, 3).int(1)
			w.field(ctBinary, 20)
			w.b = binary.AppendUvarint(w.b, 1<<33|2)
			w.b = append(w.b, "xy"...)
			w.stop()
			w.stop()
		}},
		{"row_groups declared of another type", func(w *thriftWriter) {
			w.head()
			w.field(ctList, 4).list(1, ctBinary)
			w.rowGroup([]func(*thriftWriter){invalid})
			w.stop()
		}},
	}
	var files []string
	feet := map[string]*Footer{}
	for i, c := range cases {
		w := &thriftWriter{}
		c.footer(w)
		b := append([]byte("PAR1"), w.b...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(w.b)))
		b = append(b, "PAR1"...)
		p := filepath.Join(dir, string(rune('a'+i))+".parquet")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		foot, err := ReadFooter(ctx, p)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		t.Logf("%s: %s", c.name, p)
		files = append(files, p)
		feet[p] = foot
	}
	compareBatch(t, ctx, db, files, feet)
}

// TestFooterDepthAsDuckDB: a footer nesting structs or lists deep in a
// field no check reads is read in Go wherever DuckDB reads it (a footer
// read in Go only fails where its readers fail: a footer left unread is
// not checked for quirks).
func TestFooterDepthAsDuckDB(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	dir := t.TempDir()
	nest := func(list bool, depth int) func(*thriftWriter) {
		return func(w *thriftWriter) {
			w.chunk(ctBinary)
			w.b = w.b[:len(w.b)-2] // reopen meta_data
			if list {
				w.field(ctList, 20)
				for range depth - 1 {
					w.list(1, ctList)
				}
				w.list(1, ctI32).int(7)
			} else {
				w.field(ctStruct, 20)
				for range depth - 1 {
					w.field(ctStruct, 1)
				}
				w.field(ctI32, 1).int(7)
				for range depth {
					w.stop()
				}
			}
			w.stop().stop()
		}
	}
	both := 0
	for _, list := range []bool{false, true} {
		for depth := 50; depth <= 70; depth++ {
			w := &thriftWriter{}
			w.head()
			w.field(ctList, 4).list(1, ctStruct)
			w.rowGroup([]func(*thriftWriter){nest(list, depth)})
			w.stop()
			b := append([]byte("PAR1"), w.b...)
			b = binary.LittleEndian.AppendUint32(b, uint32(len(w.b)))
			b = append(b, "PAR1"...)
			p := filepath.Join(dir, "nested.parquet")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFooter(ctx, p)
			var n int64
			derr := db.QueryRowContext(ctx, `SELECT count(*) FROM parquet_metadata('`+p+`')`).Scan(&n)
			if err != nil && derr == nil {
				t.Errorf("lists %v, depth %d: read in Go: %v; parquet_metadata reads it", list, depth, err)
			}
			if err == nil && derr == nil {
				both++
			}
		}
	}
	if both == 0 {
		t.Fatal("no nested footer read by both")
	}
}

// TestReadFooterNamedPipe: a data file's path that names a named pipe (a
// hostile repository's data folder, or a catalog's absolute path) is an
// error naming the file, at once. Before, opening it waited for a writer
// forever.
func TestReadFooterNamedPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.parquet")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFooter(context.Background(), p)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("ReadFooter of a named pipe: %v, want an error naming it, not a regular file", err)
		}
	case <-time.After(10 * time.Second):
		// Unblock the open, so the test binary ends.
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("ReadFooter of a named pipe still waits after 10 s")
	}
}
