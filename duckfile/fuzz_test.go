package duckfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// header builds the first HeadersSize bytes of a DuckDB file from the
// numbers its headers carry (the layout Read parses).
func header(version, iter1, ser1, blocks1, size1, iter2, ser2, blocks2, size2 uint64, writer string) []byte {
	b := make([]byte, HeadersSize)
	copy(b[magicOffset:], "DUCK")
	binary.LittleEndian.PutUint64(b[magicOffset+4:], version)
	copy(b[writerOffset:writerOffset+writerSize], writer)
	for i, db := range [][4]uint64{{iter1, ser1, blocks1, size1}, {iter2, ser2, blocks2, size2}} {
		h := b[(i+1)*headerSize:]
		binary.LittleEndian.PutUint64(h[iterationOffset:], db[0])
		binary.LittleEndian.PutUint64(h[serializationOffset:], db[1])
		binary.LittleEndian.PutUint64(h[blockCountOffset:], db[2])
		binary.LittleEndian.PutUint64(h[blockSizeOffset:], db[3])
	}
	return b
}

// FuzzRead: the first bytes of a file that claims to be a DuckDB database
// (a repository's catalog): Read never panics, and what it reads is a
// header whose every method answers. The seeds run with the ordinary
// tests; `go test ./duckfile -run '^$' -fuzz '^FuzzRead$' -fuzztime 10m`
// runs it for longer.
func FuzzRead(f *testing.F) {
	f.Add(header(68, 2, 7, 10, 16384, 1, 6, 5, 16384, "v1.5.6"), int64(HeadersSize+10*16384))
	f.Add(header(64, 1, 1, 0, 262144, 1, 2, 0, 262144, "v0.10.0"), int64(HeadersSize))
	f.Add(header(999, 1, 69, 3, 262144, 0, 0, 0, 0, "v2.0.0"), int64(HeadersSize+3*262144))
	f.Add(header(99, 1, 99, 1<<40, 1<<30, 0, 0, 0, 0, "v9.9.9"), int64(-1))
	f.Add(header(1<<63, ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), 0, 0, 0, 0, ""), int64(1<<62))
	f.Add([]byte("not a database"), int64(0))
	f.Add(header(68, 0, 7, 0, 0, 0, 0, 0, 0, "")[:5000], int64(5000))
	f.Fuzz(func(t *testing.T, data []byte, size int64) {
		h, err := Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrNotDuckDB) && !errors.Is(err, ErrTruncated) {
				t.Fatalf("Read: %v", err)
			}
			return
		}
		if h.Length() < 0 || (h.Length() > 0 && h.Length() < HeadersSize) {
			t.Fatalf("Length() = %d", h.Length())
		}
		if h.Known() != (MinDuckDB(h.Storage) != nil) {
			t.Fatalf("storage %q: Known %t", h.Storage, h.Known())
		}
		if h.MinDuckDB() == nil {
			t.Fatal("MinDuckDB() = nil")
		}
		_, _, _ = h.String(), h.TooNew(), h.Resave()
		if h.Newer() != (h.MinDuckDB().GreaterThan(MinDuckDB(Storages[len(Storages)-1].Name))) {
			t.Fatalf("storage %q (needs %s): Newer %t", h.Storage, h.MinDuckDB(), h.Newer())
		}
		h.Cut(size)
	})
}

// FuzzMinDuckDB: a storage name as version.json's catalog.storage or
// --storage gives it.
func FuzzMinDuckDB(f *testing.F) {
	for _, s := range []string{"v1.5.0", "duckdb-v1.5.3", "v0.10.3", "v2.0.0", "duckdb-v1.5.9223372036854775807", "1", "v1.2.3-rc1+meta", "latest", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := MinDuckDB(s)
		older, known := Older(s, DictFSSTReadable)
		if known != (v != nil) || (older && !known) {
			t.Fatalf("Older(%q) = %t, %t with MinDuckDB %v", s, older, known, v)
		}
	})
}
