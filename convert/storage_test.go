package convert

import (
	"errors"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// TestStorageReadBy: a storage version is accepted for a target only when
// some DuckDB that reads the target opens it; Catalog wrote a 0.1 catalog
// saved at v1.5.0 (DuckDB 1.5 only, which reads no 0.1) and exited 0. And
// only a storage the linked DuckDB writes.
func TestStorageReadBy(t *testing.T) {
	for _, tc := range []struct {
		storage string
		target  *formats.Version
		ok      bool
	}{
		{"v1.3.0", formats.V0_1, true},
		{"v1.5.0", formats.V0_1, false},
		{"v1.4.0", formats.V0_3, true},
		{"v1.5.0", formats.V0_3, false},
		{"v1.4.0", formats.V1_0, true},
		{"duckdb-v1.5.0", formats.V1_0, true},
		{"v1.5.3", formats.V0_4, true}, // a patch names its line's storage: 1.5.0 opens it
		// DuckDB 2.0's storage, which 1.0 and 1.1 readers of DuckDB 2.0
		// open, but the linked DuckDB cannot write (before, it was taken,
		// and DuckDB failed the conversion after the plan).
		{"v2.0.0", formats.V0_4, false},
		{"v2.0.0", formats.V1_0, false},
		{"v2.0.0", formats.V1_1, false},
		{"v1.6.0", formats.V1_1, false},
		{"latest", formats.V1_0, false},
	} {
		err := StorageReadBy(tc.storage, tc.target)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrStorageUnreadable) && !errors.Is(err, ErrStorageUnwritable)) {
			t.Errorf("StorageReadBy(%s, %s) = %v, want ok %t", tc.storage, tc.target, err, tc.ok)
		}
	}
}
