package compare

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Digest is an order-independent fingerprint of a multiset of rows: the row
// count and, per row, the MD5 of its canonical text split into two 64-bit
// halves, each summed modulo 2^64. Sums do not cancel duplicates (a row
// twice adds its hash twice), and parts add up: the digest of a table is the
// sum of the digests of its files.
type Digest struct {
	Rows   int64
	Hi, Lo uint64
}

type digestJSON struct {
	Rows int64  `json:"rows"`
	Hash string `json:"hash"` // Hi and Lo as 32 hex digits (JSON numbers lose 64-bit precision)
}

// MarshalJSON writes {"rows": n, "hash": "<32 hex digits>"}.
func (d Digest) MarshalJSON() ([]byte, error) {
	return json.Marshal(digestJSON{Rows: d.Rows, Hash: fmt.Sprintf("%016x%016x", d.Hi, d.Lo)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Digest) UnmarshalJSON(b []byte) error {
	var j digestJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if len(j.Hash) != 32 {
		return fmt.Errorf("digest hash %q: want 32 hex digits", j.Hash)
	}
	hi, err := strconv.ParseUint(j.Hash[:16], 16, 64)
	if err != nil {
		return fmt.Errorf("digest hash %q: %w", j.Hash, err)
	}
	lo, err := strconv.ParseUint(j.Hash[16:], 16, 64)
	if err != nil {
		return fmt.Errorf("digest hash %q: %w", j.Hash, err)
	}
	*d = Digest{Rows: j.Rows, Hi: hi, Lo: lo}
	return nil
}

// Add combines two digests (multiset union).
func (d Digest) Add(o Digest) Digest {
	return Digest{Rows: d.Rows + o.Rows, Hi: d.Hi + o.Hi, Lo: d.Lo + o.Lo}
}

func (d Digest) String() string { return fmt.Sprintf("%d rows %016x%016x", d.Rows, d.Hi, d.Lo) }

// rowText is the canonical text of a row: the whole row as a DuckDB STRUCT
// cast to VARCHAR, so column names, NULLs, NaN, -0.0, infinities and nested
// values all take part.
func rowText(alias string) string { return "CAST(" + alias + " AS VARCHAR)" }

// digestSQL aggregates a row query into (count, sum hi, sum lo) of the
// rows' 128-bit MD5; the sums are HUGEINT, reduced modulo 2^64 in Go. The
// MD5 is computed once per row and split into its two halves.
func digestSQL(q string) string {
	return fmt.Sprintf(`SELECT count(*), COALESCE(sum((h >> 64)::HUGEINT), 0)::VARCHAR, COALESCE(sum((h & 18446744073709551615::UHUGEINT)::HUGEINT), 0)::VARCHAR FROM (SELECT md5_number(%s) AS h FROM (%s) t)`, rowText("t"), q)
}

func mod64(s string) (uint64, error) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return 0, fmt.Errorf("bad sum %q", s)
	}
	return new(big.Int).And(n, new(big.Int).SetUint64(^uint64(0))).Uint64(), nil
}

// digestOf runs a row query and returns its digest.
func digestOf(ctx context.Context, conn *sql.Conn, q string) (Digest, error) {
	var d Digest
	var hi, lo string
	if err := conn.QueryRowContext(ctx, digestSQL(q)).Scan(&d.Rows, &hi, &lo); err != nil {
		return Digest{}, err
	}
	var err error
	if d.Hi, err = mod64(hi); err != nil {
		return Digest{}, err
	}
	if d.Lo, err = mod64(lo); err != nil {
		return Digest{}, err
	}
	return d, nil
}

// PartDigest is the digest of one part (a data file or the inlined rows).
type PartDigest struct {
	Kind   string `json:"kind"`
	FileID int64  `json:"file_id,omitempty"`
	Path   string `json:"path"`
	Digest Digest `json:"digest"`
}

// TableDigest digests a table at a snapshot, part by part.
func (r *Reader) TableDigest(ctx context.Context, t Table, snap int64, opts ScanOptions) (Digest, []PartDigest, error) {
	parts, err := r.Scan(ctx, t, snap, opts)
	if err != nil {
		return Digest{}, nil, err
	}
	var total Digest
	out := make([]PartDigest, 0, len(parts))
	for _, p := range parts {
		// A part's SQL fixes its rows (file, columns, filters, deletes), so
		// snapshots that leave a file alone reuse its digest.
		d, ok := r.digests[p.SQL]
		if !ok {
			if d, err = digestOf(ctx, r.conn, p.SQL); err != nil {
				return Digest{}, nil, fmt.Errorf("read %s of %s at snapshot %d in %s: %w", p.Path, t.FullName(), snap, r.path, err)
			}
			if p.Kind == "file" {
				r.digests[p.SQL] = d
			}
		}
		out = append(out, PartDigest{Kind: p.Kind, FileID: p.FileID, Path: p.Path, Digest: d})
		total = total.Add(d)
	}
	return total, out, nil
}

// RowTexts returns the canonical texts of a table's rows at a snapshot with
// their multiplicities.
func (r *Reader) RowTexts(ctx context.Context, t Table, snap int64, opts ScanOptions) (map[string]int64, error) {
	q, err := r.Query(ctx, t, snap, opts)
	if err != nil {
		return nil, err
	}
	return rowCounts(ctx, r.conn, q)
}

func rowCounts(ctx context.Context, conn *sql.Conn, q string) (map[string]int64, error) {
	rows, err := conn.QueryContext(ctx, fmt.Sprintf("SELECT %s AS txt, count(*) FROM (%s) t GROUP BY txt", rowText("t"), q))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var s string
		var n int64
		if err := rows.Scan(&s, &n); err != nil {
			return nil, err
		}
		out[s] = n
	}
	return out, rows.Err()
}

// RowDiff is the rows one side has more often than the other.
type RowDiff struct {
	OnlyA []string `json:"only_a,omitempty"`
	OnlyB []string `json:"only_b,omitempty"`
}

// diffRows lists up to limit rows (sorted, repeated per extra occurrence)
// present more often on each side.
func diffRows(a, b map[string]int64, limit int) RowDiff {
	var d RowDiff
	extra := func(x, y map[string]int64) []string {
		var keys []string
		for k, n := range x {
			if n > y[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			for i := y[k]; i < x[k] && len(out) < limit; i++ {
				out = append(out, k)
			}
		}
		return out
	}
	d.OnlyA, d.OnlyB = extra(a, b), extra(b, a)
	return d
}

func (d RowDiff) String() string {
	var b strings.Builder
	for _, s := range d.OnlyA {
		b.WriteString("  only in A: " + s + "\n")
	}
	for _, s := range d.OnlyB {
		b.WriteString("  only in B: " + s + "\n")
	}
	return b.String()
}
