package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

func TestConvertCommand(t *testing.T) {
	t.Parallel()
	catalog, _ := lakeCatalog(t, "lakes", "22_sorted_tables")
	for _, tc := range []struct {
		name     string
		args     func(dir string) []string
		wantCode int
		wantOut  string // in stdout
		wantErr  string // in stderr
		written  bool
	}{
		{"converts", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.1", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitOK, "1.0 -> 1.1 written", "", true},
		{"refuses by default, naming the option", func(dir string) []string {
			return []string{"convert", catalog, "--to", "0.3", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitRefused, "", "--allow-lossy sort-hints", false},
		{"lossy only when asked, and reported", func(dir string) []string {
			return []string{"convert", catalog, "--to", "0.3", "--allow-lossy", "sort-hints", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitOK, "lossy [0.4->0.3] sort-hints", "", true},
		{"dry run writes nothing", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.1", "--dry-run"}
		}, exitOK, "nothing written", "", false},
		// It said "1.0 -> 1.0 converts (path [1.0] ...)".
		{"dry run in the catalog's own format", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.0", "--dry-run"}
		}, exitOK, "already in format 1.0: nothing to convert (-o would write a copy in the same format, storage v", "", false},
		{"a copy in the catalog's own format", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.0", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitOK, "already in format 1.0: nothing to convert; copied to ", "", true},
		{"unknown format is a usage error", func(dir string) []string {
			return []string{"convert", catalog, "--to", "0.9", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitUsage, "", "--to: unknown format version \"0.9\" (want one of 0.1, 0.2, 0.3, 0.4, 1.0, 1.1)", false},
		// A development layout is no target (convert writes releases
		// only): it was refused after the source was opened, as a
		// conversion with no path (exit 6), while --help lists releases.
		{"a development layout is a usage error", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.1-dev1", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitUsage, "", "--to \"1.1-dev1\": a development layout, never written: want one of 0.1, 0.2, 0.3, 0.4, 1.0, 1.1 (its release: 1.1)", false},
		{"no output is a usage error", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.1"}
		}, exitUsage, "", "", false},
		{"unknown lossy option", func(dir string) []string {
			return []string{"convert", catalog, "--to", "0.3", "--allow-lossy", "everything", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitUsage, "", "known features are", false},
		// A 0.1 catalog saved at storage v1.5.0 opens only in DuckDB 1.5,
		// which reads no 0.1: it was written, exit 0, and proved equivalent.
		{"a storage no reader of the target opens", func(dir string) []string {
			return []string{"convert", catalog, "--to", "0.3", "--allow-lossy", "sort-hints", "--storage", "v1.5.0", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitUsage, "", "--storage: storage v1.5.0: no reader of the target format opens that storage version: DuckDB 1.5.0 and later open it, format 0.3 is read by DuckDB", false},
		{"a storage that is no version", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.1", "--storage", "latest", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitUsage, "", `--storage: storage "latest"`, false},
		// DuckDB 2.0's storage, which the linked DuckDB cannot write: it
		// was DuckDB's "not a known DuckDB version" after the plan (exit 1).
		{"a storage only a newer DuckDB writes", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.1", "--storage", "v2.0.0", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitUsage, "", "--storage: storage v2.0.0: this DuckDB cannot write that storage version: the newest it writes is v1.5.0", false},
		{"an older storage its readers open", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.1", "--storage", "v1.4.0", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitOK, "(storage v1.4.0)", "", true},
		{"a data folder that is not there", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.1", "--data", filepath.Join(dir, "nodata"), "-o", filepath.Join(dir, "out.duckdb")}
		}, exitUsage, "", "nodata: no such folder", false},
		// A misspelt folder in -o: it converted the catalog, then failed
		// naming a temporary file ("create temporary file: open
		// …/nodir/.out.duckdb.tmp-…: no such file or directory", exit 1).
		{"an output folder that is not there", func(dir string) []string {
			return []string{"convert", catalog, "--to", "1.1", "-o", filepath.Join(dir, "nodir", "out.duckdb")}
		}, exitUsage, "", "-o " + "%s/nodir/out.duckdb: no such folder %s/nodir (convert creates none)", false},
		{"not a catalog is invalid input", func(dir string) []string {
			bad := filepath.Join(dir, "bad.duckdb")
			os.WriteFile(bad, []byte("hello"), 0o644)
			return []string{"convert", bad, "--to", "1.0", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitInvalid, "", "not a DuckDB database file", false},
		// A data file given for a catalog: it said "unreadable DuckDB
		// file (truncated or corrupt?)".
		{"a JSON file is not a catalog", func(dir string) []string {
			bad := filepath.Join(dir, "fdl.json")
			os.WriteFile(bad, []byte(`{"fdl": "0.1", "formats": [{"ducklake": "1.0"}]}`), 0o644)
			return []string{"convert", bad, "--to", "1.0", "-o", filepath.Join(dir, "out.duckdb")}
		}, exitInvalid, "", "fdl.json: not a DuckLake catalog: not a DuckDB database file", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out, stderr, code := runAppStderr(t, tc.args(dir)...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, out, stderr)
			}
			if !strings.Contains(out, tc.wantOut) {
				t.Errorf("stdout %q, want it to contain %q", out, tc.wantOut)
			}
			if want := strings.ReplaceAll(tc.wantErr, "%s", dir); !strings.Contains(stderr, want) {
				t.Errorf("stderr %q, want it to say %q", stderr, tc.wantErr)
			}
			_, err := os.Stat(filepath.Join(dir, "out.duckdb"))
			if (err == nil) != tc.written {
				t.Errorf("output written = %v, want %v", err == nil, tc.written)
			}
		})
	}
}

// runAppStderr runs the CLI in-process like runApp, with stderr as main
// would print it: logs, then the rendered error.
func runAppStderr(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut strings.Builder
	app := newApp()
	app.Writer, app.ErrWriter = &out, &errOut
	err := app.Run(t.Context(), append([]string{"fdl-formats", "--log-level", "error"}, args...))
	if err != nil {
		errOut.WriteString(renderError(err))
	}
	return out.String(), errOut.String(), exitCode(err)
}

func TestConvertCommandJSON(t *testing.T) {
	catalog, _ := lakeCatalog(t, "lakes", "10_macros")
	out, _, code := runApp(t, "convert", catalog, "--to", "0.3", "--dry-run", "--json")
	if code != exitRefused {
		t.Fatalf("exit %d, want %d (macros)", code, exitRefused)
	}
	var report struct {
		From, To string
		Path     []string
		Refused  []struct{ Code, Table, Reason string }
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if report.From != "1.0" || report.To != "0.3" || strings.Join(report.Path, " ") != "1.0 0.4 0.3" {
		t.Errorf("report %+v", report)
	}
	if len(report.Refused) == 0 || report.Refused[0].Code != "macros" || report.Refused[0].Table != "ducklake_macro" {
		t.Errorf("refused %+v, want macros in ducklake_macro", report.Refused)
	}
}

// TestConvertTruncatedOrCorrupt cuts a real catalog at many sizes, and
// flips a byte in a block the conversion reads: every one is invalid input
// (exit 6, "truncated or corrupt"), never a raw IO failure (exit 1), and
// nothing is written.
func TestConvertTruncatedOrCorrupt(t *testing.T) {
	t.Parallel()
	versions, err := filepath.Glob(filepath.Join(testlakes.Lake(t, "lakes", "06_deletes"), "versions", "*", "ducklake.duckdb"))
	if err != nil || len(versions) == 0 {
		t.Fatalf("no catalogs: %v", err)
	}
	whole, err := os.ReadFile(versions[len(versions)-1]) // 8.9 MB, 34 blocks of 256 KiB
	if err != nil {
		t.Fatal(err)
	}
	size := len(whole)
	type damage struct {
		name string
		file func() []byte
	}
	var cases []damage
	for _, cut := range []int{0, 100, 4096, 12288, 12289, 262144, 300000, 524288, 524289, 1 << 20, 4500000, size - 262144, size - 4096, size - 1} {
		cases = append(cases, damage{fmt.Sprintf("cut_at_%d", cut), func() []byte { return whole[:cut] }})
	}
	cases = append(cases, damage{"byte_flipped_at_300000", func() []byte {
		b := slices.Clone(whole)
		b[300000] ^= 0xff
		return b
	}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src, dst := filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "out.duckdb")
			if err := os.WriteFile(src, tc.file(), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := runAppStderr(t, "convert", src, "--to", "1.1", "-o", dst)
			if code != exitInvalid {
				t.Fatalf("exit %d, want %d:\n%s", code, exitInvalid, stderr)
			}
			if !strings.Contains(stderr, "not a DuckLake catalog") || !strings.Contains(stderr, src) {
				t.Errorf("stderr %q, want it to name the file as not a DuckLake catalog", stderr)
			}
			if _, err := os.Stat(dst); err == nil {
				t.Error("output written")
			}
		})
	}
}
