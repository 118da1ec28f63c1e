package compare

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

// selfCarryLake is carryLake's history (every third version also deletes,
// rewriting the delete files of the data files deleted from before),
// shared read-only by the tests.
func selfCarryLake(t *testing.T) (cats []string, data string) {
	t.Helper()
	cats, data = historyLake(t, lakegen.HistoryOptions{Versions: 7, RowsPerVersion: 300, FilesPerVersion: 2, DeleteEvery: 3})
	slices.Sort(cats) // UUIDv7 folders: oldest first
	return cats, data
}

// earlierRead is the clean self-read of catalog path, to carry.
func earlierRead(t *testing.T, path string, rep *Report) SelfCarry {
	t.Helper()
	sum, err := fileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	return SelfCarry{Path: path, SHA256: sum, Read: rep}
}

// carryAll offers these earlier reads (Options.SelfCarry).
func carryAll(reads ...SelfCarry) func(context.Context) []SelfCarry {
	return func(context.Context) []SelfCarry { return reads }
}

// TestSelfCarriesEarlierRead reads the versions of a history alone one
// after the other, each carrying the clean self-read of the version
// before: the snapshots the earlier read covered are not walked where the
// catalog restricted to them is the earlier one, the versions that delete
// again included (their delete files replace earlier ones with files
// deleting the same positions at the earlier snapshots:
// TestSelfCarryAcrossReplacedDeletes). Each read's verdict is the whole
// walk's. A catalog whose bytes
// are not the ones read, a read of another format and a short walk (with
// the default threshold) are not carried.
func TestSelfCarriesEarlierRead(t *testing.T) {
	ctx := context.Background()
	cats, data := selfCarryLake(t)
	opts := Options{DataPath: data, Engines: readerDBs, CarryMinWork: -1}
	var earlier []SelfCarry
	carried, prevSnaps := 0, 0
	for i, a := range cats {
		o := opts
		if earlier != nil {
			o.SelfCarry = carryAll(earlier...)
		}
		rep, err := Self(ctx, a, o)
		if err != nil {
			t.Fatalf("version %d: %v", i+1, err)
		}
		whole, err := Self(ctx, a, opts)
		if err != nil || len(whole.Tables) == 0 {
			t.Fatalf("version %d walked whole: %v", i+1, err)
		}
		switch {
		case i == 0:
			if rep.Carried != nil || rep.CarryNote != "" {
				t.Errorf("version 1: nothing to carry, got %+v, %q", rep.Carried, rep.CarryNote)
			}
		case rep.Carried != nil:
			carried++
			if rep.Carried.Snapshots != prevSnaps || rep.Carried.A != cats[i-1] {
				t.Errorf("version %d: carried %+v, want the %d snapshots of %s", i+1, rep.Carried, prevSnaps, cats[i-1])
			}
			if n := snapshotsWalked(rep); n != len(rep.Snapshots)-prevSnaps {
				t.Errorf("version %d: %d snapshots walked, want %d", i+1, n, len(rep.Snapshots)-prevSnaps)
			}
			if len(rep.Tables) >= len(whole.Tables) {
				t.Errorf("version %d: %d tables read carrying, %d walking whole", i+1, len(rep.Tables), len(whole.Tables))
			}
		default:
			// The versions that delete again (every third) replace
			// delete files: carried too (TestSelfCarryAcrossReplacedDeletes).
			t.Errorf("version %d: not carried: %s", i+1, rep.CarryNote)
		}
		if rep.Equivalent != whole.Equivalent || len(rep.Differences) != len(whole.Differences) {
			t.Errorf("version %d: equivalent %v (%d differences), whole %v (%d)", i+1, rep.Equivalent, len(rep.Differences), whole.Equivalent, len(whole.Differences))
		}
		if !slices.Equal(rep.Snapshots, whole.Snapshots) {
			t.Errorf("version %d: snapshots %v, whole %v", i+1, rep.Snapshots, whole.Snapshots)
		}
		earlier, prevSnaps = []SelfCarry{earlierRead(t, a, rep)}, len(rep.Snapshots)
	}
	if carried != len(cats)-1 {
		t.Errorf("%d versions carried an earlier self-read, want %d", carried, len(cats)-1)
	}

	// Version 2 carrying version 1's read, offered otherwise.
	first, err := Self(ctx, cats[0], opts)
	if err != nil {
		t.Fatal(err)
	}
	good := earlierRead(t, cats[0], first)
	otherFormat := *first
	otherFormat.A.Format = "0.3"
	for _, tc := range []struct {
		name string
		with []SelfCarry
		min  int64
		note string
	}{
		{"carried", []SelfCarry{good}, -1, ""},
		{"other bytes", []SelfCarry{{Path: cats[0], SHA256: strings.Repeat("0", 64), Read: first}}, -1, "no clean self-read"},
		{"other format", []SelfCarry{{Path: cats[0], SHA256: good.SHA256, Read: &otherFormat}}, -1, "no clean self-read"},
		{"the first usable one", []SelfCarry{{Path: cats[0], SHA256: good.SHA256, Read: &otherFormat}, good}, -1, ""},
		{"short walk", []SelfCarry{good}, 0, "the walk is short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opts
			o.SelfCarry, o.CarryMinWork = carryAll(tc.with...), tc.min
			rep, err := Self(ctx, cats[1], o)
			if err != nil {
				t.Fatal(err)
			}
			if tc.note == "" {
				if rep.Carried == nil || rep.Carried.Snapshots != len(first.Snapshots) {
					t.Errorf("carried %+v, note %q", rep.Carried, rep.CarryNote)
				}
				return
			}
			if rep.Carried != nil || !strings.Contains(rep.CarryNote, tc.note) {
				t.Errorf("carried %+v, note %q, want %q", rep.Carried, rep.CarryNote, tc.note)
			}
		})
	}
}

// TestSelfCarryFindsOldFaults plants, in a later catalog, a fault only an
// earlier snapshot shows (the walk of the latest snapshot cannot see it),
// then reads it alone carrying the clean read of the earlier catalog: the
// read must find what the whole walk finds, not carry the earlier read
// over it (the same differences). The restriction sees a data file row
// changed at an old snapshot; the statistics, which it leaves out, are
// checked apart.
func TestSelfCarryFindsOldFaults(t *testing.T) {
	ctx := context.Background()
	cats, data := selfCarryLake(t)
	text := func(ds []Difference) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = d.String()
		}
		return out
	}
	// A copy of the first file with a wrong record_count, seen at
	// snapshot 1 only (the table is created at snapshot 1).
	recordCount := []string{"INSERT INTO ducklake_data_file SELECT * REPLACE (999 AS data_file_id, 1 AS begin_snapshot, 2 AS end_snapshot, record_count + 1 AS record_count) FROM ducklake_data_file WHERE data_file_id = 0"}
	// Statistics its readers fail to cast, in the later catalog: not
	// versioned, so not in the restriction. Every snapshot that reads the
	// column fails (cast to its type at the latest snapshot), and is
	// reported so, not only the latest.
	stats := []string{"UPDATE ducklake_table_column_stats SET max_value = 'many' WHERE column_id = (SELECT min(column_id) FROM ducklake_column WHERE column_type = 'int64')"}
	for _, tc := range []struct {
		name  string
		from  int      // the earlier version's index: version from+1, read by the later one (from+2)
		later []string // edits of the later version
		want  string   // in a difference
		note  string   // in the carry note ("": carried)
	}{
		// Versions 1 and 2: version 2 only appends.
		{name: "record_count at snapshot 1", later: recordCount, want: "record_count is", note: "ducklake_data_file"},
		{name: "statistics that do not cast", later: stats, want: "uncastable-column-stats"},
		// Versions 5 and 6: version 6 deletes again, replacing the delete
		// files of version 5 (TestSelfCarryAcrossReplacedDeletes).
		{name: "record_count at snapshot 1, delete files replaced", from: 4, later: recordCount, want: "record_count is", note: "ducklake_data_file"},
		{name: "statistics that do not cast, delete files replaced", from: 4, later: stats, want: "uncastable-column-stats"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e0, e1 := cats[tc.from], cats[tc.from+1]
			opts := Options{DataPath: data, Engines: readerDBs, CarryMinWork: -1}
			first, err := Self(ctx, e0, opts)
			if err != nil {
				t.Fatalf("the earlier catalog: %v", err)
			}
			l := tamper(t, e1, tc.later...)
			whole, err := Self(ctx, l, opts)
			if !errors.Is(err, ErrCatalogDiffers) || !slices.ContainsFunc(whole.Differences, func(d Difference) bool { return strings.Contains(d.String(), tc.want) }) {
				t.Fatalf("walked whole: want a difference naming %q, got %v (%+v)", tc.want, err, whole)
			}
			opts.SelfCarry = carryAll(earlierRead(t, e0, first))
			rep, err := Self(ctx, l, opts)
			if !errors.Is(err, ErrCatalogDiffers) {
				t.Fatalf("carrying: want ErrCatalogDiffers, got %v (carried %+v)", err, rep.Carried)
			}
			if !slices.Equal(text(rep.Differences), text(whole.Differences)) {
				t.Errorf("carrying: %v\nwalked whole: %v", text(rep.Differences), text(whole.Differences))
			}
			if tc.note != "" && (rep.Carried != nil || !strings.Contains(rep.CarryNote, tc.note)) {
				t.Errorf("carried %+v, note %q, want %q", rep.Carried, rep.CarryNote, tc.note)
			}
			if tc.note == "" && rep.Carried == nil {
				t.Errorf("not carried: %s", rep.CarryNote)
			}
		})
	}
}

// TestSelfCarryOfACopyReplacedSince: a self-read that carries an earlier
// one does not read the carried snapshots' files again; a copy the earlier
// read held to, replaced since (another run sharing the cache downloaded
// it again), is then the new copy in the later read's key but was read
// only as the old one. Such a read is not kept; with no copy replaced it
// is.
func TestSelfCarryOfACopyReplacedSince(t *testing.T) {
	ctx := context.Background()
	cats, shared := selfCarryLake(t)
	for _, replace := range []bool{false, true} {
		t.Run(map[bool]string{false: "unchanged", true: "replaced"}[replace], func(t *testing.T) {
			data, m := mirroredCopy(t, shared)
			store := memStore{}
			self := func(step, a string, carry ...SelfCarry) *Report {
				t.Helper()
				l := NewListings()
				l.SetMirror(data, m)
				opts := Options{DataPath: data, Engines: readerDBs, DigestCache: store, Listings: l, CarryMinWork: -1}
				if carry != nil {
					opts.SelfCarry = carryAll(carry...)
				}
				rep, err := Self(ctx, a, opts)
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				return rep
			}
			// Version 2 carries version 1's read (TestSelfCarriesEarlierRead).
			first := self("version 1", cats[0])
			if first.ProofCached {
				t.Fatal("version 1: found kept in an empty cache")
			}
			if replace {
				files, err := filepath.Glob(filepath.Join(data, "*", "*", "*.parquet"))
				if err != nil || len(files) == 0 {
					t.Fatalf("no data file in %s (%v)", data, err)
				}
				for _, f := range files {
					if err := m.replace(f, "e2"); err != nil {
						t.Fatal(err)
					}
				}
			}
			second := self("version 2 carrying version 1", cats[1], earlierRead(t, cats[0], first))
			if second.Carried == nil {
				t.Fatalf("version 2 did not carry version 1's read: %s", second.CarryNote)
			}
			again := self("version 2 again", cats[1])
			if again.ProofCached == replace {
				t.Errorf("version 2's carrying read found kept: %v, want %v (copies replaced since version 1's read: %v)", again.ProofCached, !replace, replace)
			}
		})
	}
}
