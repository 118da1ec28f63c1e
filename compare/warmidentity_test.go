package compare

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// rewriteSameSize changes one byte of path in place (a new file renamed
// over it when replace) and sets its modification time back, as cp -p,
// rsync -a or touch -r do: the size and modification time stay.
func rewriteSameSize(t *testing.T, path string, replace bool) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-8]++ // the Parquet footer length
	target := path
	if replace {
		target = path + ".new"
	}
	if err := os.WriteFile(target, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(target, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if replace {
		if err := os.Rename(target, path); err != nil {
			t.Fatal(err)
		}
	}
	after, err := os.Stat(path)
	if err != nil || after.Size() != st.Size() || !after.ModTime().Equal(st.ModTime()) {
		t.Fatalf("rewrite changed the size or time: %v", err)
	}
}

func appendBytes(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
}

// TestListingSeesWhatReadersRead: the key of a kept proof or content pass
// (InputsKey over the data folder's listing) changes whenever the bytes
// DuckDB would read change: through a symbolic link to a file or a data
// folder that is itself a link, and on a same-size rewrite whose
// modification time was set back; a folder holding a link to a folder gets
// no key (nothing kept, nothing reused). The data file identity of digest
// keys (fileIdentity) changes with the same file changes.
func TestListingSeesWhatReadersRead(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "freebsd" && runtime.GOOS != "netbsd" {
		t.Skip("change time and inode are not read on " + runtime.GOOS)
	}
	lake, _ := lastVersion(t, "lakes", "06_deletes")
	for _, tc := range []struct {
		name string
		// prepare lays out the data folder under base and returns the
		// data path to list and one data file as readers open it.
		prepare func(t *testing.T, base, data string) (dataPath, file string)
		change  func(t *testing.T, file string)
		noKey   bool // the folder gets no key
	}{
		{"unchanged", plainFolder, func(*testing.T, string) {}, false},
		{"same size, mtime set back, in place", plainFolder, func(t *testing.T, f string) { rewriteSameSize(t, f, false) }, false},
		{"same size, mtime set back, replaced", plainFolder, func(t *testing.T, f string) { rewriteSameSize(t, f, true) }, false},
		{"symlinked file, target grows", linkedFile, func(t *testing.T, f string) { appendBytes(t, f, 100) }, false},
		{"data folder is a symlink, a file grows", linkedRoot, func(t *testing.T, f string) { appendBytes(t, f, 100) }, false},
		{"symlinked subfolder", linkedSubfolder, func(t *testing.T, f string) { appendBytes(t, f, 100) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			data := filepath.Join(base, "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			dp, file := tc.prepare(t, base, data)
			df := DataFile{ID: 1, Path: file, SizeBytes: 1}
			idBefore, err := fileIdentity(df, nil)
			if err != nil {
				t.Fatal(err)
			}
			before := NewListings().InputsKey("test", dp)
			rawBefore, errBefore := walkListing(dp, nil) // as given: no trailing slash
			tc.change(t, file)
			after := NewListings().InputsKey("test", dp)
			rawAfter, errAfter := walkListing(dp, nil)
			idAfter, err := fileIdentity(df, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.noKey {
				if before != "" || after != "" || !errors.Is(errBefore, errLinkedFolder) {
					t.Fatalf("keys %q, %q; want none for a folder holding a link to a folder", before, after)
				}
				return
			}
			if before == "" || errBefore != nil || errAfter != nil {
				t.Fatalf("no key, or listing: %v, %v", errBefore, errAfter)
			}
			unchanged := tc.name == "unchanged"
			if bytes.Equal(rawBefore, rawAfter) != unchanged {
				t.Errorf("listing of %s same after the change: %v, want %v", dp, bytes.Equal(rawBefore, rawAfter), unchanged)
			}
			if (before == after) != unchanged {
				t.Errorf("listing key same after the change: %v, want %v", before == after, unchanged)
			}
			if (idBefore == idAfter) != unchanged {
				t.Errorf("file identity same after the change: %v, want %v (%s, then %s)", idBefore == idAfter, unchanged, idBefore, idAfter)
			}
		})
	}
}

func someDataFile(t *testing.T, data string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(data, "main", "*", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("data files: %v %v", files, err)
	}
	return files[0]
}

func plainFolder(t *testing.T, _, data string) (string, string) {
	return data, someDataFile(t, data)
}

// linkedFile moves a data file out of the folder and leaves a link to it.
func linkedFile(t *testing.T, base, data string) (string, string) {
	f := someDataFile(t, data)
	target := filepath.Join(base, "elsewhere.parquet")
	if err := os.Rename(f, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, f); err != nil {
		t.Fatal(err)
	}
	return data, f
}

// linkedRoot names the data folder through a link to it.
func linkedRoot(t *testing.T, base, data string) (string, string) {
	link := filepath.Join(base, "data-link")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(data, someDataFile(t, data))
	if err != nil {
		t.Fatal(err)
	}
	return link, filepath.Join(link, rel)
}

// linkedSubfolder moves a table's folder out and leaves a link to it.
func linkedSubfolder(t *testing.T, base, data string) (string, string) {
	f := someDataFile(t, data)
	dir := filepath.Dir(f)
	moved := filepath.Join(base, "moved-table")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, dir); err != nil {
		t.Fatal(err)
	}
	return data, f
}

// TestExecutableBuildID: the build ID read from the running test binary is
// the one `go tool buildid` reports; a file without one gives "".
func TestExecutableBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	got, err := executableBuildID(exe)
	if err != nil {
		t.Fatal(err)
	}
	if got == "" {
		t.Fatal("no build ID in the test binary")
	}
	if buildID() != "go build id "+got {
		t.Errorf("buildID() = %q, want the executable's build ID %q", buildID(), got)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to compare with")
	}
	out, err := exec.Command(goTool, "tool", "buildid", exe).Output()
	if err != nil {
		t.Fatalf("go tool buildid: %v", err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("build ID %q, go tool buildid says %q", got, want)
	}
	plain := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(plain, bytes.Repeat([]byte("x"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if id, err := executableBuildID(plain); err != nil || id != "" {
		t.Errorf("file without a build ID: %q, %v; want \"\"", id, err)
	}
}
