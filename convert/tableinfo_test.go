package convert

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestRewriteDeletesTableInfo pins what docs/compare.md ("Known limits",
// ducklake_table_info()) and README's proof guarantees say of
// --rewrite-deletes: ducklake_table_info() counts, at the snapshot read,
// the table's visible data and delete file rows and sums their
// file_size_bytes (DuckLakeMetadataManager::GetTableSizes, the same query
// in v1.3-ossivalis, v1.4-andium, v1.5-variegata and main). A rewrite
// writes other delete files than the source's (a 0.3 writer's chain of
// cumulative files for each partial deletion file), so its delete file
// count and size differ where the rows do not; the data files' stay the
// source's. The proof proves the rows and passes it.
func TestRewriteDeletesTableInfo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	data := filepath.Join(t.TempDir(), "data")
	copyTree(t, filepath.Join(lake, "data"), data)
	out := filepath.Join(t.TempDir(), "0.3.duckdb")
	if _, err := Catalog(ctx, src, out, formats.V0_3, Options{RewriteDeletes: true, DataPath: data}); err != nil {
		t.Fatal(err)
	}
	if rep, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data}); err != nil || !rep.Equivalent {
		t.Fatalf("rewritten 0.3 catalog not equivalent: %v", err)
	}
	// What ducklake_table_info() returns per table, at every snapshot.
	const sizes = `SELECT s.snapshot_id, t.table_id, k.kind, count(f.table_id), coalesce(sum(f.file_size_bytes), 0)
		FROM c.ducklake_snapshot s
		JOIN c.ducklake_table t ON s.snapshot_id >= t.begin_snapshot AND (t.end_snapshot IS NULL OR s.snapshot_id < t.end_snapshot)
		CROSS JOIN (VALUES ('data'), ('delete')) k(kind)
		LEFT JOIN (SELECT 'data' AS kind, table_id, begin_snapshot, end_snapshot, file_size_bytes FROM c.ducklake_data_file
			UNION ALL SELECT 'delete', table_id, begin_snapshot, end_snapshot, file_size_bytes FROM c.ducklake_delete_file) f
			ON f.kind = k.kind AND f.table_id = t.table_id AND s.snapshot_id >= f.begin_snapshot AND (f.end_snapshot IS NULL OR s.snapshot_id < f.end_snapshot)
		GROUP BY ALL ORDER BY ALL`
	type key struct {
		snap, table int64
		kind        string
	}
	type info struct{ count, size int64 }
	read := func(path string) map[key]info {
		conn, release := attached(t, path, "READ_ONLY")
		defer release()
		rows, err := conn.QueryContext(ctx, sizes)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[key]info{}
		for rows.Next() {
			var k key
			var v info
			if err := rows.Scan(&k.snap, &k.table, &k.kind, &v.count, &v.size); err != nil {
				t.Fatal(err)
			}
			out[k] = v
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := read(src), read(out)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("table_info rows: source %d, rewritten %d", len(a), len(b))
	}
	differ := 0
	for k, v := range a {
		switch w, ok := b[k]; {
		case !ok:
			t.Errorf("%+v: not in the rewritten catalog", k)
		case k.kind == "data" && w != v:
			t.Errorf("%+v: data files %+v, the source's %+v", k, w, v)
		case k.kind == "delete" && w != v:
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("the rewrite's delete files count and weigh as the source's at every snapshot: docs/compare.md says they differ")
	}
	t.Logf("%d of %d (snapshot, table) delete file counts or sizes differ", differ, len(a)/2)
}
