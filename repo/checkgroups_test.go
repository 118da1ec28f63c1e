package repo

import (
	"reflect"
	"testing"
)

// TestCheckGroups: a check's items (content passes and proofs) run by
// version, sharing the frozen catalog's reader, also when there are fewer
// versions than jobs (a check narrowed by --versions or --shard), where
// every item ran alone, opening and reading the catalog once each; a
// version of at least twice minShared items is split over jobs that would
// be idle, into groups of minShared items or more.
func TestCheckGroups(t *testing.T) {
	for _, tc := range []struct {
		name     string
		versions []string
		jobs     int
		want     [][]int
	}{
		{"as many versions as jobs", []string{"a", "a", "b", "b"}, 2, [][]int{{0, 1}, {2, 3}}},
		{"more versions than jobs, items not in version order", []string{"a", "b", "a", "c", "b"}, 2, [][]int{{0, 2}, {1, 4}, {3}}},
		{"fewer versions than jobs", []string{"a", "a", "b", "b"}, 3, [][]int{{0, 1}, {2, 3}}},
		{"one version, a content pass and three proofs", []string{"a", "a", "a", "a"}, 4, [][]int{{0, 1, 2, 3}}},
		{"one version of twice minShared items", []string{"a", "a", "a", "a", "a", "a"}, 2, [][]int{{0, 1, 2}, {3, 4, 5}}},
		{"one version of seven items, four jobs", []string{"a", "a", "a", "a", "a", "a", "a"}, 4, [][]int{{0, 1, 2, 3}, {4, 5, 6}}},
		{"one version of twelve items, four jobs", []string{"a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"}, 4, [][]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}},
		{"the larger version split", []string{"a", "b", "b", "b", "b", "b", "b"}, 3, [][]int{{0}, {1, 2, 3}, {4, 5, 6}}},
		{"one job", []string{"a", "a", "a", "a", "a", "a"}, 1, [][]int{{0, 1, 2, 3, 4, 5}}},
		{"no item", nil, 2, [][]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]int, len(tc.versions)) // indexes into versions
			for i := range items {
				items[i] = i
			}
			got := checkGroups(items, func(i int) string { return tc.versions[i] }, tc.jobs)
			if len(got) != len(tc.want) || (len(got) > 0 && !reflect.DeepEqual(got, tc.want)) {
				t.Errorf("checkGroups = %v, want %v", got, tc.want)
			}
		})
	}
}
