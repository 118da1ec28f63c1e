package repo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestBackfillReportsSelfReads: a backfill whose cell is refused (0.3 of
// a version with partial deletion files) reads the version's frozen
// catalog alone, and its report lists the read in self_reads, with the
// fields and meaning of check's: version, key, ok, duration_seconds; the
// check after it finds the read kept (cached). A frozen catalog whose
// record_count is not its file's rows reads not ok. A dry run reads
// nothing alone: "self_reads": []. Before, the backfill report had no
// self_reads: only its log said, and only of a failed read.
func TestBackfillReportsSelfReads(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts a catalog")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		broken bool
	}{{"clean", false}, {"record_count edited", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, root := smallLake(t)
			os.Remove(filepath.Join(root, "fdl.json"))
			writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl":"0.1","formats":[{"ducklake":"0.3"},{"ducklake":"1.0"}]}`)
			cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Versions: []string{"2"}, Formats: []string{"0.3"}, DigestCache: cache}
			dry := opts
			dry.DryRun = true
			drep, err := Backfill(ctx, st, dry)
			if err != nil {
				t.Fatalf("dry run: %v", err)
			}
			if data, _ := json.Marshal(drep); !strings.Contains(string(data), `"self_reads":[]`) {
				t.Errorf("dry run's report has no empty self_reads: %s", data)
			}
			id := drep.Plan.Cells()[0].Version
			if tc.broken {
				v := filepath.Join(root, "versions", id)
				execDuckDB(t, filepath.Join(v, "ducklake.duckdb"), "UPDATE ducklake_data_file SET record_count = record_count + 1 WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)")
				testlakes.EditVersion(t, v, nil, "catalog")
			}
			rep, err := Backfill(ctx, st, opts)
			if err != nil || len(rep.Results) != 0 {
				t.Fatalf("Backfill: %+v, %v; want the cell refused, no result, no error", rep.Results, err)
			}
			if len(rep.SelfReads) != 1 {
				t.Fatalf("report: %d self-reads %+v, want 1 (version %s)", len(rep.SelfReads), rep.SelfReads, id)
			}
			sr := rep.SelfReads[0]
			key := "versions/" + id + "/ducklake.duckdb"
			if sr.Version != id || sr.Key != key || sr.OK == tc.broken || sr.Cached || sr.Seconds <= 0 {
				t.Errorf("self-read %+v, want version %s, key %s, ok %v, not cached, a duration", sr, id, key, !tc.broken)
			}
			data, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"self_reads":[{"version":"` + id + `","key":"` + key + `","ok":` + map[bool]string{false: "true", true: "false"}[tc.broken] + `,"duration_seconds":`} {
				if !strings.Contains(string(data), want) {
					t.Errorf("JSON report lacks %s:\n%s", want, data)
				}
			}
			crep, _ := Check(ctx, st, opts)
			if crep == nil || len(crep.SelfReads) != 1 {
				t.Fatalf("check after: %+v, want one self-read", crep)
			}
			// A clean read was kept: the check takes it (same version and key).
			if got := crep.SelfReads[0]; got.Version != id || got.Key != key || got.Cached == tc.broken || got.OK == tc.broken {
				t.Errorf("check's self-read %+v, want version %s, key %s, cached and ok %v", got, id, key, !tc.broken)
			}
		})
	}
}
