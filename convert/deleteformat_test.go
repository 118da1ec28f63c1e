package convert

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestDeleteFileFormatUpTo10: converting a 0.x catalog up to 1.0 or 1.1
// writes 'parquet' as the format of every delete file whose format column
// holds anything else (NULL stays NULL). Readers before 1.0 never read the
// column and open every delete file as Parquet; 1.0+ readers fail on a
// value other than parquet or puffin ("Unknown delete file format") and
// open 'puffin' in any case as a deletion vector. So the 0.x readers' rows
// are what 'parquet' gives, and the proof holds. Before, the value was
// copied: a 0.3 lake whose delete file said "" became a 1.0 catalog every
// read of whose table fails.
func TestDeleteFileFormatUpTo10(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes-0.3", "06_deletes")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		value, want string // the source's format ('' SQL literal), the target's (NULL: none)
	}{
		{"''", "parquet"}, {"'PUFFIN'", "parquet"}, {"'Parquet'", "parquet"}, {"'orc'", "parquet"}, {"NULL", "NULL"}, {"'parquet'", "parquet"},
	} {
		for _, target := range []*formats.Version{formats.V1_0, formats.V1_1} {
			t.Run(tc.value+"/"+target.Name, func(t *testing.T) {
				src := editedCopy(t, vs[len(vs)-1], `UPDATE ducklake_delete_file SET format = `+tc.value)
				out := filepath.Join(t.TempDir(), "out.duckdb")
				if _, err := Catalog(ctx, src, out, target, Options{DataPath: data}); err != nil {
					t.Fatal(err)
				}
				rows := query(t, out, `SELECT DISTINCT coalesce(format, 'NULL') FROM c.ducklake_delete_file`)
				if len(rows) == 0 {
					t.Fatal("the lake has no delete files")
				}
				for _, row := range rows {
					if row[0] != tc.want {
						t.Errorf("format %s became %s, want %s", tc.value, row[0], tc.want)
					}
				}
				proveEquivalent(t, src, out, data)
			})
		}
	}
}

// TestDeletionVectorsAnyCase: 1.0 readers open a delete file whose format
// is 'puffin' in any letter case as a deletion vector (CIEquals in
// DeleteFileFormatFromString), which 0.4 readers open as Parquet and fail
// on; convert matched 'puffin' in lower case only, so an upper-case one
// went down to 0.4 unrefused (the proof then failed the output).
func TestDeletionVectorsAnyCase(t *testing.T) {
	lake := testlakes.Lake(t, "lakes", "24_deletion_vectors")
	vs := versionCatalogs(t, lake)
	for _, value := range []string{"'puffin'", "'PUFFIN'", "'Puffin'"} {
		t.Run(value, func(t *testing.T) {
			src := editedCopy(t, vs[len(vs)-1], `UPDATE ducklake_delete_file SET format = `+value+` WHERE lower(format) = 'puffin'`)
			got, err := refusalCodes(t, src, formats.V0_4, Options{DataPath: filepath.Join(lake, "data")})
			if err != nil || got != "deletion-vectors" {
				t.Fatalf("refused for %q (%v), want deletion-vectors", got, err)
			}
		})
	}
}

// TestTamperedDeletionVector: --rewrite-deletes lists a deletion vector's
// positions only when their number fits its data file (its record_count,
// and its Parquet row count where that is tampered too): a bare vector of
// a few bytes of run containers claiming 2^32 positions for a file of a
// few rows is refused, naming the delete and data files; before, the
// rewrite made a slice of 2^32 positions and ran out of memory.
func TestTamperedDeletionVector(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "24_deletion_vectors")
	vs := versionCatalogs(t, lake)
	bm := roaring64.New()
	bm.AddRange(0, 1<<32)
	bm.RunOptimize()
	var vec bytes.Buffer
	if _, err := bm.WriteTo(&vec); err != nil {
		t.Fatal(err)
	}
	body := append(slices.Clone(dvMagic), vec.Bytes()...)
	blob := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	blob = binary.BigEndian.AppendUint32(append(blob, body...), crc32.ChecksumIEEE(body))
	for _, tc := range []struct{ name, stmt, want string }{
		{"held to record_count", "", "(record_count)"},
		{"record_count tampered: held to the Parquet row count", "UPDATE ducklake_data_file SET record_count = 1099511627776", "(Parquet row count)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			n := 0
			err := filepath.WalkDir(data, func(path string, d os.DirEntry, err error) error {
				if err != nil || !strings.HasSuffix(path, ".puffin") {
					return err
				}
				n++
				return os.WriteFile(path, blob, 0o644)
			})
			if err != nil || n == 0 {
				t.Fatalf("%d deletion vectors rewritten: %v", n, err)
			}
			src := vs[len(vs)-1]
			if tc.stmt != "" {
				src = editedCopy(t, src, tc.stmt)
			}
			_, err = Catalog(ctx, src, filepath.Join(t.TempDir(), "out.duckdb"), formats.V0_4, Options{DataPath: data, RewriteDeletes: true})
			if err == nil {
				t.Fatal("converted")
			}
			t.Log(err)
			for _, w := range []string{"deletion vector claims 4294967296 positions", tc.want, ".puffin", "data file "} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
