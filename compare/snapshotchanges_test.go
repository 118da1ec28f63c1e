package compare

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestSnapshotChangesReadOnce: changesMade and commitInfo read
// ducklake_snapshot_changes in one statement (snapshotChanges), whichever
// asks first, and answer what each reads in a statement of its own (a
// reader that cannot merge them: r.meta filled by one of them first).
func TestSnapshotChangesReadOnce(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "07_updates_merge")
	nullAuthor := tamper(t, catalog, "UPDATE ducklake_snapshot_changes SET author = NULL, commit_extra_info = 'x' WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot_changes)")
	for _, c := range []string{catalog, nullAuthor} {
		for _, commitsFirst := range []bool{false, true} {
			r := openForTest(t, c, lake)
			log := queryLog(t, r)
			snaps, err := r.Snapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			read := func(r *Reader, commitsFirst bool) (map[int64]*string, map[int64]string) {
				t.Helper()
				commits := map[int64]string{}
				ask := func() {
					for _, s := range snaps {
						info, ok, err := r.commitInfo(ctx, s.ID)
						if err != nil || !ok {
							t.Fatalf("commit info at %d: %v %v", s.ID, ok, err)
						}
						commits[s.ID] = info
					}
				}
				if commitsFirst {
					ask()
				}
				changes, err := r.changesMade(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !commitsFirst {
					ask()
				}
				return changes, commits
			}
			changes, commits := read(r, commitsFirst)
			n := 0
			for _, q := range log() {
				if strings.Contains(q, "ducklake_snapshot_changes") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d statements read ducklake_snapshot_changes, want 1", n)
			}
			// Each alone: the other's memo filled first.
			alone := openForTest(t, c, lake)
			alone.meta.commits = map[int64]string{}
			wantChanges, err := alone.changesMade(ctx)
			if err != nil {
				t.Fatal(err)
			}
			alone.meta.commits = nil
			_, wantCommits := read(alone, false)
			if !reflect.DeepEqual(changes, wantChanges) || !reflect.DeepEqual(commits, wantCommits) || len(commits) == 0 {
				t.Errorf("read %v %v, want %v %v", changes, commits, wantChanges, wantCommits)
			}
		}
	}
}
