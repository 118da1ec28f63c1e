package compare

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// TestSelfSkip: a self-read pairs each table's plan with itself without
// matching it (selfSkip), as samePlans(tp, tp) matches it, at every
// snapshot of lakes with partial files (never skipped) and deletes.
func TestSelfSkip(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"06_deletes", "16_data_inlining", "17_compaction"} {
		lake, catalog := lastVersion(t, "lakes", name)
		r := openForTest(t, catalog, filepath.Join(lake, "data"))
		partial, whole := 0, 0
		eachTable(t, r, func(s Snapshot, tb Table) {
			tp, err := r.tablePlan(ctx, tb, s.ID, rowOptions())
			if err != nil {
				return // unreadable: no plan to pair
			}
			want, _, _ := samePlans(tp, tp)
			if got := selfSkip(tp); !slices.Equal(got, want) {
				t.Errorf("%s: table %s at snapshot %d: %v, want %v", name, tb.Shown(), s.ID, got, want)
			}
			for _, fp := range tp.files {
				if fp.f.partial() {
					partial++
				} else {
					whole++
				}
			}
		})
		if name == "17_compaction" && (partial == 0 || whole == 0) {
			t.Errorf("%s: %d partial and %d whole files planned, want both", name, partial, whole)
		}
	}
}
