package testlakes

import (
	"os"
	"path/filepath"
	"testing"
)

// A fresh clone tests itself: every archive the tests use is committed.
func TestArchivesCommitted(t *testing.T) {
	t.Setenv("FDL_CONFORMANCE_DIR", "")
	for _, a := range Archives {
		p := filepath.Join(SourceDir(), a+".tar.gz")
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("conformance archive %s is not committed: %v", p, err)
		}
	}
}

// A missing archive is an error the caller turns into a failure, never a skip.
func TestMissingArchiveIsAnError(t *testing.T) {
	t.Setenv("FDL_CONFORMANCE_DIR", t.TempDir())
	if _, err := Unpack("lakes"); !os.IsNotExist(err) {
		t.Fatalf("Unpack from an empty folder: got %v, want a not-exist error", err)
	}
}
