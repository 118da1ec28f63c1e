package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
)

// TestFooterQuirksReported: conversions of a lake share its data folder; once its data files' footers are
// broken (formats.FooterQuirks), the proof reports every file some release
// among B's format's readers fails on or misreads, naming table, file,
// column and releases, and none outside BReaders but the file DuckDB
// 1.4.0 misreads without an error, which is reported whatever BReaders
// says (a DuckDB opens the newest format it can). They were proved
// equivalent (the file DuckDB 1.4.0 misreads from the start too).
func TestFooterQuirksReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	l, err := footertest.NewLake(ctx, filepath.Join(dir, "lake"), true)
	if err != nil {
		t.Fatal(err)
	}
	outs := map[string]string{}
	for _, v := range []*formats.Version{formats.V0_3, formats.V0_4, formats.V1_1} {
		outs[v.Name] = filepath.Join(dir, "out-"+v.Name+".duckdb")
		// cjk's file, as DuckDB writes it, is misread by DuckDB 1.4.0, so
		// 0.3 is converted without the data folder (no footer read).
		opts := Options{DataPath: l.Data}
		if v == formats.V0_3 {
			opts = Options{}
		}
		if _, err := Catalog(ctx, l.Catalog, outs[v.Name], v, opts); err != nil {
			t.Fatalf("convert to %s before the footers break: %v", v.Name, err)
		}
	}
	if err := l.Break(ctx, outs["0.3"], outs["0.4"], outs["1.1"]); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		b, readers string
		want       []string // kind:table:quirk
	}{
		{"1.1", "", nil},
		{"0.4", "", []string{"footer:main.geo:" + formats.FooterGeoCRSNull}},
		{"0.4", ">= 1.5.1", nil},
		{"0.3", "", []string{"footer:main.words:" + formats.FooterStringStatsInvalidUTF8,
			"footer:main.cjk:" + formats.FooterStringStatsMissingBound, "footer:main.docs:" + formats.FooterJSONDeltaLength}},
		{"0.3", ">= 1.4.2", []string{"footer:main.words:" + formats.FooterStringStatsInvalidUTF8, "footer:main.cjk:" + formats.FooterStringStatsMissingBound}},
		{"0.3", ">= 1.4.4", []string{"footer:main.cjk:" + formats.FooterStringStatsMissingBound}},
	}
	for _, c := range cases {
		t.Run(c.b+c.readers, func(t *testing.T) {
			rep, err := compare.Catalogs(ctx, l.Catalog, outs[c.b], compare.Options{DataPath: l.Data, BReaders: c.readers})
			if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatal(err)
			}
			var got []string
			for _, d := range rep.Differences {
				for _, q := range formats.FooterQuirks {
					if strings.Contains(d.Reason, "("+q.Name+")") {
						got = append(got, d.Kind+":"+d.Table+":"+q.Name)
						if !strings.Contains(d.Reason, "DuckDB 1.") || !strings.Contains(d.Reason, "column ") || !strings.Contains(d.Item, ".parquet") {
							t.Errorf("difference names no release, column or file: %s", d)
						}
					}
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("differences %v, want %v (err %v)", got, c.want, err)
			}
			if len(c.want) == 0 && err != nil {
				t.Errorf("not equivalent: %v", err)
			}
		})
	}
}
