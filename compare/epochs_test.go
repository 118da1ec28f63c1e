package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestEpochAnswersMatchDirectReads walks every snapshot of the newest version of
// each conformance lake, in both directions, and requires the answers
// kept by epoch (tables, columns, data and delete files, the schema
// description) to equal what a direct read at that very snapshot returns.
// The lakes hold drops, renames, type changes, tags, views, macros,
// compactions and partial files: a change point missed by the epochs shows
// up as a stale answer here.
func TestEpochAnswersMatchDirectReads(t *testing.T) {
	ctx := context.Background()
	archives := []string{"lakes", "lakes-0.3", "lakes-1.1-dev1", "lakes-0.3-compaction", "migrations"}
	for _, archive := range archives {
		t.Run(archive, func(t *testing.T) {
			lakes := testlakes.Lakes(t, archive)
			if len(lakes) == 0 {
				t.Fatalf("no lakes in %s", archive)
			}
			for _, lake := range lakes {
				name := filepath.Base(lake)
				if name == "zz_storage_v2_unreadable" {
					continue
				}
				// The newest version holds every snapshot of the lake.
				cats, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
				slices.Sort(cats)
				if len(cats) > 1 {
					cats = cats[len(cats)-1:]
				}
				more, _ := filepath.Glob(filepath.Join(lake, "*.duckdb"))
				for _, cat := range append(cats, more...) {
					t.Run(name+"/"+filepath.Base(filepath.Dir(cat)), func(t *testing.T) {
						checkEpochs(ctx, t, cat, filepath.Join(lake, "data"))
					})
				}
			}
		})
	}
}

func checkEpochs(ctx context.Context, t *testing.T, catalog, data string) {
	r, err := Open(ctx, catalog, ReaderOptions{DataPath: data})
	if err != nil {
		t.Skipf("not a readable catalog: %v", err) // other tests cover unreadable ones
	}
	defer r.Close()
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every snapshot once: the even ones forwards, then the odd ones
	// backwards, so that answers are asked for in both directions.
	var order, odd []int64
	for i, s := range snaps {
		if i%2 == 0 {
			order = append(order, s.ID)
		} else {
			odd = append(odd, s.ID)
		}
	}
	slices.Reverse(odd)
	for _, s := range append(order, odd...) {
		if err := sameAsDirect(ctx, r, s); err != nil {
			t.Fatalf("%s snapshot %d: %v", catalog, s, err)
		}
	}
}

func sameAsDirect(ctx context.Context, r *Reader, s int64) error {
	tables, err := r.Tables(ctx, s)
	if err != nil {
		return err
	}
	direct, err := r.readTables(ctx, s)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(tables, direct) {
		return fmt.Errorf("tables: kept %v, read %v", tables, direct)
	}
	kept, err := r.schemaEntries(ctx, s)
	if err != nil {
		return err
	}
	read, err := r.readSchemaEntries(ctx, s)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(kept, read) {
		return fmt.Errorf("schema description: kept %v, read %v", kept, read)
	}
	for _, tb := range tables {
		cols, err := r.Columns(ctx, tb.ID, s)
		if err != nil {
			return err
		}
		dc, err := r.readColumns(ctx, tb.ID, s, false)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(cols, dc) {
			return fmt.Errorf("columns of %s differ from a direct read", tb.FullName())
		}
		files, err := r.Files(ctx, tb, s)
		if err != nil {
			return err
		}
		var got []string
		for _, f := range files {
			d := "-"
			if f.Delete != nil {
				d = fmt.Sprint(f.Delete.ID)
			}
			got = append(got, fmt.Sprintf("%d:%s", f.ID, d))
		}
		want, err := r.strings(ctx, fmt.Sprintf(`SELECT d.data_file_id::VARCHAR || ':' || coalesce((SELECT x.delete_file_id::VARCHAR FROM cat.ducklake_delete_file x
			WHERE x.data_file_id = d.data_file_id AND x.table_id = %[1]d AND %[2]s), '-')
			FROM cat.ducklake_data_file d WHERE d.table_id = %[1]d AND %[3]s ORDER BY d.data_file_id`, tb.ID, visible("x", s), visible("d", s)))
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("files of %s: kept %v, read %v", tb.FullName(), got, want)
		}
	}
	return nil
}
