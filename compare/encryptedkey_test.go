package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestEncryptedFileWithoutKey: in a catalog whose ducklake_metadata says
// encrypted = 'true', every DuckLake reader (ReadDataFile, v1.3-ossivalis
// to main) selects each visible data and delete file's encryption_key and
// throws "Database is encrypted, but file ... does not have an encryption
// key" on a NULL one, so the table cannot be read at that snapshot, in
// every format. 15_encryption is a real encrypted 1.0 lake. Before, the
// proof read such a file without a key: a plain file registered without one
// (what a bad conversion or an edit leaves) was read, and a 1.0 catalog
// with it was equivalent to its 0.4 stamp, though neither can be read.
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
		want string // "" equivalent, else an unreadable difference naming it
	}{
		{"1.0, an encrypted data file's key removed", nil,
			[]string{`UPDATE ducklake_data_file SET encryption_key = NULL WHERE data_file_id = 0`}, "does not have an encryption key (data file id 0)"},
		{"1.0, an encrypted delete file's key removed", nil,
			[]string{`UPDATE ducklake_delete_file SET encryption_key = NULL WHERE delete_file_id = 3`}, "does not have an encryption key (delete file id 3"},
		{"0.4, an encrypted data file's key removed", []string{stamp04},
			[]string{stamp04, `UPDATE ducklake_data_file SET encryption_key = NULL WHERE data_file_id = 0`}, "format 0.4 readers cannot read main.secret (encrypted-file-without-key)"},
		{"1.0 and its 0.4 stamp, a plain file without a key", []string{register}, []string{register, stamp04}, "plain.parquet does not have an encryption key"},
		{"1.0, a plain file without a key in a catalog not encrypted", []string{register, `UPDATE ducklake_metadata SET value = 'false' WHERE key = 'encrypted'`},
			[]string{register, `UPDATE ducklake_metadata SET value = 'false' WHERE key = 'encrypted'`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proveTamperedUnreadable(t, catalog, data, tc.a, tc.b, tc.want)
		})
	}
}
