package formats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// How DuckLake's readers load ducklake_metadata, by release line
// (DuckLakeMetadataManager::LoadDuckLake in src/storage/
// ducklake_metadata_manager.cpp, DuckLakeInitializer::LoadExistingDuckLake
// in src/storage/ducklake_initializer.cpp; the same in v1.3-ossivalis,
// v1.4-andium, v1.5-variegata and main but where DataPathRule says):
//
//   - every row is read, in table scan order (no ORDER BY); a row whose
//     scope is NULL is a global setting, 'schema' and 'table' rows
//     settings of the object scope_id names (read as a number: NULL
//     fails), and any other scope fails every ATTACH ("Unsupported setting
//     scope ... - only schema/table are supported");
//   - every global 'version' row is checked against the one version the
//     release reads (or migrated from an older one): a catalog with two
//     different version rows is opened by no release;
//   - every global 'encrypted' row must be 'true' or 'false' ("Encrypted
//     should be either true or false") and sets the option: the last row
//     in scan order wins;
//   - 'data_path': see DataPathRule.
//
// CheckMetadata holds a catalog to that; order-dependent outcomes (two
// different encrypted or data_path rows) are refused, as the scan order
// is no property of the catalog's rows.

// ErrMetadataRows is returned (wrapped) for a catalog whose ducklake_metadata
// rows DuckLake's readers refuse or read in an order the rows do not fix.
var ErrMetadataRows = errors.New("ducklake_metadata rows DuckLake's readers refuse")

// MetadataRow is one row of ducklake_metadata. Scope and ScopeID are NULL
// in a layout without them (format 0.1).
type MetadataRow struct {
	Key     string
	Value   sql.NullString
	Scope   sql.NullString
	ScopeID sql.NullInt64
}

func (r MetadataRow) String() string {
	v := "NULL"
	if r.Value.Valid {
		v = "'" + r.Value.String + "'"
	}
	s := fmt.Sprintf("('%s', %s", r.Key, v)
	if r.Scope.Valid {
		id := "NULL"
		if r.ScopeID.Valid {
			id = fmt.Sprint(r.ScopeID.Int64)
		}
		s += fmt.Sprintf(", '%s', %s", r.Scope.String, id)
	}
	return s + ")"
}

// ReadMetadata reads every row of ducklake_metadata of attached database db
// in schema schema (scoped: the table has scope and scope_id), in scan
// order, as DuckLake's LoadDuckLake does.
func ReadMetadata(ctx context.Context, q Querier, db, schema string, scoped bool) ([]MetadataRow, error) {
	cols := "key, value, NULL::VARCHAR, NULL::BIGINT"
	if scoped {
		cols = "key, value, scope, scope_id"
	}
	rows, err := q.QueryContext(ctx, fmt.Sprintf("SELECT %s FROM %s.%s.ducklake_metadata", cols, quoteIdent(db), quoteIdent(schema)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []MetadataRow
	for rows.Next() {
		var r MetadataRow
		var key sql.NullString
		if err := rows.Scan(&key, &r.Value, &r.Scope, &r.ScopeID); err != nil {
			return nil, err
		}
		r.Key = key.String
		out = append(out, r)
	}
	return out, rows.Err()
}

// MetadataError is a catalog whose ducklake_metadata rows DuckLake's readers
// refuse. It matches ErrMetadataRows.
type MetadataError struct {
	Catalog string
	Key     string
	Rows    []MetadataRow
	// Why says what the readers do.
	Why string
}

func (e *MetadataError) Error() string {
	rows := make([]string, len(e.Rows))
	for i, r := range e.Rows {
		rows[i] = r.String()
	}
	return fmt.Sprintf("catalog %s: %s: key '%s', rows %s: %s", e.Catalog, ErrMetadataRows, e.Key, strings.Join(rows, ", "), e.Why)
}

// Is matches ErrMetadataRows.
func (e *MetadataError) Is(target error) bool { return target == ErrMetadataRows }

// Metadata is a catalog's ducklake_metadata as DuckLake's readers load it.
type Metadata struct {
	catalog string
	// global are the global rows by key, in scan order.
	global map[string][]MetadataRow
}

// CheckMetadata checks a catalog's ducklake_metadata rows (catalog names
// it for errors) as every DuckLake release loads them, whatever the format:
// scopes, the version rows (one value) and the encrypted rows ('true' or
// 'false', one value). The data_path rows depend on the format and on
// whether the reader is given a DATA_PATH (Metadata.DataPath).
func CheckMetadata(catalog string, rows []MetadataRow) (*Metadata, error) {
	m := &Metadata{catalog: catalog, global: map[string][]MetadataRow{}}
	for _, r := range rows {
		switch {
		case !r.Scope.Valid:
			m.global[r.Key] = append(m.global[r.Key], r)
		case r.Scope.String != "schema" && r.Scope.String != "table":
			return nil, &MetadataError{Catalog: catalog, Key: r.Key, Rows: []MetadataRow{r},
				Why: fmt.Sprintf("scope '%s' is neither 'schema' nor 'table': every DuckLake release fails its ATTACH (\"Unsupported setting scope %s - only schema/table are supported\")", r.Scope.String, r.Scope.String)}
		case !r.ScopeID.Valid:
			return nil, &MetadataError{Catalog: catalog, Key: r.Key, Rows: []MetadataRow{r},
				Why: fmt.Sprintf("a %s setting without a scope_id: every DuckLake release fails its ATTACH (it reads scope_id as a number)", r.Scope.String)}
		}
	}
	if vs := m.global["version"]; len(distinct(vs)) > 1 {
		return nil, &MetadataError{Catalog: catalog, Key: "version", Rows: vs,
			Why: "every DuckLake release checks each version row against the one version it reads (or migrates from), so none opens the catalog"}
	}
	es := m.global["encrypted"]
	for _, r := range es {
		if !r.Value.Valid || (r.Value.String != "true" && r.Value.String != "false") {
			return nil, &MetadataError{Catalog: catalog, Key: "encrypted", Rows: es,
				Why: "every DuckLake release fails its ATTACH on a value other than 'true' or 'false' (\"Encrypted should be either true or false\")"}
		}
	}
	if len(distinct(es)) > 1 {
		return nil, &MetadataError{Catalog: catalog, Key: "encrypted", Rows: es,
			Why: "DuckLake applies every row, the last in table scan order wins, which the rows do not fix: whether the files' encryption keys are read is not defined"}
	}
	return m, nil
}

// distinct lists the rows' different values (NULL as "\x00NULL").
func distinct(rows []MetadataRow) []string {
	var out []string
	for _, r := range rows {
		v := "\x00NULL"
		if r.Value.Valid {
			v = r.Value.String
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// Value is the global key's value as the readers take it: its last row (all
// of a checked key's rows have one value); ok is false without a row.
func (m *Metadata) Value(key string) (v sql.NullString, ok bool) {
	rows := m.global[key]
	if len(rows) == 0 {
		return sql.NullString{}, false
	}
	return rows[len(rows)-1].Value, true
}

// DataPathRule is how a format's readers take the global data_path rows
// when the catalog is attached without a DATA_PATH (with one, OVERRIDE_DATA_PATH
// skips them from 1.4 on, and 1.3 ignores them): the first row in scan order
// sets the path; what the others must be depends on the release line.
type DataPathRule int

const (
	// DataPathFirstRow: the other rows are ignored (v1.3-ossivalis:
	// LoadExistingDuckLake sets the path only while it is empty).
	DataPathFirstRow DataPathRule = iota + 1
	// DataPathRowsMatch: every other row must equal the first with a '/'
	// appended if it has none (DuckLakeInitializer::InitializeDataPath),
	// or the ATTACH fails ("DATA_PATH parameter ... does not match
	// existing data path in the catalog"): v1.4-andium, and v1.5-variegata
	// up to 7ea15644 and 67480b1d (DuckDB 1.5.0, 1.5.1).
	DataPathRowsMatch
	// DataPathRowsMatchTrimmed: as DataPathRowsMatch, the first row's
	// trailing slashes (and backslashes) replaced by one '/'
	// (InitializeDataPath from e8f195fd, "Cleanup separator in DATA_PATH",
	// first in 415a9ebd, DuckDB 1.5.2, and main).
	DataPathRowsMatchTrimmed
)

// normalize is a data_path value as the reader keeps it.
func (d DataPathRule) normalize(p string) string {
	switch d {
	case DataPathRowsMatch:
		if !strings.HasSuffix(p, "/") {
			p += "/"
		}
	case DataPathRowsMatchTrimmed:
		p = strings.TrimRight(p, `/\`) + "/"
	}
	return p
}

// DataPath checks the global data_path rows as format v's readers take them
// when the catalog is attached without a DATA_PATH, and returns the path
// they read. Two rows of different values are refused for every format:
// from 1.4 one of them fails the ATTACH, whichever is first, and 1.3 takes
// the first in scan order, which the rows do not fix. Rows of one value
// are refused where the readers compare the others to the first as they
// keep it (a value without its trailing '/').
func (m *Metadata) DataPath(v *Version) (string, error) {
	rows := m.global["data_path"]
	switch {
	case len(rows) == 0:
		return "", fmt.Errorf("no data_path row in ducklake_metadata: %w", sql.ErrNoRows)
	case !rows[0].Value.Valid:
		return "", fmt.Errorf("ducklake_metadata data_path is NULL")
	case len(rows) == 1:
		return rows[0].Value.String, nil
	case len(distinct(rows)) > 1:
		return "", &MetadataError{Catalog: m.catalog, Key: "data_path", Rows: rows,
			Why: "from DuckDB 1.4 DuckLake fails the ATTACH on a data_path row other than the first, and DuckDB 1.3's takes the first in table scan order, which the rows do not fix"}
	}
	p := rows[0].Value.String
	if v.DataPathRows != DataPathFirstRow && v.DataPathRows.normalize(p) != p {
		return "", &MetadataError{Catalog: m.catalog, Key: "data_path", Rows: rows,
			Why: fmt.Sprintf("format %s's readers keep the first as '%s' and fail the ATTACH on another row that is not that (\"DATA_PATH parameter ... does not match existing data path in the catalog\")", v.Name, v.DataPathRows.normalize(p))}
	}
	return p, nil
}
