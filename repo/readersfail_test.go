package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestReadersSkipCatalogsCheckFailed: a published catalog check finds
// wrong (here its proof finds a snapshot time changed) is opened by no
// reader in the readers table: its DuckDBs are listed as unable to read
// that version, naming the file, instead of "reads all". Also when its
// format is past its until: readers still open the file, so it is not an
// expected gap (it was listed as "past until", with no warning).
func TestReadersSkipCatalogsCheckFailed(t *testing.T) {
	t.Parallel()
	for _, pastUntil := range []bool{false, true} {
		t.Run(fmt.Sprintf("past_until=%t", pastUntil), func(t *testing.T) { readersSkipCatalogCheckFailed(t, pastUntil) })
	}
}

func readersSkipCatalogCheckFailed(t *testing.T, pastUntil bool) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "lake")
	if err := copyTree(lake11(t), root); err != nil { // shared: copied before any change
		t.Fatal(err)
	}
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	var now time.Time
	if pastUntil {
		fdl := filepath.Join(root, "fdl.json")
		data, err := os.ReadFile(fdl)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(data), `"duckdb": ">= 2.0.0"`, `"duckdb": ">= 2.0.0", "until": "2027-01-01"`, 1)
		if edited == string(data) {
			t.Fatal("fdl.json declares no 1.1 range to give an until")
		}
		writeFile(t, fdl, edited)
		now = time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
	}
	ids := versionIDs(t, root)
	last := ids[len(ids)-1]
	key := "versions/" + last + "/catalogs/1.1.duckdb"
	readable := func(rep *CheckReport) (in, out bool) {
		for _, rr := range rep.Readers {
			if rr.Format != "1.1" {
				continue
			}
			in = slices.ContainsFunc(rr.Readable, func(v *ReaderVersion) bool { return v.Version == last })
			out = slices.ContainsFunc(rr.Unreadable, func(v *ReaderVersion) bool { return v.Version == last })
		}
		return in, out
	}
	rep, err := Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.1"}, Now: now})
	if err != nil {
		t.Fatalf("Check before the change: %v", err)
	}
	if in, out := readable(rep); !in || out {
		t.Fatalf("before the change: version %s readable %t, unreadable %t; want readable", last, in, out)
	}
	execCatalog(t, filepath.Join(root, key), "UPDATE c.ducklake_snapshot SET snapshot_time = snapshot_time + INTERVAL 1 SECOND WHERE snapshot_id = 1")
	rep, err = Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.1"}, Now: now})
	if !errors.Is(err, ErrDifferences) {
		t.Fatalf("Check: %v, want ErrDifferences", err)
	}
	if in, out := readable(rep); in || !out || rep.Readers[0].Unreadable[0].Expected {
		t.Errorf("version %s readable %t, unreadable %t; want unreadable (its 1.1 catalog fails check)", last, in, out)
	}
	if !slices.ContainsFunc(rep.Findings, func(f Finding) bool {
		return f.Kind == KindWarning && strings.Contains(f.Detail, "readers: DuckDB") && strings.Contains(f.Detail, key+" fails check: see that finding")
	}) {
		t.Errorf("no readers warning naming %s among %+v", key, rep.Findings)
	}
}
