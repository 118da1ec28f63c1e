package repo

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// appleDoubleFile is the header macOS writes as ._<name> beside a file it
// copies to a volume without resource forks (or into a tar): no entries.
func appleDoubleFile() string {
	b := binary.BigEndian.AppendUint32(nil, 0x00051607)
	b = binary.BigEndian.AppendUint32(b, 0x00020000)
	b = append(b, "Mac OS X        "...)
	return string(binary.BigEndian.AppendUint16(b, 0))
}

// TestVersionFolderNames: the entries of a version folder and of the
// repository's root beyond catalogs/ (docs/repository.md, rules). A name
// that stands for one of the layout's on a file system or web server that
// ignores letter case or drops trailing dots and spaces (macOS, Windows,
// IIS) is a violation, as ducklake.duckdb.WAL was: readers there open it
// by the layout's name (Expired.json withdraws the version for them), and
// check passed it (exit 0). So is an expired.json that is not a regular
// file (treated as absent), and a Versions/ beside versions/ (never looked
// at). AppleDouble files (._1.1.duckdb) are warnings: they were undeclared
// formats "its readers would open" (exit 3). An index.html passes
// silently (it failed catalogs/: "not a catalog"); other files no reader
// opens are warnings naming them (they passed silently).
func TestVersionFolderNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		mutate     func(t *testing.T, root, v, other string)
		violations []string // keys (relative to the version folder; "/x": to the root), sorted
		notes      []string // phrases of the version's notes, each in one
		detail     string   // a phrase of the first violation
	}{
		{"Expired.json", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "Expired.json"), `{"reason": "withdrawn"}`)
		}, []string{"Expired.json"}, nil, "named like expired.json in another letter case: a file system that ignores letter case (macOS's, Windows') or drops trailing dots and spaces (Windows), and a web server on one, gives it to readers that ask for expired.json: readers there see the version as withdrawn"},
		{"EXPIRED.JSON", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "EXPIRED.JSON"), `{"reason": "withdrawn"}`)
		}, []string{"EXPIRED.JSON"}, nil, "in another letter case"},
		{"expired.json with a trailing dot", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "expired.json."), `{"reason": "withdrawn"}`)
		}, []string{"expired.json."}, nil, "named like expired.json with trailing dots or spaces"},
		{"expired.json with a trailing space", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "expired.json "), `{"reason": "withdrawn"}`)
		}, []string{"expired.json "}, nil, "with trailing dots or spaces"},
		{"Version.json. as well as version.json", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "Version.json."), `{}`)
		}, []string{"Version.json."}, nil, "in another letter case and with trailing dots or spaces"},
		{"Files.json and Dataset.JSON", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "Files.json"), `{}`)
			writeFile(t, filepath.Join(v, "Dataset.JSON"), `{}`)
		}, []string{"Dataset.JSON", "Files.json"}, nil, "named like dataset.json"},
		{"version.json.SIG", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "version.json.SIG"), "sig")
		}, []string{"version.json.SIG"}, nil, "named like version.json.sig"},
		{"ducklake.duckdb.wal with a trailing dot", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "ducklake.duckdb.wal."), "junk")
		}, []string{"ducklake.duckdb.wal."}, nil, "DuckDB there replays it when it opens ducklake.duckdb"},
		{"ducklake.duckdb with a trailing dot", func(t *testing.T, _, v, other string) {
			copyFile(t, filepath.Join(other, "ducklake.duckdb"), filepath.Join(v, "ducklake.duckdb."))
		}, []string{"ducklake.duckdb."}, nil, "named like ducklake.duckdb"},
		// Reported once, as before, by the stray-catalog rule.
		{"DUCKLAKE.DUCKDB", func(t *testing.T, _, v, other string) {
			copyFile(t, filepath.Join(other, "ducklake.duckdb"), filepath.Join(v, "DUCKLAKE.DUCKDB"))
		}, []string{"DUCKLAKE.DUCKDB"}, nil, "a DuckDB file in the version folder that is not the frozen catalog"},
		{"an empty Catalogs/ folder", func(t *testing.T, _, v, _ string) {
			if err := os.Mkdir(filepath.Join(v, "Catalogs"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{"Catalogs"}, nil, "a folder named like catalogs in another letter case"},
		{"expired.json as a folder", func(t *testing.T, _, v, _ string) {
			if err := os.Mkdir(filepath.Join(v, "expired.json"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{"expired.json"}, nil, "a folder, not a regular file: readers that test whether expired.json exists see the version as withdrawn"},
		{"expired.json as a FIFO", func(t *testing.T, _, v, _ string) {
			if err := syscall.Mkfifo(filepath.Join(v, "expired.json"), 0o644); err != nil {
				t.Skip(err)
			}
		}, []string{"expired.json"}, nil, "a special file, not a regular file"},
		{"Versions/ beside versions/", func(t *testing.T, root, v, _ string) {
			if err := os.CopyFS(filepath.Join(root, "Versions", filepath.Base(v)), os.DirFS(v)); err != nil {
				t.Fatal(err)
			}
		}, []string{"/Versions"}, nil, "check never looks in it, but a copy onto such a file system merges it with versions/"},
		{"FDL.json and fdl.json. beside fdl.json", func(t *testing.T, root, _, _ string) {
			writeFile(t, filepath.Join(root, "FDL.json"), "{}")
			writeFile(t, filepath.Join(root, "fdl.json."), "{}")
		}, []string{"/FDL.json", "/fdl.json."}, nil, "named like fdl.json"},
		// AppleDouble files are litter whatever their suffix: no reader
		// opens a hidden name.
		{"AppleDouble files", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "._ducklake.duckdb"), appleDoubleFile())
			writeFile(t, filepath.Join(v, "catalogs", "._1.1.duckdb"), appleDoubleFile())
			writeFile(t, filepath.Join(v, "catalogs", "._1.1.duckdb.wal"), appleDoubleFile())
			writeFile(t, filepath.Join(v, ".DS_Store"), "Bud1")
		}, nil, []string{
			".DS_Store: a hidden file in the version folder that no reader opens",
			"._ducklake.duckdb: a hidden file in the version folder that no reader opens",
			"catalogs/._1.1.duckdb: a hidden file in catalogs/ that no reader opens",
			"catalogs/._1.1.duckdb.wal: a hidden file in catalogs/ that no reader opens",
		}, ""},
		// A DuckDB file under a hidden name is a catalog nothing proves
		// (rsync's temporary file of an unfinished copy), not litter.
		{"a hidden DuckDB file", func(t *testing.T, _, v, _ string) {
			copyFile(t, filepath.Join(v, "ducklake.duckdb"), filepath.Join(v, "catalogs", ".1.1.duckdb.Xa3b9Q"))
			copyFile(t, filepath.Join(v, "ducklake.duckdb"), filepath.Join(v, "catalogs", "._1.1.duckdb"))
		}, []string{"catalogs/.1.1.duckdb.Xa3b9Q", "catalogs/._1.1.duckdb"}, nil, "a DuckDB file under a hidden name in catalogs/: no reader opens it"},
		// Index pages for hosts without folder listings pass silently.
		{"index pages", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "index.html"), "<html></html>")
			writeFile(t, filepath.Join(v, "catalogs", "INDEX.HTML"), "<html></html>")
			writeFile(t, filepath.Join(v, "catalogs", "index.htm"), "<html></html>")
		}, nil, nil, ""},
		// Mutation test, session 23: the cases below held with the rule
		// they test removed.
		// An entry is what it links to, as readers follow links.
		{"expired.json as a link to a folder", func(t *testing.T, _, v, _ string) {
			if err := os.Symlink(t.TempDir(), filepath.Join(v, "expired.json")); err != nil {
				t.Fatal(err)
			}
		}, []string{"expired.json"}, nil, "a folder, not a regular file"},
		{"a link Versions beside versions/", func(t *testing.T, root, _, _ string) {
			if err := os.Symlink("versions", filepath.Join(root, "Versions")); err != nil {
				t.Fatal(err)
			}
		}, []string{"/Versions"}, nil, "a folder named like versions in another letter case"},
		{"DATA/ beside data/", func(t *testing.T, root, _, _ string) {
			if err := os.MkdirAll(filepath.Join(root, "DATA"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []string{"/DATA"}, nil, "a folder named like data in another letter case"},
		// Listed over http, a folder shows once per file in it: one entry.
		{"Catalogs/ holding two files", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "Catalogs", "a.txt"), "a")
			writeFile(t, filepath.Join(v, "Catalogs", "b.txt"), "b")
		}, []string{"Catalogs"}, nil, "a folder named like catalogs in another letter case"},
		// A folder holding a file version.json names is the layout's.
		{"dataset.json under meta/", func(t *testing.T, _, v, _ string) {
			if err := os.MkdirAll(filepath.Join(v, "meta"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(v, "dataset.json"), filepath.Join(v, "meta", "dataset.json")); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, v, func(m map[string]any) { m["dataset"].(map[string]any)["path"] = "meta/dataset.json" })
		}, nil, nil, ""},
		// macOS's file systems ignore Unicode normalization: "ä" composed
		// (U+00E4) and decomposed ("a", U+0308) are one name there. It
		// was a note (a file no reader opens), exit 0 (session 41).
		{"dätaset.json and its decomposed form", func(t *testing.T, _, v, _ string) {
			if err := os.Rename(filepath.Join(v, "dataset.json"), filepath.Join(v, "d\u00e4taset.json")); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, v, func(m map[string]any) { m["dataset"].(map[string]any)["path"] = "d\u00e4taset.json" })
			writeFile(t, filepath.Join(v, "da\u0308taset.json"), `{}`)
		}, []string{"da\u0308taset.json"}, nil, "a regular file named like d\u00e4taset.json in another Unicode form (composed or decomposed accents): a file system that ignores Unicode normalization (macOS's APFS and HFS+"},
		{"Dätaset.json decomposed", func(t *testing.T, _, v, _ string) {
			if err := os.Rename(filepath.Join(v, "dataset.json"), filepath.Join(v, "d\u00e4taset.json")); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, v, func(m map[string]any) { m["dataset"].(map[string]any)["path"] = "d\u00e4taset.json" })
			writeFile(t, filepath.Join(v, "Da\u0308taset.json."), `{}`)
		}, []string{"Da\u0308taset.json."}, nil, "in another letter case and in another Unicode form (composed or decomposed accents) and with trailing dots or spaces"},
		{"a decomposed dätä/ beside the composed data folder", func(t *testing.T, root, _, _ string) {
			b, err := os.ReadFile(filepath.Join(root, "fdl.json"))
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			m["data_dir"] = "d\u00e4t\u00e4/"
			b, err = json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(root, "fdl.json"), string(b))
			writeFile(t, filepath.Join(root, "da\u0308ta\u0308", "main", "x.parquet"), "x")
		}, []string{"/da\u0308ta\u0308"}, nil, "a folder named like d\u00e4t\u00e4 in another Unicode form"},
		{"five look-alikes", func(t *testing.T, _, v, _ string) {
			for _, n := range []string{"Expired.json", "Files.json", "Dataset.JSON", "Version.json.", "version.json.SIG"} {
				writeFile(t, filepath.Join(v, n), "{}")
			}
		}, []string{"Dataset.JSON", "Expired.json", "Files.json", "Version.json.", "version.json.SIG"}, nil, "named like dataset.json"},
		// A hidden write-ahead log is litter only when it is AppleDouble
		// metadata: DuckDB replays any other beside the file it opens.
		{"hidden write-ahead logs", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, ".x.wal"), "junk")
			writeFile(t, filepath.Join(v, "._x.wal"), appleDoubleFile())
			writeFile(t, filepath.Join(v, "catalogs", ".1.1.duckdb.wal"), "junk")
		}, []string{".x.wal", "catalogs/.1.1.duckdb.wal"}, []string{"._x.wal: a hidden file in the version folder that no reader opens"}, "a DuckDB write-ahead log in the version folder"},
		// The log of a frozen catalog named otherwise than ducklake.duckdb.
		{"frozen.duckdb.wal. of a renamed frozen catalog", func(t *testing.T, _, v, _ string) {
			if err := os.Rename(filepath.Join(v, "ducklake.duckdb"), filepath.Join(v, "frozen.duckdb")); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, v, func(m map[string]any) { m["catalog"].(map[string]any)["path"] = "frozen.duckdb" })
			writeFile(t, filepath.Join(v, "frozen.duckdb.wal."), "junk")
		}, []string{"frozen.duckdb.wal."}, nil, "named like frozen.duckdb.wal with trailing dots or spaces"},
		// Writers' temporary files (store.TempDir) are no entry.
		{"the writers' temporary folder", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, ".fdl-tmp", "x"), "x")
		}, nil, nil, ""},
		{"files no reader opens", func(t *testing.T, _, v, _ string) {
			writeFile(t, filepath.Join(v, "notes.txt"), "notes")
			writeFile(t, filepath.Join(v, "junk", "a"), "a")
			// Folders named like hidden files or catalogs are folders
			// (mutation test, session 23).
			writeFile(t, filepath.Join(v, ".cache", "a"), "a")
			writeFile(t, filepath.Join(v, "old.duckdb", "a"), "a")
		}, nil, []string{
			"junk/: a folder that is not part of the FDL layout; no reader opens it",
			"notes.txt: a regular file that is not part of the FDL layout",
			".cache/: a folder that is not part of the FDL layout",
			"old.duckdb/: a folder that is not part of the FDL layout",
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case its own copy
			st, root := smallLake(t, "fdl.json", "versions")
			ids := versionIDs(t, root)
			v, other := filepath.Join(root, "versions", ids[2]), filepath.Join(root, "versions", ids[1])
			if err := os.MkdirAll(filepath.Join(v, "catalogs"), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.mutate(t, root, v, other)
			// The source's format, and 1.1 where the case put files in
			// catalogs/: the formats of the run decide which hidden
			// catalogs there are adopted (hiddenCatalogs, adoptHidden).
			// Elsewhere 1.1 only added its missing cell, each plan's
			// dry-run conversion of it about three quarters of the test's CPU
			// for nothing asserted.
			formats := []string{"1.0"}
			if in, err := os.ReadDir(filepath.Join(v, "catalogs")); err != nil || len(in) > 0 {
				formats = append(formats, "1.1")
			}
			m, err := Plan(ctx, st, Options{Formats: formats, Versions: []string{"3"},
				DataPath: filepath.Join(root, "data"), Cache: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			vp := m.Versions[0]
			var got []Violation
			for _, x := range m.Violations {
				x.Key = "/" + x.Key
				got = append(got, x)
			}
			for _, x := range vp.Violations {
				x.Key = strings.TrimPrefix(x.Key, "versions/"+ids[2]+"/")
				got = append(got, x)
			}
			slices.SortFunc(got, func(a, b Violation) int { return strings.Compare(a.Key, b.Key) })
			var keys []string
			for _, x := range got {
				keys = append(keys, x.Key)
			}
			if !slices.Equal(keys, tc.violations) {
				t.Fatalf("violations %+v, want keys %v", got, tc.violations)
			}
			if len(got) > 0 && !strings.Contains(got[0].Detail, tc.detail) {
				t.Errorf("violation %q, want it to say %q", got[0].Detail, tc.detail)
			}
			for _, n := range tc.notes {
				if !slices.ContainsFunc(vp.Notes, func(s string) bool { return strings.Contains(s, "versions/"+ids[2]+"/"+n) }) {
					t.Errorf("no note %q among %q", n, vp.Notes)
				}
			}
			if tc.notes == nil && slices.ContainsFunc(vp.Notes, func(s string) bool { return strings.Contains(s, "no reader opens") }) {
				t.Errorf("notes %q, want none about files no reader opens", vp.Notes)
			}
			// No hidden name is a format: no cell of its own.
			for _, c := range vp.Cells {
				if strings.HasPrefix(c.Format, ".") {
					t.Errorf("a cell of format %q", c.Format)
				}
			}
			// The same repository on a web site whose listings show its
			// files: the version folder's entries are classified from the
			// listed keys alike (a listing shows no empty folder, no FIFO,
			// and the root is not listed; Go's file server serves an
			// index.html in place of its folder's listing).
			if !strings.Contains(tc.name, "folder") && !strings.Contains(tc.name, "FIFO") && !strings.Contains(tc.name, "beside") && !strings.Contains(tc.name, "index") {
				wm, err := Plan(ctx, webSite(t, http.FileServer(http.Dir(root))), Options{Formats: formats, Versions: []string{"3"}, Cache: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				var webKeys []string
				for _, x := range wm.Versions[0].Violations {
					webKeys = append(webKeys, strings.TrimPrefix(x.Key, "versions/"+ids[2]+"/"))
				}
				// In the folder's order: a report does not change from run
				// to run (mutation test, session 23: the order followed
				// a map's over http).
				var folderKeys []string
				for _, x := range vp.Violations {
					folderKeys = append(folderKeys, strings.TrimPrefix(x.Key, "versions/"+ids[2]+"/"))
				}
				if !slices.Equal(webKeys, folderKeys) {
					t.Errorf("over http: violations %v, want %v as in the folder", webKeys, folderKeys)
				}
			}
		})
	}
}

// TestDataLinkedOutside: a data file that is a symbolic link leading out
// of a repository in a folder is read (links are followed, as readers
// follow them), but a copy made with cp -a, rsync -a or tar keeps the link
// and it leads nowhere: a warning naming the file and its target, from a
// cold check and from one that reuses the kept content pass. It passed
// without a word. A data folder linked elsewhere is named once, by plan
// too.
func TestDataLinkedOutside(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		folder bool // link the data folder itself, not files
		files  int  // else link this many files
		want   string
	}{
		{"a data file", false, 1, "names 1 data or delete file(s) in data_dir data/ that resolve outside the repository folder"},
		{"the data folder", true, 0, "data_dir data/ resolves to"},
		{"nothing linked", false, 0, ""},
		// The warning names at most five files, then how many more
		// (mutation test, session 23).
		{"every file", false, -1, "names 9 data or delete file(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			elsewhere := t.TempDir()
			var moved []string
			switch {
			case tc.folder:
				if err := os.Rename(filepath.Join(root, "data"), filepath.Join(elsewhere, "data")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(elsewhere, "data"), filepath.Join(root, "data")); err != nil {
					t.Fatal(err)
				}
			case tc.files != 0:
				err := filepath.WalkDir(filepath.Join(root, "data"), func(p string, d os.DirEntry, err error) error {
					if err == nil && (len(moved) < tc.files || tc.files < 0) && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
						moved = append(moved, p)
					}
					return err
				})
				if err != nil || len(moved) == 0 || len(moved) < tc.files {
					t.Fatal("too few data files", moved, err)
				}
				for _, m := range moved {
					target := filepath.Join(elsewhere, filepath.Base(m))
					if err := os.Rename(m, target); err != nil {
						t.Fatal(err)
					}
					rel, err := filepath.Rel(filepath.Dir(m), target)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(rel, m); err != nil {
						t.Fatal(err)
					}
				}
			}
			opts := Options{Formats: []string{"1.0"}, Versions: []string{"3"}, Cache: t.TempDir()}
			for _, run := range []string{"cold", "warm"} {
				rep, err := Check(ctx, st, opts)
				if err != nil {
					t.Fatalf("%s check: %v", run, err)
				}
				warned := warningsContaining(rep, "cp -a, rsync -a or tar")
				switch {
				case tc.want == "" && len(warned) > 0:
					t.Errorf("%s check warns %q, want nothing", run, warned)
				case tc.want != "" && (len(warned) != 1 || !strings.Contains(warned[0], tc.want)):
					t.Errorf("%s check warns %q, want one warning saying %q", run, warned, tc.want)
				case len(moved) == 1 && !strings.Contains(warned[0], filepath.Base(moved[0])+" -> "+filepath.Join(elsewhere, filepath.Base(moved[0]))):
					t.Errorf("%s check warns %q, want it to name %s and its target", run, warned, filepath.Base(moved[0]))
				case len(moved) > 1 && (strings.Count(warned[0], " -> ") != 5 || !strings.Contains(warned[0], "; and 4 more;")):
					t.Errorf("%s check warns %q, want it to name five files, then 4 more", run, warned)
				}
			}
		})
	}
}

// TestFoldNameLettersOneInUppercase: NTFS compares names by their
// uppercase (its upcase table) and macOS's file systems by case folding,
// so "τας" and "τασ" (final and medial sigma, both "Σ"), "kısa" and "kisa"
// (dotless i, "I" on Windows) and "µs" and "μs" (micro sign, Greek mu) are
// one name there: a data file beside its look-alike in such a letter is
// named "in another letter case". Before, foldName lowered the letters
// only, which leaves each pair apart, so no look-alike was found. Letters
// whose uppercase is not one letter stay apart ("ß" and "ss"), as they do
// on both.
func TestFoldNameLettersOneInUppercase(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		how  string // "": not alike
	}{
		{"\u03c4\u03b1\u03c2", "\u03c4\u03b1\u03c3", "in another letter case"},
		{"k\u0131sa.parquet", "kisa.parquet", "in another letter case"},
		{"\u00b5s", "\u03bcs", "in another letter case"},
		{"caf\u00e9", "CAFE\u0301", "in another letter case and in another Unicode form (composed or decomposed accents)"},
		{"stra\u00dfe", "strasse", ""},
	} {
		if alike := foldName(tc.a) == foldName(tc.b); alike != (tc.how != "") {
			t.Errorf("%q and %q folded alike: %t, want %t", tc.a, tc.b, alike, tc.how != "")
			continue
		}
		if tc.how != "" {
			if how := alikeHow(tc.b, tc.a); how != tc.how {
				t.Errorf("%q beside %q: %q, want %q", tc.b, tc.a, how, tc.how)
			}
		}
	}
}
