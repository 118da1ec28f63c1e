package convert

import (
	"fmt"
	"strconv"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// viewCatalogPlaceholderCheck refuses views whose SQL holds DuckLake's
// {DUCKLAKE_CATALOG}. placeholder where the source's and the target's
// readers read it differently (formats.QuirkViewCatalogVerbatim): readers
// of 0.1-0.4 parse it verbatim and fail, readers of 1.0 and 1.1 bind the
// catalog's own objects. No rewrite is offered: the SQL without the
// catalog (schema.table) binds through DuckDB's search path, which another
// attached database or schema of the reader's session can change, and the
// catalog's attached name is the reader's choice.
func viewCatalogPlaceholderCheck(source, target *formats.Version) check {
	return check{code: formats.QuirkViewCatalogVerbatim.Info().Name, table: "ducklake_view",
		custom: viewsWithCatalogPlaceholder,
		reason: quirkReason(formats.QuirkViewCatalogVerbatim, source, target)}
}

// viewsWithCatalogPlaceholder lists the view rows whose SQL holds the
// placeholder outside quotes and comments, naming the schema, the view,
// its id and the snapshots it is visible at.
func viewsWithCatalogPlaceholder(r *run) ([]string, error) {
	if !r.mayFind(&factViewPlaceholder) {
		return nil, nil
	}
	rows, err := r.w.fields(r.ctx, `SELECT coalesce(s.schema_name, '?'), v.view_name, v.view_id, v.begin_snapshot, coalesce(v.end_snapshot::VARCHAR, ''), v.sql
		FROM ducklake_view v
		LEFT JOIN (SELECT schema_id, any_value(schema_name ORDER BY begin_snapshot DESC) AS schema_name FROM ducklake_schema GROUP BY schema_id) s USING (schema_id)
		WHERE contains(v.sql, `+literal(formats.ViewCatalogPlaceholder)+`)
		ORDER BY v.view_id, v.begin_snapshot`)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range rows {
		f := row
		if len(f) != 6 || !formats.ViewSQLHasCatalogPlaceholder(f[5]) {
			continue
		}
		life := "snapshot " + f[3] + " on"
		if end, err := strconv.ParseInt(f[4], 10, 64); err == nil {
			life = fmt.Sprintf("snapshots %s to %d", f[3], end-1)
		}
		out = append(out, fmt.Sprintf("view %s.%s (view_id %s, %s): %s", oneline.Name(f[0]), oneline.Name(f[1]), f[2], life, f[5]))
	}
	return out, nil
}
