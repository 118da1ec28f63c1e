package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// setCreatedAt rewrites created_at in a version's version.json.
func setCreatedAt(t *testing.T, root, id, createdAt string) {
	t.Helper()
	testlakes.EditVersion(t, filepath.Join(root, "versions", id), func(m map[string]any) { m["created_at"] = createdAt })
}

// TestPlanCreatedAtGap: a created_at more than CreatedAtTolerance from the
// time the version's id carries is warned of, naming the version, both
// times and the gap; the later of the two decides the until rule (a clock
// years ahead puts the version past until). The lake's first version's id
// carries 2026-10-31T01:03:08.357Z.
func TestPlanCreatedAtGap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, root := smallLake(t, "fdl.json", "versions")
	first := versionIDs(t, root)[0]
	const idTime = "2026-10-31T01:03:08.357Z"
	os.Remove(filepath.Join(root, "fdl.json"))
	writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl":"0.1","formats":[{"ducklake":"1.0"},{"ducklake":"0.4","until":"2026-11-15T00:00:00Z"}]}`)
	now := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC) // before until: only the creation decides
	for _, tc := range []struct {
		name, createdAt string
		want            State
		warning         string // "" for none
	}{
		{"as_made", "2026-10-31T01:03:08Z", Missing, ""},
		{"a_day_before", "2026-10-30T01:03:08.357Z", Missing, ""},
		{"over_a_day_before", "2026-10-30T00:03:08Z", Missing, "version " + first + ": version.json's created_at 2026-10-30T00:03:08Z is 25h0m0s before the time its id carries, " + idTime + " (more than 24 hours apart): fdl.json's until rule takes the later, the id's"},
		{"the_data_date", "2025-12-31T00:00:00Z", Missing, "is 304 days before the time its id carries, " + idTime},
		{"clock_ahead", "2029-10-31T01:03:08Z", Expired, "version " + first + ": version.json's created_at 2029-10-31T01:03:08Z is 1095 days after the time its id carries, " + idTime + " (more than 24 hours apart): fdl.json's until rule takes the later, created_at"},
		{"year_one", "0001-01-01T00:00:00Z", Missing, "before the time its id carries, " + idTime},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setCreatedAt(t, root, first, tc.createdAt)
			m, err := Plan(ctx, st, Options{Now: now, NowSet: true, Versions: []string{"1"}, Formats: []string{"0.4"}, DataPath: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if got := states(m, "0.4"); !slices.Equal(got, []State{tc.want}) {
				t.Errorf("0.4 cell %v, want %s", got, tc.want)
			}
			var gaps []string
			for i, w := range m.Warnings {
				if strings.Contains(w, "created_at") {
					gaps = append(gaps, w)
					if key := "versions/" + first + "/version.json"; m.warningKeys[i] != key {
						t.Errorf("warning %q names %q, want %s", w, m.warningKeys[i], key)
					}
				}
			}
			switch {
			case tc.warning == "" && len(gaps) > 0:
				t.Errorf("warnings %q, want none about created_at", gaps)
			case tc.warning != "" && (len(gaps) != 1 || !strings.Contains(gaps[0], tc.warning)):
				t.Errorf("warnings %q, want one saying %q", gaps, tc.warning)
			}
		})
	}
}

// TestBackfillCreatedAtBackdated: a version whose created_at is set back
// before a format's until, while its id says it was made after, is past
// that until: plan shows the cell expired, backfill does not write it, and
// check reports a catalog of that format there as a broken rule (exit 3),
// as for a version created after until. Before, created_at alone decided.
// The lake's third version's id carries 2026-10-31T03:03:08.357Z.
func TestBackfillCreatedAtBackdated(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts a catalog")
	}
	ctx := context.Background()
	st, root := smallLake(t)
	third := versionIDs(t, root)[2]
	setCreatedAt(t, root, third, "2026-10-01T00:00:00Z")
	setUntil := func(until string) {
		os.Remove(filepath.Join(root, "fdl.json"))
		writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl":"0.1","formats":[{"ducklake":"1.0"},{"ducklake":"0.4"`+until+`}]}`)
	}
	setUntil(`,"until":"2026-10-31T03:00:00Z"`)
	now := time.Date(2026, 10, 15, 0, 0, 0, 0, time.UTC)
	opts := Options{Now: now, NowSet: true, Versions: []string{"3"}, Formats: []string{"0.4"}}
	const byID = "2026-10-31T03:03:08.357Z (the time in its id; its created_at says 2026-10-01T00:00:00Z)"

	m, err := Plan(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := m.Cell(third, "0.4")
	if c == nil || c.State != Expired || !slices.Equal(c.Reasons, []string{"version created " + byID + ", at or after until 2026-10-31T03:00:00Z"}) {
		t.Fatalf("plan: cell %+v, want expired by the id's time", c)
	}
	rep, err := Backfill(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 0 || rep.Counts[Written] != 0 {
		t.Errorf("backfill wrote %v, want nothing", rep.Counts)
	}
	catalog := filepath.Join(root, "versions", third, "catalogs", "0.4.duckdb")
	if _, err := os.Stat(catalog); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("backfill left %s (%v), want none", catalog, err)
	}

	// Written while the format had no until, the catalog breaks the rule
	// once it has one the version was made after.
	setUntil("")
	if rep, err = Backfill(ctx, st, opts); err != nil || rep.Counts[Written] != 1 {
		t.Fatalf("backfill without until: %v, %v", rep.Counts, err)
	}
	setUntil(`,"until":"2026-10-31T03:00:00Z"`)
	crep, err := Check(ctx, st, opts)
	var ce *CheckError
	want := "rule broken: written for a version created " + byID + ", at or after the format's until 2026-10-31T03:00:00Z (a format past its until is not written for newer versions): remove " + filepath.Join(root, "versions", third, "catalogs", "0.4.duckdb") + ", or, if until is too early, set it after 2026-10-31T03:03:08.357Z in fdl.json"
	if !errors.Is(err, ErrDifferences) || !errors.As(err, &ce) || ce.First.Detail != want {
		t.Fatalf("check: %v, want the difference %q", err, want)
	}
	warned := false
	for _, f := range crep.Findings {
		warned = warned || f.Kind == KindWarning && f.Key == "versions/"+third+"/version.json" && strings.Contains(f.Detail, "created_at 2026-10-01T00:00:00Z is 30 days before the time its id carries, 2026-10-31T03:03:08.357Z")
	}
	if !warned {
		t.Errorf("check's findings %+v do not warn of the created_at", crep.Findings)
	}
}

// TestCreatedText: a finding about until names the time the rule took, the
// later of created_at and the id's time, also when both are past until (it
// named created_at then, while its advice named the id's time).
func TestCreatedText(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name, created, id, want string
	}{
		{"same time", "2026-11-01T00:00:00Z", "2026-11-01T00:00:00Z", "2026-11-01T00:00:00Z"},
		{"created_at later", "2026-11-02T00:00:00Z", "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z"},
		{"id later", "2026-11-01T00:00:00Z", "2026-12-01T00:00:00.5Z", "2026-12-01T00:00:00.5Z (the time in its id; its created_at says 2026-11-01T00:00:00Z)"},
	} {
		meta := &fdljson.Version{CreatedAt: at(tc.created), IDTime: at(tc.id)}
		if got := createdText(meta); got != tc.want || !strings.HasPrefix(got, meta.Created().Format(time.RFC3339Nano)) {
			t.Errorf("%s: createdText = %q, want %q", tc.name, got, tc.want)
		}
	}
}
