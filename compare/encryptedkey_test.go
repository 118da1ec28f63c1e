package compare

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestEncryptedFileWithoutKey: in a catalog whose ducklake_metadata says
// encrypted = 'true', every DuckLake reader (ReadDataFile, v1.3-ossivalis
// to main) selects each visible data and delete file's encryption_key and
// throws "Database is encrypted, but file ... does not have an encryption
// key" on a NULL one, and DuckLake's writers always write one there: such
// a catalog is not a DuckLake catalog (formats.Column.NullWhen), in every
// format, and is not opened (a "catalog" difference beside one that
// reads; none to compare when both hold it). 15_encryption is a real
// encrypted 1.0 lake. Before, the proof read such a file without a key
// (a plain file registered without one, what a bad conversion or an edit
// leaves); then it reported the table unreadable, which a catalog holding
// the NULL on both sides passed.
func TestEncryptedFileWithoutKey(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "15_encryption")
	data := filepath.Join(lake, "data")
	plain := filepath.Join(t.TempDir(), "plain.parquet")
	db := testduck.Open(t, "")
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("COPY (SELECT 5000::BIGINT AS id, 'clear' AS payload) TO %s (FORMAT parquet, FIELD_IDS {id: 1, payload: 2})", sqlString(plain))); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(plain)
	if err != nil {
		t.Fatal(err)
	}
	// The plain file as data file 100 of main.secret from snapshot 7.
	register := fmt.Sprintf(`INSERT INTO ducklake_data_file (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format, record_count, file_size_bytes, row_id_start)
		VALUES (100, 1, 7, %s, false, 'parquet', 1, %d, 5000)`, sqlString(plain), st.Size())
	stamp04 := `UPDATE ducklake_metadata SET value = '0.4' WHERE key = 'version'`
	for _, tc := range []struct {
		name string
		a, b []string
		want string // "" equivalent, else the NULL field B (and A, where both hold one) is refused for
	}{
		{"1.0, an encrypted data file's key removed", nil,
			[]string{`UPDATE ducklake_data_file SET encryption_key = NULL WHERE data_file_id = 0`}, "ducklake_data_file.encryption_key is NULL in the row data_file_id=0, "},
		{"1.0, an encrypted delete file's key removed", nil,
			[]string{`UPDATE ducklake_delete_file SET encryption_key = NULL WHERE delete_file_id = 3`}, "ducklake_delete_file.encryption_key is NULL in the row delete_file_id=3, "},
		{"0.4, an encrypted data file's key removed", []string{stamp04},
			[]string{stamp04, `UPDATE ducklake_data_file SET encryption_key = NULL WHERE data_file_id = 0`}, "ducklake_data_file.encryption_key is NULL in the row data_file_id=0, "},
		{"1.0 and its 0.4 stamp, a plain file without a key", []string{register}, []string{register, stamp04}, "ducklake_data_file.encryption_key is NULL in the row data_file_id=100, "},
		{"1.0, a plain file without a key in a catalog not encrypted", []string{register, `UPDATE ducklake_metadata SET value = 'false' WHERE key = 'encrypted'`},
			[]string{register, `UPDATE ducklake_metadata SET value = 'false' WHERE key = 'encrypted'`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" {
				proveTamperedUnreadable(t, catalog, data, tc.a, tc.b, "")
				return
			}
			a := catalog
			if tc.a != nil {
				a = tamper(t, catalog, tc.a...)
			}
			rep, err := Catalogs(context.Background(), a, tamper(t, catalog, tc.b...), Options{DataPath: data, Engines: readerDBs})
			if slices.Contains(tc.a, register) {
				if !errors.Is(err, ErrIncomparable) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Catalogs: %v, want could not compare naming %q", err, tc.want)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "catalog", tc.want) {
				t.Errorf("Catalogs: %v, want a catalog difference naming %q\n%s", err, tc.want, reportLines(rep))
			}
		})
	}
}

// TestDeleteFileOtherKey: a B whose delete file (the same file on disk as
// A's) has another encryption key than A's is read otherwise by every
// reader of an encrypted catalog (ReadDeleteFile passes the key to the
// scan: the wrong one fails it), as a data file with another key is. The
// proof reads each delete file once per comparison for both catalogs;
// before, it kept what it read by path alone, so B's delete file was never
// read with B's key and the proof passed; the data files' reads are kept
// by their key already (rowOf).
func TestDeleteFileOtherKey(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "15_encryption")
	data := filepath.Join(lake, "data")
	// A 16-byte key other than the file's.
	other := tamper(t, catalog, `UPDATE ducklake_delete_file SET encryption_key = 'AAAAAAAAAAAAAAAAAAAAAA==' WHERE delete_file_id = 3`)
	for _, tc := range []struct {
		name, a, b string
		want       error // B not read where A is; A not read: nothing to compare
	}{
		{"B's key other", catalog, other, ErrNotEquivalent},
		{"A's key other", other, catalog, ErrIncomparable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Catalogs(context.Background(), tc.a, tc.b, Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "are you using the right key?") {
				t.Fatalf("Catalogs: %v, want %v reading delete file 3 with the other key\n%s", err, tc.want, reportLines(rep))
			}
		})
	}
}
