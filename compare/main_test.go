package compare

import (
	"os"
	"testing"
)

// TestMain removes the lakegen histories the tests shared (historyLake)
// once they are done.
func TestMain(m *testing.M) {
	code := m.Run()
	removeHistories()
	os.Exit(code)
}
