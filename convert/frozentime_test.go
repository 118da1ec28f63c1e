package convert

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// frozenTimeZone names, in the environment of TestFrozenTimestampSnapshotTime's
// child process, the TimeZone its DuckDB sessions must default to.
const frozenTimeZone = "FDL_TEST_FROZEN_TIME_ZONE"

// TestFrozenTimestampSnapshotTime: a frozen catalog whose snapshot_time is
// a TIMESTAMP of its UTC instants (formats.FrozenTypes: a working catalog
// copied from another database) converts to every release format as the
// format's TIMESTAMPTZ of the same instants, and the proof finds each
// output equivalent to it and to the catalog it was made from. Under a
// session TimeZone other than UTC (this test again in a process with
// TZ=America/New_York, DuckDB's default being the machine's zone) the
// result is the same, and an output with one instant moved by a
// microsecond still differs: convert reads the TIMESTAMP as UTC
// (formats.Version.StandInReads), where the output's INSERT cast it in
// the session's zone. Before, every proof found each snapshot's time
// different (A "2026-11-30 01:02:45.568844", B the same "+00"), and in New
// York the output's instants were the source's wall times read in New
// York: five hours later.
func TestFrozenTimestampSnapshotTime(t *testing.T) {
	t.Parallel()
	if zone := os.Getenv(frozenTimeZone); zone != "" {
		frozenTimestampConverts(t, zone)
		return
	}
	t.Run("this machine's zone", func(t *testing.T) { frozenTimestampConverts(t, "") })
	t.Run("New York", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFrozenTimestampSnapshotTime$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "TZ=America/New_York", frozenTimeZone+"=America/New_York")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: TestFrozenTimestampSnapshotTime") {
			t.Fatalf("the test in a New York process: %v\n%s", err, out)
		}
	})
}

// frozenTimestampConverts is TestFrozenTimestampSnapshotTime in a process
// whose DuckDB sessions default to zone ("": whatever they default to).
func frozenTimestampConverts(t *testing.T, zone string) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "01_primitive_types")
	vs := versionCatalogs(t, lake)
	orig, data := vs[len(vs)-1], filepath.Join(lake, "data")
	if got := query(t, orig, "SELECT current_setting('TimeZone')")[0][0]; zone != "" && got != zone {
		t.Fatalf("the session's TimeZone is %s, want %s (the premise does not hold)", got, zone)
	}
	const times = "SELECT snapshot_id, epoch_us(snapshot_time), typeof(snapshot_time) FROM c.ducklake_snapshot ORDER BY snapshot_id"
	want := query(t, orig, times)
	src := editedCopy(t, orig, "SET TimeZone = 'UTC'", "ALTER TABLE ducklake_snapshot ALTER snapshot_time TYPE TIMESTAMP", "RESET TimeZone")
	if got := query(t, src, times); !slices.EqualFunc(got, want, func(a, b []string) bool { return a[1] == b[1] && a[2] == "TIMESTAMP" }) {
		t.Fatalf("the frozen catalog's times: %v, want the instants %v as TIMESTAMP (the premise does not hold)", got, want)
	}
	// Every format in one pass over the frozen catalog, as a backfill
	// writes a version's cells (TestCatalogsOnePass: each output is the
	// catalog Catalog writes alone); the proofs against each of src and
	// orig read it once (compare.Source: each still reads all of both
	// catalogs).
	var outs []Output
	for _, target := range formats.All.Releases() {
		outs = append(outs, Output{Target: target, Dst: filepath.Join(t.TempDir(), target.Name+".duckdb")})
	}
	written := Catalogs(ctx, src, outs, Options{DataPath: data})
	fromSrc, fromOrig := compare.NewSource(), compare.NewSource()
	defer fromSrc.Close()
	defer fromOrig.Close()
	for i, o := range outs {
		target, out := o.Target, o.Dst
		t.Run(target.Name, func(t *testing.T) {
			if err := written[i].Err; err != nil {
				t.Fatal(err)
			}
			if got := query(t, out, times); !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("the output's snapshot times (id, epoch_us, type): %v, want %v", got, want)
			}
			proveEquivalentFrom(t, fromSrc, src, out, data)
			proveEquivalentFrom(t, fromOrig, orig, out, data)
			if target != formats.V1_0 {
				return
			}
			// Another instant, by a microsecond, still differs.
			moved := editedCopy(t, out, "UPDATE ducklake_snapshot SET snapshot_time = snapshot_time + INTERVAL 1 MICROSECOND WHERE snapshot_id = 1")
			rep, err := compare.Catalogs(ctx, src, moved, compare.Options{DataPath: data, Source: fromSrc})
			if !errors.Is(err, compare.ErrNotEquivalent) || len(rep.Differences) != 1 || rep.Differences[0].Reason != "snapshot time differs" {
				t.Fatalf("the output with snapshot 1 a microsecond later: %v, want that snapshot's time alone to differ", err)
			}
		})
	}
}
