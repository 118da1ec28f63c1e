// Package footertest rewrites data files so that their Parquet footers
// trigger a formats.FooterQuirk, for tests of convert, compare and
// parquetfooter. It writes real Parquet files with DuckDB.
package footertest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// GeoCRSNull is GeoParquet metadata whose column g has "crs": null.
const GeoCRSNull = `{"version":"1.0.0","primary_column":"g","columns":{"g":{"encoding":"WKB","geometry_types":["Point"],"crs":null}}}`

// Rewrite rewrites the Parquet file at path, with the same rows (sel: the
// select list over them, "" for *), column order and field ids (fieldIDs:
// DuckDB's FIELD_IDS struct literal, e.g. "{id: 1, s: 2}"), so that its footer triggers the footer quirk named
// quirk:
//   - FooterStringStatsInvalidUTF8: every occurrence of from in the footer
//     (a VARCHAR bound) is patched to to, of the same length;
//   - FooterJSONDeltaLength: written with PARQUET_VERSION V2 and no
//     dictionary (JSON columns come out DELTA_LENGTH_BYTE_ARRAY);
//   - FooterGeoCRSNull: written with "geo" metadata GeoCRSNull.
//
// It returns the new file's size and footer size.
func Rewrite(ctx context.Context, db *sql.DB, path, sel, fieldIDs, quirk, from, to string) (size, footer int64, err error) {
	tmp := path + ".rewrite.parquet"
	opts := "FORMAT parquet, FIELD_IDS " + fieldIDs
	switch quirk {
	case formats.FooterJSONDeltaLength:
		opts += ", PARQUET_VERSION V2, DICTIONARY_SIZE_LIMIT 1"
	case formats.FooterGeoCRSNull:
		opts += ", KV_METADATA {geo: '" + strings.ReplaceAll(GeoCRSNull, "'", "''") + "'}"
	}
	if sel == "" {
		sel = "*"
	}
	lit := "'" + strings.ReplaceAll(path, "'", "''") + "'"
	if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (SELECT %s FROM read_parquet(%s)) TO '%s' (%s)", sel, lit, strings.ReplaceAll(tmp, "'", "''"), opts)); err != nil {
		return 0, 0, fmt.Errorf("rewrite %s: %w", path, err)
	}
	b, err := os.ReadFile(tmp)
	if err != nil {
		return 0, 0, err
	}
	footer = int64(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if quirk == formats.FooterStringStatsInvalidUTF8 {
		if len(from) != len(to) {
			return 0, 0, fmt.Errorf("patch %q to %q: lengths differ", from, to)
		}
		start := len(b) - 8 - int(footer)
		n := bytes.Count(b[start:], []byte(from))
		if n == 0 {
			return 0, 0, fmt.Errorf("%s: %q is not in the footer", path, from)
		}
		copy(b[start:], bytes.ReplaceAll(b[start:], []byte(from), []byte(to)))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return 0, 0, err
	}
	os.Remove(tmp)
	return int64(len(b)), footer, nil
}
