package formats

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Column is one column of a metadata table, in the order DuckLake inserts by
// position.
type Column struct {
	Name       string
	Type       string // DuckDB type as duckdb_columns() names it: BIGINT, VARCHAR, BOOLEAN, UUID, TIMESTAMP WITH TIME ZONE
	NotNull    bool
	PrimaryKey bool
	// Fill is the SQL expression an upgrade writes into existing rows when the
	// column first appears (what DuckLake's ALTER TABLE ... ADD COLUMN DEFAULT
	// gives). Empty means NULL.
	Fill string
	// NullRead, where set, says what DuckLake's readers do with a NULL in
	// the column, where its writers always write a value (read from the
	// extension's source: a NULL read as a number fails, one read as text is
	// the text 'NULL', one compared in a filter leaves the row out). A
	// catalog holding such a NULL is not a DuckLake catalog (CheckRequired).
	// Empty: NULL is a value the readers read, or one they never look at.
	NullRead string
	// NullWhen, where set, limits NullRead to the rows it holds for: a
	// SQL condition over the row's columns, where the readers' failure
	// depends on another value (a default_value beside its
	// default_value_type, an encryption key in an encrypted catalog).
	// {metadata} stands for the catalog's ducklake_metadata table,
	// {global} for the condition that its row is a global setting, and
	// {table_stats} for the catalog's ducklake_table_stats table,
	// {column} for its ducklake_column table and {self} for the checked
	// table itself (to name the row's columns inside a subquery).
	NullWhen string
	// ReadAsNull, where set, is a condition (as NullWhen, over the row;
	// {file_stats} stands for the catalog's ducklake_file_column_stats)
	// under which a value that is not NULL reads as NullRead says a NULL
	// does: a GEOMETRY column's statistics that name no geometry type,
	// while its files hold values. ReadAsNullIs says what the value is,
	// in words ("names no geometry type ..."), for the error.
	ReadAsNull, ReadAsNullIs string
}

// Table is one static metadata table.
type Table struct {
	Name    string
	Columns []Column
	// Key are the columns whose values name a row in errors (the table's
	// ids); empty where no error names its rows.
	Key []string
}

// Column returns the named column and whether the table has it.
func (t Table) Column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// ColumnNames lists the table's columns in order.
func (t Table) ColumnNames() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// DDL is the CREATE TABLE statement that gives exactly this shape.
func (t Table) DDL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s(", t.Name)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name + " " + c.Type)
		if c.NotNull {
			b.WriteString(" NOT NULL")
		}
		if c.PrimaryKey {
			b.WriteString(" PRIMARY KEY")
		}
	}
	b.WriteString(")")
	return b.String()
}

// Version is one DuckLake catalog format.
type Version struct {
	Name  string // "1.0"; for a development layout, its stamp ("0.4-dev1")
	Stamp string // the value of ducklake_metadata key 'version'
	// Dev marks a development layout: a stamp that builds wrote on several
	// layouts. Tables then lists the newest layout known under that stamp and
	// Release names the release the layout converges to.
	Dev     bool
	Release string
	// Older names the formats whose layouts a catalog stamped with this
	// development string may also have (detection accepts anything between).
	Older  []string
	Tables []Table
	Caps   Capability
	// Quirks are the behaviours of the format's real reader that the
	// specification does not state (reader.go); the proof reads with them.
	// Where the releases that read the format differ, Quirks holds every
	// one's (a catalog written in the format must read alike in all).
	Quirks ReaderQuirk
	// SourceQuirks are those of the newest release that reads the format:
	// how a catalog in it is read as the source of a conversion or proof
	// (ReadsAsSourceWith). They differ from Quirks only where an older
	// release of the line has a reading bug the newer one fixed; zero
	// means Quirks.
	SourceQuirks ReaderQuirk
	// EarlyQuirks are behaviours of the format's first releases that its
	// newer releases fixed and that the model does not read with (Quirks
	// and SourceQuirks read the format as the newer releases do; the
	// first releases' bugs are documented limits), but that this tool must
	// never bring into a catalog it writes: convert removes what triggers
	// them where that changes no reader's answer, and the proof reports a
	// written catalog of the format that holds it while its source does not
	// (EarlyReadsWith).
	EarlyQuirks ReaderQuirk
	// EarlyFixes names, for each of EarlyQuirks, the first DuckDB release
	// of the format's range that reads without it: the releases of the
	// range before it have it (EarlyFixedIn). check warns by it where a
	// frozen catalog, which this tool does not change, holds what
	// triggers the quirk and fdl.json's range admits such a release.
	EarlyFixes map[ReaderQuirk]string
	// TableStats is how the format's readers read the table statistics
	// (tablestats.go): the types they cast, when, and whether they answer
	// min/max from them. Zero for a development layout, which reads as its
	// release (ReadsTableStats).
	TableStats TableStatsReading
	// DuckDB is the version constraint (hashicorp/go-version syntax) of the
	// DuckDB releases whose ducklake extension opens this format read-only.
	DuckDB string
	// DataPathRows is how the format's readers take a second global
	// data_path row of ducklake_metadata (metadata.go).
	DataPathRows DataPathRule
	// Storage is the default DuckDB storage version written for this format:
	// the one written by the oldest DuckDB line that reads the format.
	Storage string
	// Types are the DuckLake column type names this format can store
	// (lower case; decimal, struct, list and map are parameterised).
	Types []string
	// Transforms are the partition transforms the format's readers accept;
	// a trailing "(" means a parameterised transform such as bucket(N).
	Transforms []string
	// ChangeTokens are the ducklake_snapshot_changes kinds the format's
	// parser accepts: for a release, the previous release's and then its
	// NewChangeKinds (withChangeKinds); for a development layout, its
	// release's.
	ChangeTokens []string
	// NewChangeKinds are the change kinds a release's readers parse and the
	// previous release's do not, each with what that release calls it
	// (changekinds.go): the one declaration of the renames a conversion
	// down applies and the proof reads with.
	NewChangeKinds []ChangeKind
}

// Table returns the named static table and whether the format has it.
func (v *Version) Table(name string) (Table, bool) {
	for _, t := range v.Tables {
		if t.Name == name {
			return t, true
		}
	}
	return Table{}, false
}

// ReleaseName is the name of the release the format is: its own, or for a
// development layout the release it converges to (Release).
func (v *Version) ReleaseName() string {
	if v.Dev {
		return v.Release
	}
	return v.Name
}

// Has reports whether the format supports every capability in c.
func (v *Version) Has(c Capability) bool { return v.Caps&c == c }

// SupportsType reports whether a DuckLake column type (as stored in
// ducklake_column.column_type) is one this format's readers parse. Nested
// types are checked one level at a time, since DuckLake stores one row per
// field. The rule is DuckLake's type parser (DuckLakeTypes::FromString, the
// same code in v1.3-ossivalis, v1.4-andium, v1.5-variegata and main): a
// type name matches case-insensitively in ASCII letters only (StringUtil::
// CIEquals: "timeſtamp" is refused) but is not trimmed (" int64 " is
// refused), and a decimal is only "decimal(W,S)" with that lower-case
// prefix ("DECIMAL(18,3)" is refused; a bare "decimal" gives no width).
func (v *Version) SupportsType(typ string) bool {
	if _, _, ok := DecimalArgs(typ); ok {
		return slices.Contains(v.Types, "decimal")
	}
	for _, t := range v.Types {
		if t != "decimal" && TypeIs(typ, t) {
			return true
		}
	}
	return false
}

// ASCIILower lowers the ASCII letters of s and nothing else, as DuckDB's
// case-insensitive comparisons do (StringUtil::CIEquals and CIHash, through
// an ASCII-only table): Go's strings.ToLower and strings.EqualFold fold
// other letters too (U+017F, the long s, folds to "s"; U+212A, the Kelvin
// sign, to "k"), which DuckDB keeps apart.
func ASCIILower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// ASCIILowerSQL is the DuckDB SQL expression that lowers the ASCII letters
// of the string expression expr and nothing else, as ASCIILower does:
// DuckDB's lower() and lcase() lower every letter ("\u212A", the Kelvin
// sign, to "k"; "\u0130" to "i"), where DuckDB's and DuckLake's own name,
// type and format comparisons (StringUtil::CIEquals, StringUtil::Lower)
// keep them apart.
func ASCIILowerSQL(expr string) string {
	return "translate(" + expr + ", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
}

// TypeIs tells whether the DuckLake type name t is name (given in lower
// case) as DuckLake's readers compare them: StringUtil::CIEquals, equal
// in ASCII letter case only ("ſtruct" is not "struct").
func TypeIs(t, name string) bool { return ASCIILower(t) == name }

// NamesEqual tells whether two identifiers (column, table, schema names)
// are one name to DuckDB and DuckLake's readers: equal in ASCII letter
// case only (StringUtil::CIEquals), so "É" and "é", or "ſ" and "s", are
// two names though strings.EqualFold takes them for one.
func NamesEqual(a, b string) bool {
	return len(a) == len(b) && ASCIILower(a) == ASCIILower(b)
}

// DecimalArgs parses a DuckLake decimal type "decimal(W,S)" as DuckLake's
// type parser does: the prefix "decimal(" in lower case and a closing ")",
// two comma-separated members, each read as an unsigned integer after
// leading white space (std::stoull: digits after it are ignored from the
// first non-digit). ok is false for anything else, and for a width outside
// 1-38 or a scale above the width, which DuckDB's DECIMAL cannot hold.
func DecimalArgs(typ string) (width, scale int, ok bool) {
	inner, found := strings.CutPrefix(typ, "decimal(")
	if !found || !strings.HasSuffix(inner, ")") {
		return 0, 0, false
	}
	members := strings.Split(strings.TrimSuffix(inner, ")"), ",")
	if len(members) != 2 {
		return 0, 0, false
	}
	var n [2]int
	for i, m := range members {
		m = strings.TrimLeft(m, " \t\n\v\f\r")
		m = strings.TrimPrefix(m, "+")
		digits := 0
		for digits < len(m) && m[digits] >= '0' && m[digits] <= '9' {
			digits++
		}
		if digits == 0 || digits > 18 {
			return 0, 0, false
		}
		x, err := strconv.Atoi(m[:digits])
		if err != nil {
			return 0, 0, false
		}
		n[i] = x
	}
	if n[0] < 1 || n[0] > 38 || n[1] > n[0] {
		return 0, 0, false
	}
	return n[0], n[1], true
}

// SupportsTransform reports whether a partition transform is readable by this
// format's readers. Readers compare the exact string; a parameterised
// transform such as bucket(N) needs a positive integer N.
func (v *Version) SupportsTransform(transform string) bool {
	for _, known := range v.Transforms {
		if prefix, ok := strings.CutSuffix(known, "("); ok {
			arg, found := strings.CutPrefix(transform, prefix+"(")
			if !found || !strings.HasSuffix(arg, ")") {
				continue
			}
			n, err := strconv.Atoi(strings.TrimSuffix(arg, ")"))
			if err == nil && n > 0 {
				return true
			}
		} else if transform == known {
			return true
		}
	}
	return false
}

// SupportsChangeToken reports whether the format's change parser accepts a
// ducklake_snapshot_changes token kind (the part before ':').
func (v *Version) SupportsChangeToken(kind string) bool {
	return slices.Contains(v.ChangeTokens, kind)
}

func (v *Version) String() string { return v.Name }
