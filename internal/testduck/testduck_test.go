package testduck

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestOpen: a database in memory and one in a file open and answer; the
// file is written; Close before the test's end is harmless.
func TestOpen(t *testing.T) {
	db := Open(t, "")
	var n int
	if err := db.QueryRow("SELECT 42").Scan(&n); err != nil || n != 42 {
		t.Fatalf("SELECT 42: %d, %v", n, err)
	}
	path := filepath.Join(t.TempDir(), "x.duckdb")
	f := Open(t, path)
	if _, err := f.Exec("CREATE TABLE x AS SELECT 1 AS i"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := Open(t, path+"?access_mode=read_only").QueryRow("SELECT i FROM x").Scan(&n); err != nil || n != 1 {
		t.Fatalf("reopened: %d, %v", n, err)
	}
}

// TestOpenFails: a file that is no DuckDB database fails the test at Open,
// naming the file.
func TestOpenFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "not-a-database")
	ft := &fatalT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Open(ft, path+"?access_mode=read_only")
	}()
	<-done
	if !strings.Contains(ft.msg, path) {
		t.Errorf("failure %q, want one naming %s", ft.msg, path)
	}
}

// fatalT records the first Fatalf and ends its goroutine, as testing.T
// ends the test's.
type fatalT struct {
	testing.TB
	msg string
}

func (f *fatalT) Helper() {}

func (f *fatalT) Fatalf(format string, args ...any) {
	if f.msg == "" {
		f.msg = fmt.Sprintf(format, args...)
	}
	runtime.Goexit()
}
