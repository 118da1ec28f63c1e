package formats

import "testing"

// TestTableStatsDeclared pins how each format's readers read table
// statistics (Version.TableStats; a development layout its release's): a
// new format must be added here, and a change to one is a change of the
// refusals, one-sided statistics and min/max checks built on it.
func TestTableStatsDeclared(t *testing.T) {
	v01 := TableStatsReading{BothBounds: true, CastByEvery: StatsTypesBase, CastBySome: StatsTypesBase}
	v04 := TableStatsReading{CastByEvery: StatsTypesBase, CastBySome: StatsTypesBase}
	v11 := TableStatsReading{CastByEvery: StatsTypesMain, CastBySome: StatsTypesMain, CurrentSnapshotOnly: true, FoldMinMax: "DuckDB 2.0", FoldStringMinMax: "DuckDB 2.0"}
	want := map[string]TableStatsReading{
		"0.1":      v01,
		"0.2":      v01,
		"0.3-dev1": v01,
		"0.3":      v01,
		"0.4-dev1": v04,
		"0.4":      v04,
		"1.0": {CastByEvery: StatsTypesBase, CastBySome: StatsTypesMore,
			FoldMinMax: "DuckDB 1.5.4+ and 2.0", ScanMinMax: "DuckDB 1.5.2-1.5.3",
			FoldStringMinMax: "DuckDB 2.0", ScanStringMinMax: "DuckDB 1.5"},
		"1.1-dev1": v11,
		"1.1":      v11,
	}
	for _, v := range All {
		w, ok := want[v.Name]
		if !ok {
			t.Errorf("format %s: no TableStats pinned here", v.Name)
			continue
		}
		if got := v.ReadsTableStats(); got != w {
			t.Errorf("format %s: ReadsTableStats() = %+v, want %+v", v.Name, got, w)
		}
		if got := OneSidedStatsEmpty(v); got != !w.BothBounds {
			t.Errorf("format %s: OneSidedStatsEmpty = %v, want %v", v.Name, got, !w.BothBounds)
		}
		delete(want, v.Name)
	}
	for name := range want {
		t.Errorf("format %s pinned here is not in All", name)
	}
}

// TestStringBoundsUnfolded pins the conversions that write VARCHAR table
// statistics bounds NULL: from a format none of whose readers fold them
// (0.1-0.4) to one some of whose readers do (1.0, 1.1, and 1.1-dev1 as
// its release), and no other.
func TestStringBoundsUnfolded(t *testing.T) {
	folds := map[string]bool{"1.0": true, "1.1-dev1": true, "1.1": true}
	for _, s := range All {
		for _, d := range All {
			want := !folds[s.Name] && folds[d.Name]
			if got := StringBoundsUnfolded(s, d); got != want {
				t.Errorf("%s to %s: got %v, want %v", s.Name, d.Name, got, want)
			}
		}
	}
}

// TestStringBoundsFoldedOnlyBySource pins the conversions whose cut
// VARCHAR bounds convert refuses: from 1.1 (and 1.1-dev1), folded by
// DuckDB 2.0 only, to 0.1-1.0, scanned by some reader.
func TestStringBoundsFoldedOnlyBySource(t *testing.T) {
	only := map[string]bool{"1.1-dev1": true, "1.1": true}
	for _, s := range All {
		for _, d := range All {
			want := only[s.Name] && !only[d.Name]
			if got := StringBoundsFoldedOnlyBySource(s, d); got != want {
				t.Errorf("%s to %s: got %v, want %v", s.Name, d.Name, got, want)
			}
		}
	}
}

// TestStringBoundsCutUnfolded pins the conversions that write cut VARCHAR
// bounds NULL: from 1.0 (scanned by DuckDB 1.5, folded by 2.0) to 1.1 and
// 1.1-dev1 (folded by 2.0 only), and no other.
func TestStringBoundsCutUnfolded(t *testing.T) {
	only := map[string]bool{"1.1-dev1": true, "1.1": true}
	for _, s := range All {
		for _, d := range All {
			want := s.Name == "1.0" && only[d.Name]
			if got := StringBoundsCutUnfolded(s, d); got != want {
				t.Errorf("%s to %s: got %v, want %v", s.Name, d.Name, got, want)
			}
		}
	}
}
