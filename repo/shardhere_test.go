package repo

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestShardParentReadFailsHere: a check shard holding a version whose
// first parent another shard holds copies the parent's frozen catalog,
// verifies its sha256 against the parent's version.json, and reads its
// row of ducklake_snapshot. Where that read fails on this machine alone (a
// full disk, a permission, DuckDB failing inside or running out of
// memory), the child's shard took it for a fault of the parent's bytes,
// which the parent's shard reports, and only logged it: exit 0, and no
// shard verified the child's history, as the parent's shard, on another
// machine, read the same bytes and passed. Now such a failure leaves the
// child's history unverifiable (exit 4). A failure those bytes give every
// reader (here: no ducklake_snapshot table) is still the parent's
// shard's finding alone, so that the shards' counts add up to the whole
// check's (TestShardCountsSumToWhole).
func TestShardParentReadFailsHere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, res := sharedDemo(ctx, t)
	parent, child := res.Versions[1], res.Versions[2]
	n := splittingShards(parent.ID, child.ID)
	for _, tc := range []struct {
		name string
		// fail is the failure of the parent's verified copy's reader on
		// this machine; nil for bytes at fault.
		fail error
	}{
		{"DuckDB's IO error", &duckdb.Error{Type: duckdb.ErrorTypeIO, Msg: "IO Error: Could not read from file \"x\": No space left on device"}},
		{"DuckDB's permission error", &duckdb.Error{Type: duckdb.ErrorTypePermission, Msg: "Permission Error: cannot access the file"}},
		{"DuckDB out of memory", &duckdb.Error{Type: duckdb.ErrorTypeOutOfMemory, Msg: "Out of Memory Error: failed to allocate"}},
		{"a file's permission", &fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}},
		{"bytes at fault", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, root := cloneRepo(t, golden)
			cat := filepath.Join(root, "versions", parent.ID, "ducklake.duckdb")
			if tc.fail == nil {
				execCatalog(t, cat, "DROP TABLE c.ducklake_snapshot", "CHECKPOINT c")
				testlakes.EditVersion(t, filepath.Dir(cat), nil)
			}
			b, err := os.ReadFile(cat)
			if err != nil {
				t.Fatal(err)
			}
			want := sha256.Sum256(b)
			opened := 0
			cctx := faults.With(ctx, func(p faults.Point) error {
				if tc.fail == nil || p.Name != "compare/open" {
					return nil
				}
				b, err := os.ReadFile(p.Path)
				if err != nil || sha256.Sum256(b) != want {
					return nil
				}
				opened++
				return fmt.Errorf("open catalog %s: %w", p.Path, tc.fail)
			})
			o := Options{Jobs: 2, Formats: []string{"1.0"}, Shard: Shard{shardOf(child.ID, n), n}, Cache: filepath.Join(t.TempDir(), "cache")}
			rep, err := Check(cctx, st, o)
			t.Logf("child's shard %s: %v", o.Shard, err)
			if tc.fail == nil {
				if err != nil {
					t.Fatalf("child's shard %s: %v, want a pass: the parent's shard reports its catalog's fault (findings %v)", o.Shard, err, nonWarnings(rep))
				}
				o.Shard = Shard{shardOf(parent.ID, n), n}
				if _, err := Check(ctx, st, o); err == nil {
					t.Fatalf("parent's shard %s passed; want its catalog's fault", o.Shard)
				}
				return
			}
			if opened == 0 {
				t.Fatal("the parent's catalog was never opened")
			}
			if !errors.Is(err, ErrUnverifiable) {
				t.Fatalf("child's shard %s: %v, want unverifiable (exit 4); findings %v", o.Shard, err, nonWarnings(rep))
			}
			f := nonWarnings(rep)
			if len(f) != 1 || f[0].Version != child.ID {
				t.Fatalf("findings %v, want one, of %s", f, child.ID)
			}
			for _, s := range []string{parent.ID, "failed on this machine", "run this shard again"} {
				if !strings.Contains(f[0].Detail, s) {
					t.Errorf("the finding does not name %q: %s", s, f[0].Detail)
				}
			}
			if h := hintOf(err); !strings.Contains(h, "failed on this machine") {
				t.Errorf("hint %q, want one naming a read that failed here", h)
			}
		})
	}
}

// TestBytesFault: which failed reads of a verified catalog copy are its
// bytes' fault (every reader meets them) and which this machine's.
func TestBytesFault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.duckdb")
	execCatalog(t, whole, "CREATE TABLE c.t AS SELECT range AS i FROM range(100000)", "CHECKPOINT c")
	b, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.duckdb")
	if err := os.WriteFile(cut, b[:len(b)-1000], 0o644); err != nil {
		t.Fatal(err)
	}
	ioErr := &duckdb.Error{Type: duckdb.ErrorTypeIO, Msg: "IO Error: Could not read enough bytes from file"}
	for _, tc := range []struct {
		name string
		err  error
		path string
		want bool
	}{
		{"a table that is not there", fmt.Errorf("list snapshots: %w", &duckdb.Error{Type: duckdb.ErrorTypeCatalog, Msg: "Catalog Error: Table with name ducklake_snapshot does not exist!"}), whole, true},
		{"a value that does not convert", &duckdb.Error{Type: duckdb.ErrorTypeConversion, Msg: "Conversion Error: IO Error: x"}, whole, true},
		{"a corrupt block", &duckdb.Error{Type: duckdb.ErrorTypeIO, Msg: "IO Error: Corrupt database file: computed checksum 1 does not match stored checksum 2 in block at location 3"}, whole, true},
		{"no DuckDB file", &duckdb.Error{Type: duckdb.ErrorTypeIO, Msg: "IO Error: The file \"x\" exists, but it is not a valid DuckDB database file!"}, whole, true},
		{"a read past a cut", ioErr, cut, true},
		{"a read that failed", ioErr, whole, false},
		{"untyped IO error", &duckdb.Error{Type: duckdb.ErrorTypeInvalid, Msg: "IO Error: No space left on device"}, whole, false},
		{"out of memory", &duckdb.Error{Type: duckdb.ErrorTypeOutOfMemory, Msg: "Out of Memory Error: x"}, whole, false},
		{"DuckDB failing inside", &duckdb.Error{Type: duckdb.ErrorTypeInternal, Msg: "INTERNAL Error: x"}, whole, false},
		{"a file of ours", &fs.PathError{Op: "open", Path: "x", Err: syscall.ENOSPC}, whole, false},
		{"cancelled", fmt.Errorf("read: %w", context.Canceled), whole, false},
		{"a reader's own check", fmt.Errorf("%w: catalog x: view ducklake_snapshot", formats.ErrNotBaseTable), whole, true},
		{"a NULL field", &formats.NullFieldError{Catalog: "x"}, whole, true},
		{"no DuckLake catalog", &compare.OpenError{Path: "x", Cause: compare.OpenNotDuckLake, Err: errors.New("x")}, whole, true},
		{"a lock", &compare.OpenError{Path: "x", Cause: compare.OpenLocked, Err: errors.New("x")}, whole, false},
		{"an error of ours, of no known kind", errors.New("fetch x: refused"), whole, false},
	} {
		if got := bytesFault(tc.err, tc.path); got != tc.want {
			t.Errorf("%s: bytesFault(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestBytesFaultPathInMessage: DuckDB's messages quote the copy's path,
// whose name ends with the catalog's own name from version.json (the
// publisher's choice). A read that failed on this machine is no fault of
// the bytes whatever that name says: bytesFault matched DuckDB's phrases
// for a corrupt, foreign or newer file anywhere in the message, the path
// included, and took a full disk for the parent's fault.
func TestBytesFaultPathInMessage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"Corrupt database file.duckdb", "not a valid DuckDB database file.duckdb", "a newer version of DuckDB.duckdb", "Cannot launch in-memory database in read-only mode.duckdb"} {
		p := filepath.Join(dir, "123-"+name)
		err := &duckdb.Error{Type: duckdb.ErrorTypeIO, Msg: fmt.Sprintf("IO Error: Could not read from file %q: No space left on device", p)}
		if bytesFault(err, p) {
			t.Errorf("bytesFault(%v) = true for a full disk, want false", err)
		}
	}
	// The phrases themselves, where DuckDB puts them, are still the bytes'.
	p := filepath.Join(dir, "123-catalog.duckdb")
	for _, msg := range []string{
		fmt.Sprintf("IO Error: The file %q exists, but it is not a valid DuckDB database file!", p),
		"IO Error: Trying to read a database file with version number 99, but we can only read version 67.\nThe database file was created with a newer version of DuckDB.",
	} {
		if err := (&duckdb.Error{Type: duckdb.ErrorTypeIO, Msg: msg}); !bytesFault(err, p) {
			t.Errorf("bytesFault(%v) = false, want true", err)
		}
	}
}
