package repo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestShardCountsSumToWhole: the reports of shards 1..N of a check add up
// to the whole check's (docs/repository.md sums their counts). A version
// whose first parent is in another shard is compared with the parent's
// frozen catalog, read for that alone; a fault of that catalog (it
// contradicts its version.json, is not the file version.json names, or is
// gone) was reported by the child's shard as a finding of the child, and
// by the parent's shard as the parent's own: the sum counted one fault
// twice, where the whole check reports it once, as the parent's.
//
// On a web site the same holds of a fault of the bytes version.json
// hashes (the row deleted). A catalog that is not those bytes, or is gone,
// is the parent's fault for the parent's shard and also, in the child's,
// the child's unverifiable history: what the site answered the child's
// shard proves nothing of what it answers the parent's
// (TestShardParentAnsweredOtherwise). The sum counts that one more.
func TestShardCountsSumToWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, res := sharedDemo(ctx, t)
	parent, child := res.Versions[1], res.Versions[2]
	var n int
	for n = 2; shardOf(parent.ID, n) == shardOf(child.ID, n); n++ {
	}
	for _, tc := range []struct {
		name string
		// answered: the fault is in what the store answers, which a
		// bucket's or web site's answer to the child's shard does not
		// prove of the parent's.
		answered bool
		edit     func(t *testing.T, vdir string)
	}{
		{"row at snapshot_id deleted", false, func(t *testing.T, vdir string) {
			execCatalog(t, filepath.Join(vdir, "ducklake.duckdb"), "DELETE FROM c.ducklake_snapshot WHERE snapshot_id = "+itoa(parent.SnapshotID), "CHECKPOINT c")
			testlakes.EditVersion(t, vdir, nil)
		}},
		{"catalog changed", true, func(t *testing.T, vdir string) {
			cat := filepath.Join(vdir, "ducklake.duckdb")
			b, err := os.ReadFile(cat)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cat, append(b, 0), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"catalog removed", true, func(t *testing.T, vdir string) {
			if err := os.Remove(filepath.Join(vdir, "ducklake.duckdb")); err != nil {
				t.Fatal(err)
			}
		}},
		{"version.json cut short", true, func(t *testing.T, vdir string) {
			vj := filepath.Join(vdir, "version.json")
			b, err := os.ReadFile(vj)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(vj, b[:len(b)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, root := cloneRepo(t, golden)
			tc.edit(t, filepath.Join(root, "versions", parent.ID))
			site := webSite(t, webtest.Handler(root, webtest.Options{Validators: webtest.ETag}))
			for _, where := range []struct {
				name string
				st   store.Store
				// extra are the findings the shards add to the whole's.
				extra int
			}{
				{"folder", st, 0},
				{"web site", site, map[bool]int{true: 1}[tc.answered]},
			} {
				opts := func() Options {
					o := Options{Jobs: 2, Formats: []string{"1.0"}}
					if where.st == site {
						o.Cache = filepath.Join(t.TempDir(), "cache")
					}
					return o
				}
				whole, err := Check(ctx, where.st, opts())
				if err == nil {
					t.Fatalf("%s: whole check passed; want the parent's fault", where.name)
				}
				sum := map[Kind]int{}
				ok := true
				for k := 1; k <= n; k++ {
					o := opts()
					o.Shard = Shard{k, n}
					rep, err := Check(ctx, where.st, o)
					t.Logf("%s: shard %d/%d: %v", where.name, k, n, err)
					if rep == nil {
						t.Fatalf("%s: shard %d/%d: no report", where.name, k, n)
					}
					ok = ok && rep.OK
					for kind, c := range rep.Counts {
						sum[kind] += c
					}
				}
				if ok {
					t.Errorf("%s: every shard passed", where.name)
				}
				// Warnings are left out of the sum: one about the
				// repository is in each report, and a shard holding no
				// version says so.
				delete(sum, KindWarning)
				want := maps.Clone(whole.Counts)
				delete(want, KindWarning)
				if where.extra > 0 {
					want[KindUnverifiable] += where.extra
				}
				if !maps.Equal(sum, want) {
					t.Errorf("%s: shards 1..%d count %v, want %v (the whole check's findings %v)", where.name, n, sum, want, whole.Findings)
				}
			}
		})
	}
}

// TestShardParentTransferFails: a shard holding a version whose first
// parent another shard holds reads the parent's frozen catalog to compare
// the version's history with; where that read fails in this run alone (the
// store refuses it, not a file at fault, which the parent's shard would
// find), the version's history is still unverifiable (exit 4): no other
// shard compares it.
func TestShardParentTransferFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, res := sharedDemo(ctx, t)
	parent, child := res.Versions[1], res.Versions[2]
	st, _ := cloneRepo(t, golden)
	n := splittingShards(parent.ID, child.ID)
	k := shardOf(child.ID, n)
	failing := &refusingStore{Store: st, key: "versions/" + parent.ID + "/ducklake.duckdb"}
	rep, err := Check(ctx, failing, Options{Jobs: 2, Formats: []string{"1.0"}, Shard: Shard{k, n}})
	t.Logf("shard %d/%d: %v", k, n, err)
	if !errors.Is(err, ErrUnverifiable) {
		t.Fatalf("shard %d/%d with the parent's catalog refused: %v, want unverifiable (exit 4); findings %v", k, n, err, nonWarnings(rep))
	}
	if f := nonWarnings(rep); len(f) != 1 || f[0].Version != child.ID || !strings.Contains(f[0].Detail, "refused") {
		t.Errorf("findings %v, want one of %s naming the refusal", f, child.ID)
	}
}

// refusingStore fails every read of key, as a store refusing it would.
type refusingStore struct {
	*local.Store
	key string
}

func (s *refusingStore) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if key == s.key {
		return nil, fmt.Errorf("open %s: refused", key)
	}
	return s.Store.Open(ctx, key)
}

// splittingShards is the fewest shards (2 or more) that put versions a
// and b in different shards.
func splittingShards(a, b string) int {
	n := 2
	for ; shardOf(a, n) == shardOf(b, n); n++ {
	}
	return n
}

// shardOf is the shard of N that holds id.
func shardOf(id string, n int) int {
	for k := 1; k <= n; k++ {
		if (Shard{k, n}).holds(id) {
			return k
		}
	}
	return 0
}
