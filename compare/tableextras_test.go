package compare

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// extrasText writes a table's extras as one line: partition keys, sort
// keys, tags and column tags in order.
func extrasText(x *TableExtras) string {
	if x == nil {
		return "none"
	}
	tags := func(m map[string]*string) string {
		var out []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			v := "NULL"
			if m[k] != nil {
				v = *m[k]
			}
			out = append(out, k+"="+v)
		}
		return strings.Join(out, ",")
	}
	var cols []string
	for _, id := range slices.Sorted(maps.Keys(x.ColumnTags)) {
		cols = append(cols, fmt.Sprintf("%d:%s", id, tags(x.ColumnTags[id])))
	}
	return fmt.Sprintf("part=%v sort=%v tags=[%s] cols=[%s]", x.Partitioning, x.Sorting, tags(x.Tags), strings.Join(cols, " "))
}

// TestTableExtras: on catalogs DuckLake wrote (conformance lakes
// 08_partitioning, 22_sorted_tables, 11_comments_tags), TableExtras reads
// each generation of a table's partitioning (RESET PARTITIONED BY writes
// a spec without keys: none), its sort hints (a reset ends the rows) and
// its and its columns' tags (a cleared comment, a NULL value, is none), and
// ViewExtras a view's comment, at the snapshot asked.
func TestTableExtras(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lakes := map[string]string{}
	for _, lake := range testlakes.Lakes(t, "lakes") {
		lakes[filepath.Base(lake)] = lake
	}
	for _, tc := range []struct {
		lake  string
		table int64
		want  map[int64]string // by snapshot
	}{
		{"08_partitioning", 1, map[int64]string{
			1: "none",
			2: "part=[{3 identity}] sort=[] tags=[] cols=[]",
			4: "part=[{2 year} {2 month}] sort=[] tags=[] cols=[]",
			6: "part=[{1 bucket(4)}] sort=[] tags=[] cols=[]",
			8: "none",
		}},
		{"22_sorted_tables", 1, map[int64]string{
			3: "part=[] sort=[{a duckdb DESC NULLS_LAST}] tags=[] cols=[]",
			4: "part=[] sort=[{b duckdb ASC NULLS_FIRST} {c duckdb DESC NULLS_LAST}] tags=[] cols=[]",
			6: "none",
		}},
		{"22_sorted_tables", 4, map[int64]string{
			9: "part=[] sort=[{concat(last_name, ', ', first_name) duckdb ASC NULLS_LAST} {(a + b) duckdb DESC NULLS_LAST}] tags=[] cols=[]",
		}},
		{"11_comments_tags", 1, map[int64]string{
			3:  "part=[] sort=[] tags=[comment=very gezellige table] cols=[]",
			5:  "part=[] sort=[] tags=[comment=very gezellige table] cols=[1:comment=the id column 2:comment=first text]",
			16: "part=[] sort=[] tags=[comment=updated table comment,owner=alice] cols=[1:comment=the id column 2:comment=second text]",
		}},
		{"11_comments_tags", 2, map[int64]string{
			9: "part=[] sort=[] tags=[comment=will be cleared] cols=[]",
			// COMMENT ON … IS NULL writes a row with a NULL value, which
			// readers skip (tagRow.readerTag): no tag.
			10: "none",
		}},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.lake, tc.table), func(t *testing.T) {
			t.Parallel()
			lake, ok := lakes[tc.lake]
			if !ok {
				t.Fatalf("no conformance lake %s", tc.lake)
			}
			cats, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
			if len(cats) == 0 {
				t.Fatalf("%s: no catalog", tc.lake)
			}
			r, err := Open(ctx, cats[len(cats)-1], ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for _, snap := range slices.Sorted(maps.Keys(tc.want)) {
				all, err := r.TableExtras(ctx, snap)
				if err != nil {
					t.Fatal(err)
				}
				if got := extrasText(all[tc.table]); got != tc.want[snap] {
					t.Errorf("snapshot %d: %s\nwant %s", snap, got, tc.want[snap])
				}
			}
			if tc.lake != "11_comments_tags" || tc.table != 1 {
				return
			}
			for snap, want := range map[int64]string{11: "none", 12: "part=[] sort=[] tags=[comment=very gezellige view] cols=[]"} {
				views, err := r.ViewExtras(ctx, snap)
				if err != nil {
					t.Fatal(err)
				}
				var got *TableExtras
				if v, ok := views["main.tagged_view"]; ok {
					got = &TableExtras{Tags: v.Tags}
					if len(v.ColumnTags) > 0 {
						t.Errorf("view at snapshot %d: column tags %v in format 1.0", snap, v.ColumnTags)
					}
				}
				if s := extrasText(got); s != want {
					t.Errorf("view at snapshot %d: %s\nwant %s", snap, s, want)
				}
			}
		})
	}
}
