package compare

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// rowHashPair returns the two row hashes of a one-row query.
func rowHashPair(t *testing.T, ctx context.Context, conn *sql.Conn, q string) (h1, h2 uint64) {
	t.Helper()
	names, types, err := parquetsql.Describe(ctx, conn, q)
	if err != nil {
		t.Fatal(err)
	}
	hq, err := hashSQL(q, names, types)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, hq).Scan(&h1, &h2); err != nil {
		t.Fatalf("%s: %v", hq, err)
	}
	return h1, h2
}

// unmixMurmur64 inverts DuckDB's 64-bit integer hash (MurmurHash64: two
// rounds of xor-shift by 32 and multiply by an odd constant, then a last
// xor-shift), a bijection.
func unmixMurmur64(h uint64) uint64 {
	const c = 0xd6e8feb86659fd93
	inv := uint64(c) // Newton's iteration for c's inverse modulo 2^64
	for range 5 {
		inv *= 2 - c*inv
	}
	h ^= h >> 32
	h *= inv
	h ^= h >> 32
	h *= inv
	h ^= h >> 32
	return h
}

// TestRowHashesBothChains: the two row hashes are two chains over the same
// per-value hashes (docs/compare.md, "What it detects"), so each must see
// every value. Rows that differ in one string, nested or float value, or
// that swap two columns of one type, differ in both hashes; and the second
// hash separates rows the first cannot: NULL and the one BIGINT whose
// DuckDB hash is NULL's have the same first hash and different second ones,
// so the second is not a function of the first.
func TestRowHashesBothChains(t *testing.T) {
	r := openAny(t)
	ctx := context.Background()
	var nullHash uint64
	if err := r.conn.QueryRowContext(ctx, "SELECT hash(NULL::BIGINT)").Scan(&nullHash); err != nil {
		t.Fatal(err)
	}
	twin := int64(unmixMurmur64(nullHash))
	var same bool
	if err := r.conn.QueryRowContext(ctx, "SELECT hash(?::BIGINT) = hash(NULL::BIGINT)", twin).Scan(&same); err != nil {
		t.Fatal(err)
	}
	if !same {
		t.Fatalf("DuckDB's BIGINT hash is no longer MurmurHash64 (hash(%d) is not NULL's): check the analysis of docs/compare.md again", twin)
	}
	cases := []struct {
		name   string
		a, b   string // SELECT lists of one row each
		sameH1 bool   // the first hash cannot tell them apart
	}{
		{"short string", "1 AS i, 'abc' AS s", "1 AS i, 'abd' AS s", false},
		{"long string", "1 AS i, 'a string longer than twelve bytes 1' AS s", "1 AS i, 'a string longer than twelve bytes 2' AS s", false},
		{"blob", "'\\x01'::BLOB AS b", "'\\x02'::BLOB AS b", false},
		{"string in a list", "['a', 'b'] AS l", "['a', 'c'] AS l", false},
		{"string in a struct in a list", "[{'k': 'x', 'v': 1}] AS l", "[{'k': 'y', 'v': 1}] AS l", false},
		{"map value", "MAP {'a': 'x'} AS m", "MAP {'a': 'y'} AS m", false},
		{"nested list boundary", "[[1, 2], [3]] AS l", "[[1], [2, 3]] AS l", false},
		{"hugeint halves swapped", "((2::HUGEINT << 64) + 1) AS x", "((1::HUGEINT << 64) + 2) AS x", false},
		{"uuid halves swapped", "'80000000-0000-0001-0000-000000000002'::UUID AS x", "'80000000-0000-0002-0000-000000000001'::UUID AS x", false},
		{"float sign", "1 AS i, -0.0::DOUBLE AS f", "1 AS i, 0.0::DOUBLE AS f", false},
		{"interval text", "INTERVAL 1 MONTH AS v", "INTERVAL 30 DAYS AS v", false},
		{"swapped strings", "'a' AS x, 'b' AS y", "'b' AS x, 'a' AS y", false},
		{"swapped integers", "1 AS x, 2 AS y", "2 AS x, 1 AS y", false},
		{"swapped lists", "[1] AS x, [2] AS y", "[2] AS x, [1] AS y", false},
		{"swapped strings among three", "'a' AS x, 7 AS n, 'b' AS y", "'b' AS x, 7 AS n, 'a' AS y", false},
		{"NULL and its hash twin", "NULL::BIGINT AS x", "?::BIGINT AS x", true},
		{"NULL and its hash twin beside a string", "'s' AS s, NULL::BIGINT AS x", "'s' AS s, ?::BIGINT AS x", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a1, a2 := rowHashPair(t, ctx, r.conn, "SELECT "+c.a)
			b1, b2 := rowHashPair(t, ctx, r.conn, "SELECT "+strings.Replace(c.b, "?", strconv.FormatInt(twin, 10), 1))
			if (a1 == b1) != c.sameH1 {
				t.Errorf("first hashes %x and %x: want same=%v", a1, b1, c.sameH1)
			}
			if a2 == b2 {
				t.Errorf("second hashes agree: %x", a2)
			}
		})
	}
}
