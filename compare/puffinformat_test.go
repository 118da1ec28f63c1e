package compare

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPuffinReadByFormat: a Puffin delete file is read as the real reader
// of the catalog's format reads it. 0.1-0.4 have no Puffin reader (DuckLake
// before 1.0 opens every delete file as Parquet), 1.0 decodes the whole
// file as one bare deletion vector (v1.5-variegata's
// ScanDeletionVectorFile: a Puffin container fails "Magic bytes mismatch"),
// 1.1 reads both. The conformance lake 24_deletion_vectors (a real 1.0
// lake) has bare deletion vectors; a container holding the same blob (the
// real vector's bytes) deletes the same positions for a 1.1 reader. Before,
// every such catalog was equivalent to the lake.
func TestPuffinReadByFormat(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "24_deletion_vectors")
	data := filepath.Join(lake, "data")
	// Delete file 5 of data file 0 (table main.dv) is a bare deletion vector.
	const rel = "main/dv/ducklake-01a229fb-210a-7f23-b695-50cb85ffba1d-delete.puffin"
	blob, err := os.ReadFile(filepath.Join(data, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	wrapped, size, footer := wrapInContainer(t, blob)
	for _, tc := range []struct {
		name  string
		stmts []string
		want  string // "" equivalent, else a difference of kind unreadable naming it
	}{
		{"1.0 reading a Puffin container", []string{fmt.Sprintf(
			"UPDATE ducklake_delete_file SET path = %s, path_is_relative = false, file_size_bytes = %d, footer_size = %d WHERE delete_file_id = 5",
			sqlString(wrapped), size, footer)}, "Magic bytes mismatch, deletion vector is corrupt!"},
		{"0.4 reading a bare deletion vector", []string{`UPDATE ducklake_metadata SET value = '0.4' WHERE key = 'version'`},
			"No magic bytes found at end of file"},
		{"1.0 reading its bare deletion vectors", []string{`UPDATE ducklake_metadata SET value = value WHERE key = 'version'`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tamper(t, catalog, tc.stmts...)
			rep, err := Catalogs(ctx, catalog, b, Options{DataPath: data, Engines: readerDBs})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Catalogs: %v, want equivalent", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "unreadable", tc.want) {
				var lines []string
				if rep != nil {
					for _, d := range rep.Differences {
						lines = append(lines, d.String())
					}
				}
				t.Fatalf("Catalogs: %v, want an unreadable table naming %q\n%s", err, tc.want, strings.Join(lines, "\n"))
			}
		})
	}
	// 1.1 reads the container: the positions are the bare vector's.
	bare, err := puffinDeletes(filepath.Join(data, filepath.FromSlash(rel)), 1<<62, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := puffinDeletes(wrapped, 1<<62, nil)
	if err != nil || len(got) != len(bare) || len(got) == 0 {
		t.Fatalf("the container reads %d positions (%v), the bare vector %d", len(got), err, len(bare))
	}
}

// wrapInContainer writes a Puffin container holding one deletion-vector
// blob without a snapshot property, and returns its path, size and footer
// size (as DuckLake records it).
func wrapInContainer(t *testing.T, blob []byte) (path string, size, footer int64) {
	t.Helper()
	meta, err := json.Marshal(map[string]any{"blobs": []map[string]any{{
		"type": "deletion-vector-v1", "fields": []int{}, "snapshot-id": -1, "sequence-number": -1,
		"offset": len(puffinMagic), "length": len(blob),
		"properties": map[string]string{"referenced-data-file": "x.parquet", "cardinality": "0"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.Write(puffinMagic)
	buf.Write(blob)
	buf.Write(puffinMagic)
	buf.Write(meta)
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(meta))))
	buf.Write([]byte{0, 0, 0, 0})
	buf.Write(puffinMagic)
	path = filepath.Join(t.TempDir(), "container.puffin")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	footer, err = footerSize(f, int64(buf.Len()), "puffin")
	if err != nil {
		t.Fatal(err)
	}
	return path, int64(buf.Len()), footer
}
