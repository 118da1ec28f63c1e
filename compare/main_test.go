package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestMain bounds the readers of the tests' shared engines (readerDBs)
// to the folders of the tests' fixtures (fixtureDirs), and removes the
// lakegen histories the tests shared (historyLake) once they are done.
func TestMain(m *testing.M) {
	lakes, err := testlakes.Unpack("lakes")
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance archive lakes:", err)
		os.Exit(1)
	}
	// The conformance set's unpacked archives share a folder.
	fixtureDirs = []string{os.TempDir(), filepath.Dir(filepath.Dir(lakes))}
	readerDBs.Within(fixtureDirs...)
	code := m.Run()
	removeHistories()
	os.Exit(code)
}

// fixtureDirs are the folders that hold the tests' catalogs, data and the
// files tests write for a reader to read (temporary folders, the unpacked
// conformance set): a reader of readerDBs may open any file
// there, as a repository run's readers open any file of the run's folders
// (duckpool.Pool.Within). A reader opened without Engines reaches only its
// catalog and data folder.
var fixtureDirs []string
