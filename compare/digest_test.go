package compare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// TestDigestValues: the values DuckDB's hash() alone confuses get distinct
// digests, and the values that are equal get equal ones. Each case is a
// one-column (or two-column) row query on each side.
func TestDigestValues(t *testing.T) {
	r := openAny(t)
	ctx := context.Background()
	cases := []struct {
		name string
		a, b string // SELECT lists of one row each
		same bool
	}{
		{"NaN equals NaN", "'nan'::DOUBLE AS x", "'nan'::DOUBLE AS x", true},
		{"NaN is not NULL", "'nan'::DOUBLE AS x", "NULL::DOUBLE AS x", false},
		{"NaN is not 0", "'nan'::DOUBLE AS x", "0::DOUBLE AS x", false},
		{"NaN is not infinity", "'nan'::FLOAT AS x", "'inf'::FLOAT AS x", false},
		{"-0.0 is not 0.0", "-0.0::DOUBLE AS x", "0.0::DOUBLE AS x", false},
		{"-0.0 is not 0.0 in a float", "-0.0::FLOAT AS x", "0.0::FLOAT AS x", false},
		{"-0.0 is not 0.0 in a list", "[1.5, '-0.0'::DOUBLE] AS x", "[1.5, '0.0'::DOUBLE] AS x", false},
		{"-0.0 is not 0.0 in a struct", "{'f': '-0.0'::DOUBLE} AS x", "{'f': 0.0::DOUBLE} AS x", false},
		{"NULL struct is not a struct of NULLs", "NULL::STRUCT(a INTEGER) AS x", "{'a': NULL::INTEGER} AS x", false},
		{"NULL list is not empty", "NULL::INTEGER[] AS x", "[]::INTEGER[] AS x", false},
		{"empty list is not [NULL]", "[]::INTEGER[] AS x", "[NULL]::INTEGER[] AS x", false},
		{"NULL list is not [NULL]", "NULL::INTEGER[] AS x", "[NULL]::INTEGER[] AS x", false},
		{"list boundaries count", "[[1, 2], []]::INTEGER[][] AS x", "[[1], [2]]::INTEGER[][] AS x", false},
		{"list boundaries count across fields", "{'a': [1, 2], 'b': []::INTEGER[]} AS x", "{'a': [1], 'b': [2]} AS x", false},
		{"list boundaries count across columns", "[1, 2] AS x, []::INTEGER[] AS y", "[1] AS x, [2] AS y", false},
		{"NULL map is not empty", "NULL::MAP(VARCHAR, INTEGER) AS x", "MAP {}::MAP(VARCHAR, INTEGER) AS x", false},
		{"map keys and values pair", "MAP {'a': 1, 'b': 2} AS x", "MAP {'a': 2, 'b': 1} AS x", false},
		{"nested NULL deep in a list of structs", "[{'a': NULL::INTEGER}] AS x", "[NULL::STRUCT(a INTEGER)] AS x", false},
		{"equal nested values", "[{'a': [1, NULL], 'm': MAP {'k': [2.5]}}] AS x", "[{'a': [1, NULL], 'm': MAP {'k': [2.5]}}] AS x", true},
		{"columns are ordered", "1 AS x, 2 AS y", "2 AS x, 1 AS y", false},
		{"interval months are not days", "INTERVAL 1 MONTH AS x", "INTERVAL 30 DAYS AS x", false},
		{"time zone offsets count", "'12:00:00+01'::TIMETZ AS x", "'11:00:00+00'::TIMETZ AS x", false},
		{"geometry by value", "'POINT(1 2)'::GEOMETRY AS x", "'POINT(1 3)'::GEOMETRY AS x", false},
		{"geometry spelled twice", "'POINT(1 2)'::GEOMETRY AS x", "'POINT (1 2)'::GEOMETRY AS x", true},
		{"geometry is not NULL", "'POINT EMPTY'::GEOMETRY AS x", "NULL::GEOMETRY AS x", false},
		{"variant by value", "{'k': 1}::VARIANT AS x", "{'k': 2}::VARIANT AS x", false},
		{"variant shapes of one value", "1::INTEGER::VARIANT AS x", "1::BIGINT::VARIANT AS x", true},
		{"variant NULL inside is not NULL", "[NULL]::INTEGER[]::VARIANT AS x", "NULL::VARIANT AS x", false},
		// A TIMESTAMP_NS before 1677-09-22 in a VARIANT: DuckDB cannot
		// render it (variantText).
		{"variant early timestamp_ns by value", "(TIMESTAMP_NS '1677-09-21 12:00:00')::VARIANT AS x", "(TIMESTAMP_NS '1677-09-21 12:00:00.000000001')::VARIANT AS x", false},
		{"variant early timestamp_ns is its text", "(TIMESTAMP_NS '1677-09-21 12:00:00.5')::VARIANT AS x", "'1677-09-21 12:00:00.5'::VARIANT AS x", true},
		{"variant early timestamp_ns in an object", "{'t': TIMESTAMP_NS '1677-09-21 12:00:00', 'n': 1}::VARIANT AS x", "{'t': TIMESTAMP_NS '1677-09-21 12:00:00', 'n': 2}::VARIANT AS x", false},
		{"equal variants holding early timestamp_ns, in a list and a struct", "[{'t': TIMESTAMP_NS '1677-09-21 12:00:00'}::VARIANT, NULL] AS x, {'v': (TIMESTAMP_NS '1677-09-21 00:12:43.145225')::VARIANT} AS y",
			"[{'t': TIMESTAMP_NS '1677-09-21 12:00:00'}::VARIANT, NULL] AS x, {'v': (TIMESTAMP_NS '1677-09-21 00:12:43.145225')::VARIANT} AS y", true},
		{"variant early timestamp_ns in a list", "[(TIMESTAMP_NS '1677-09-21 12:00:00')::VARIANT] AS x", "[(TIMESTAMP_NS '1677-09-21 12:00:01')::VARIANT] AS x", false},
		{"blob bytes", "'\\x00'::BLOB AS x", "''::BLOB AS x", false},
		{"decimal scale is in the type, values compare", "1.10::DECIMAL(9,2) AS x", "1.01::DECIMAL(9,2) AS x", false},
		// hash() xors the hashes of a 128-bit value's two halves.
		{"hugeint halves swapped", "((2::HUGEINT << 64) + 1) AS x", "((1::HUGEINT << 64) + 2) AS x", false},
		{"uhugeint halves swapped", "UHUGEINT '36893488147419103233' AS x", "UHUGEINT '18446744073709551618' AS x", false},
		{"uuid halves swapped", "'80000000-0000-0001-0000-000000000002'::UUID AS x", "'80000000-0000-0002-0000-000000000001'::UUID AS x", false},
		{"wide decimal halves swapped", "36893488147419103233::DECIMAL(38,0) AS x", "18446744073709551618::DECIMAL(38,0) AS x", false},
		{"hugeint halves swapped in a list", "[(2::HUGEINT << 64) + 1] AS x", "[(1::HUGEINT << 64) + 2] AS x", false},
		{"equal 128-bit values", "-5::HUGEINT AS h, '80000000-0000-0001-0000-000000000002'::UUID AS u, 1.10::DECIMAL(38,2) AS d", "-5::HUGEINT AS h, '80000000-0000-0001-0000-000000000002'::UUID AS u, 1.1::DECIMAL(38,2) AS d", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			da, err := digestOf(ctx, r.conn, "SELECT "+c.a)
			if err != nil {
				t.Fatal(err)
			}
			db, err := digestOf(ctx, r.conn, "SELECT "+c.b)
			if err != nil {
				t.Fatal(err)
			}
			if (da == db) != c.same {
				t.Fatalf("SELECT %s -> %v\nSELECT %s -> %v\nwant same=%v", c.a, da, c.b, db, c.same)
			}
			if da.Hi == da.Lo {
				t.Fatalf("the two row hashes agree: %v", da)
			}
		})
	}
}

// TestRowHashesSeparateRealValues: on the conformance lakes holding the
// values that need care (NaN and -0.0, nested NULLs, VARIANT, GEOMETRY),
// at every snapshot of the newest version, two rows have the same pair of
// row hashes exactly when they have the same text, and a table's digest
// (file plans without deletes minus deleted rows, plus inlined rows) equals
// the digest of its rows read in one query with deletes applied, file by
// file. It holds whether the files were read one by one as the walk meets
// them or up front, those of a plan shape in one query (prefetch); the
// lakes with schema changes, type promotions, defaults, partitions, merged
// files, registered files and encrypted files check that grouped reads read
// each file as it is read alone.
func TestRowHashesSeparateRealValues(t *testing.T) {
	lakes := []struct {
		archive, name string
		prefetchOnly  bool
	}{
		{"lakes", "01_primitive_types", false}, {"lakes", "12_nested_types", false}, {"lakes", "13_variant", false},
		{"lakes", "14_geometry", false}, {"lakes", "06_deletes", false}, {"lakes", "24_deletion_vectors", false},
		{"lakes", "16_data_inlining", false}, {"lakes-1.1-dev1", "24_deletion_vectors", false},
		{"lakes", "02_add_drop_columns", true}, {"lakes", "04_type_promotion", true},
		{"lakes", "05_defaults_not_null", true}, {"lakes", "08_partitioning", true},
		{"lakes", "15_encryption", true}, {"lakes", "17_compaction", true},
		{"lakes", "19_add_data_files", true}, {"lakes", "23_row_lineage", true},
	}
	ctx := context.Background()
	engines := readerDBs
	for _, l := range lakes {
		for _, prefetched := range []bool{false, true} {
			if l.prefetchOnly && !prefetched {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s/prefetched=%v", l.archive, l.name, prefetched), func(t *testing.T) {
				t.Parallel() // a reader of its own on a lake it only reads
				lake, catalog := lastVersion(t, l.archive, l.name)
				r := openPooled(t, catalog, filepath.Join(lake, "data"), engines)
				snaps, err := r.Snapshots(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if testing.Short() && l.name != "06_deletes" {
					snaps = snaps[len(snaps)-1:] // -short: every snapshot of one lake, the last of the others
				}
				last := snaps[len(snaps)-1].ID
				checkDigestsByParts(t, r, snaps, prefetched, func(tb Table, snap int64) {
					if snap != last {
						return
					}
					plain, err := r.Query(ctx, tb, snap, ScanOptions{})
					if err != nil {
						t.Fatal(err)
					}
					names, types, err := parquetsql.Describe(ctx, r.conn, plain)
					if err != nil {
						t.Fatal(err)
					}
					h1, h2, err := rowHashes(names, types)
					if err != nil {
						t.Fatal(err)
					}
					var texts, hashes, both int64
					if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(DISTINCT txt), count(DISTINCT (h1, h2)), count(DISTINCT (txt, h1, h2))
						FROM (SELECT CAST(t AS VARCHAR) AS txt, %s AS h1, %s AS h2 FROM (%s) t)`, h1, h2, plain)).Scan(&texts, &hashes, &both); err != nil {
						t.Fatal(err)
					}
					if texts != hashes || texts != both {
						t.Errorf("%s: %d distinct row texts, %d distinct row hashes, %d distinct pairs", tb.FullName(), texts, hashes, both)
					}
				})
			})
		}
	}
}

// checkDigestsByParts requires, at each of snaps and for every table, the
// table's digest by parts (file plans without deletes minus deleted rows,
// plus inlined rows) to equal the digest of its rows read file by file
// with deletes applied, then calls each (if not nil). With prefetched, the
// files are first read up front, one query per plan shape, as a
// comparison reads them, and the walk must read none again.
func checkDigestsByParts(t *testing.T, r *Reader, snaps []Snapshot, prefetched bool, each func(tb Table, snap int64)) {
	t.Helper()
	ctx := context.Background()
	if prefetched {
		prefetchAll(r, snaps)
	}
	prefetchReads := r.memo.snapshot().Reads
	rows := 0
	wants := map[string]Digest{} // by query
	for _, s := range snaps {
		tables, err := r.Tables(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			got, _, err := r.TableDigest(ctx, tb, s.ID, rowOptions())
			if err != nil {
				t.Fatalf("snapshot %d %s: %v", s.ID, tb.FullName(), err)
			}
			q, err := r.Query(ctx, tb, s.ID, rowOptions())
			if err != nil {
				t.Fatal(err)
			}
			// The same query reads the same rows (staged delete lists
			// are named after their content): a table unchanged since an
			// earlier snapshot is not read file by file again.
			want, ok := wants[q]
			if !ok {
				if want, err = digestOf(ctx, r.conn, q); err != nil {
					t.Fatalf("snapshot %d %s: %v", s.ID, tb.FullName(), err)
				}
				wants[q] = want
			}
			if got != want {
				t.Errorf("snapshot %d %s: digest by parts %v, rows read file by file %v", s.ID, tb.FullName(), got, want)
			}
			rows += int(want.Rows)
			if each != nil {
				each(tb, s.ID)
			}
		}
	}
	if rows == 0 {
		t.Fatal("no rows read")
	}
	if walkReads := r.memo.snapshot().Reads - prefetchReads; prefetched && (prefetchReads == 0 || walkReads != 0) {
		t.Errorf("prefetch read %d files, the walk %d more; want all read up front", prefetchReads, walkReads)
	}
}

// memStore is an in-memory DigestStore.
type memStore map[string][]byte

func (m memStore) Get(key string) ([]byte, bool) { b, ok := m[key]; return b, ok }
func (m memStore) Put(key string, val []byte) error {
	m[key] = val
	return nil
}

// TestCatalogsShareAndCacheDigests (every file digested, as for plans that
// differ; see TestSamePlansCancel): a plan both catalogs give is read once
// (B reuses A's digests); the same comparison again returns the kept proof;
// another version of the lake reads nothing its plans share with the first
// comparison; a plan over other files (B's own data folder) is read again.
func TestCatalogsShareAndCacheDigests(t *testing.T) {
	lake, shared := lastVersion(t, "lakes", "06_deletes")
	m := readManifest(t, lake)
	older := filepath.Join(lake, "versions", m.Versions[len(m.Versions)-2].ID, "ducklake.duckdb")
	data := filepath.Join(lake, "data")
	ctx := context.Background()
	store := memStore{}
	// A copy: a .wal is written beside it below, which would make every
	// other test opening the shared lake's catalog meanwhile fail.
	catalog := filepath.Join(t.TempDir(), "ducklake.duckdb")
	body, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(catalog, body, 0o644); err != nil {
		t.Fatal(err)
	}
	cold, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, DigestCache: store, everyDigest: true, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	if cold.Digests.Computed == 0 || cold.Digests.Reused < cold.Digests.Computed || cold.Digests.Cached != 0 || cold.ProofCached {
		t.Errorf("cold: %+v; want every plan computed once and reused by B", cold.Digests)
	}
	again, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, DigestCache: store, everyDigest: true, Engines: readerDBs})
	if err != nil || !again.ProofCached || !again.Equivalent {
		t.Fatalf("same comparison again: cached=%v equivalent=%v err=%v; want the kept proof", again.ProofCached, again.Equivalent, err)
	}
	if len(again.Tables) != len(cold.Tables) || *again.Tables[0].A != *cold.Tables[0].A {
		t.Errorf("kept proof differs from the proof made")
	}
	// A kept proof is found before the catalogs are opened, but never for
	// a catalog with a write-ahead log beside it, which Open refuses.
	wal := catalog + ".wal"
	if err := os.WriteFile(wal, []byte("not replayed"), 0o644); err != nil {
		t.Fatal(err)
	}
	withWAL, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, DigestCache: store, everyDigest: true, Engines: readerDBs})
	if err == nil || (withWAL != nil && withWAL.ProofCached) {
		t.Errorf("catalog with a .wal beside it: proof cached %v, err %v; want it refused", withWAL != nil && withWAL.ProofCached, err)
	}
	if err := os.Remove(wal); err != nil {
		t.Fatal(err)
	}
	warm, err := Catalogs(ctx, older, older, Options{DataPath: data, DigestCache: store, everyDigest: true, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	if warm.ProofCached || warm.Digests.Computed != 0 || warm.Digests.Cached == 0 {
		t.Errorf("older version: %+v (proof cached %v); want every plan from the cache", warm.Digests, warm.ProofCached)
	}
	nocache, err := Catalogs(ctx, older, older, Options{DataPath: data, everyDigest: true, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	for i := range warm.Tables {
		if *nocache.Tables[i].A != *warm.Tables[i].A || *nocache.Tables[i].B != *warm.Tables[i].B {
			t.Errorf("table %s at %d: read %v/%v, cached %v/%v", warm.Tables[i].Table, warm.Tables[i].Snapshot,
				nocache.Tables[i].A, nocache.Tables[i].B, warm.Tables[i].A, warm.Tables[i].B)
		}
	}
	dataB := filepath.Join(t.TempDir(), "data")
	copyTree(t, data, dataB)
	other, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, DataPathB: dataB, DigestCache: memStore{}, everyDigest: true, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	if other.Digests.Computed != 2*cold.Digests.Computed {
		t.Errorf("B on its own files: %+v; want twice the %d plans of one side", other.Digests, cold.Digests.Computed)
	}
}

// TestProofKeyWithKnownSums: a proof's key is the same whether the caller
// gives the catalogs' sums (it hashed its private copies as it wrote them)
// or the key hashes the files; a wrong sum names other bytes, so a kept
// proof is never found for them.
func TestProofKeyWithKnownSums(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := overridePath(filepath.Join(lake, "data"))
	sum, err := fileSHA256(catalog)
	if err != nil {
		t.Fatal(err)
	}
	read := inputsKey(catalog, catalog, data, data, "", "", nil)
	if read == "" {
		t.Fatal("no key")
	}
	if given := inputsKey(catalog, catalog, data, data, sum, sum, nil); given != read {
		t.Errorf("key with known sums %s, read %s", given, read)
	}
	if other := inputsKey(catalog, catalog, data, data, sum, strings.Repeat("0", 64), nil); other == read {
		t.Error("a different sum gave the same key")
	}
}

func TestPlanKeyNamesDuckDB(t *testing.T) {
	b := duckdbBuild()
	if !strings.HasPrefix(b, "duckdb v1.") {
		t.Fatalf("duckdbBuild() = %q, want the linked DuckDB's version", b)
	}
	h := sha256.New()
	fmt.Fprintf(h, "fdl-formats file digest v3\x00%s\x00%s", "id", "q")
	if planKey("q", "id") == hex.EncodeToString(h.Sum(nil)) {
		t.Error("planKey does not depend on the DuckDB build")
	}
}
