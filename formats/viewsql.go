package formats

import "strings"

// ViewCatalogPlaceholder is the text DuckLake from DuckDB 1.5.2 on (format
// 1.0 and 1.1 writers; v1.5-variegata bdeb8afc, "Make catalog generic for
// view attach") stores in a view's SQL in place of "<catalog>." where the
// view names its own catalog (DuckLakeSchemaEntry::CreateView), and that
// its readers replace by the name the catalog is attached as before they
// parse the SQL (DuckLakeViewEntry::ParseSelectStatement and ToSQL), case
// sensitively, outside string constants and double-quoted identifiers
// (DuckLakeUtil::ReplaceSkippingQuotes).
const ViewCatalogPlaceholder = "{DUCKLAKE_CATALOG}."

// ViewSQLHasCatalogPlaceholder reports whether sql holds
// ViewCatalogPlaceholder where a reader that substitutes it and one that
// parses the SQL verbatim (QuirkViewCatalogVerbatim) read it differently:
// outside string constants ('…', E'…', $tag$…$tag$), double-quoted
// identifiers and comments. Inside those both readers keep the text (a
// substitution in a comment changes nothing); anywhere else the verbatim
// reader meets '{', which DuckDB's parser refuses there, while the other
// binds the catalog's own objects.
func ViewSQLHasCatalogPlaceholder(sql string) bool {
	if !strings.Contains(sql, ViewCatalogPlaceholder) {
		return false
	}
	identChar := func(i int) bool {
		if i < 0 {
			return false
		}
		c := sql[i]
		return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for i := 0; i < len(sql); {
		switch c := sql[i]; {
		case strings.HasPrefix(sql[i:], ViewCatalogPlaceholder):
			return true
		case c == '\'':
			// E'…' takes backslash escapes; '' is a quote in every string.
			escapes := i > 0 && (sql[i-1] == 'e' || sql[i-1] == 'E') && !identChar(i-2)
			i++
			for i < len(sql) {
				if escapes && sql[i] == '\\' {
					i += 2
					continue
				}
				if sql[i] == '\'' {
					if i+1 < len(sql) && sql[i+1] == '\'' {
						i += 2
						continue
					}
					break
				}
				i++
			}
			i++
		case c == '"':
			i++
			for i < len(sql) {
				if sql[i] == '"' {
					if i+1 < len(sql) && sql[i+1] == '"' {
						i += 2
						continue
					}
					break
				}
				i++
			}
			i++
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			if end := strings.IndexByte(sql[i:], '\n'); end >= 0 {
				i += end + 1
			} else {
				i = len(sql)
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			// Comments nest, as in PostgreSQL's scanner.
			depth := 0
			for i < len(sql) {
				if strings.HasPrefix(sql[i:], "/*") {
					depth++
					i += 2
				} else if strings.HasPrefix(sql[i:], "*/") {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
		case c == '$' && !identChar(i-1):
			tag := dollarTag(sql[i:])
			if tag == "" {
				i++
				continue
			}
			if end := strings.Index(sql[i+len(tag):], tag); end >= 0 {
				i += len(tag) + end + len(tag)
			} else {
				i = len(sql)
			}
		default:
			i++
		}
	}
	return false
}

// dollarTag returns the opening "$tag$" (or "$$") at the start of s, ""
// when s does not open a dollar-quoted string ($1 is a parameter).
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1]
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		case c >= '0' && c <= '9' && j > 1:
		default:
			return ""
		}
	}
	return ""
}
