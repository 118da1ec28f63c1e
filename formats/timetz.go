package formats

import (
	"fmt"
	"strconv"
	"strings"
)

// TimeTZ is a TIMETZ literal as DuckDB parses an initial_default
// ("HH:MM:SS[.f][±HH[:MM[:SS]]]"): a wall-clock time and an offset. The
// offset is part of the value: DuckDB keeps it ('12:34:56+02' and
// '10:34:56+00' are the same instant, but different values: = is false,
// hour() and the text differ).
type TimeTZ struct {
	Seconds int    // of the wall-clock time, 0-86400 (24:00:00)
	Frac    string // fractional digits of the seconds, without the dot
	Offset  int    // seconds east of UTC
}

// ParseTimeTZ parses a TIMETZ literal; ok is false for anything else.
func ParseTimeTZ(lit string) (t TimeTZ, ok bool) {
	s := strings.TrimSpace(lit)
	clock, off := s, ""
	if i := strings.IndexAny(s, "+-"); i > 0 {
		clock, off = s[:i], s[i:]
	}
	whole, frac, _ := strings.Cut(clock, ".")
	hms := strings.Split(whole, ":")
	if len(hms) != 3 {
		return TimeTZ{}, false
	}
	var n [3]int
	for i, p := range hms {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || p[0] == '+' {
			return TimeTZ{}, false
		}
		n[i] = v
	}
	for _, c := range frac {
		if c < '0' || c > '9' {
			return TimeTZ{}, false
		}
	}
	// DuckDB's TIME runs to 24:00:00 inclusive.
	endOfDay := n[0] == 24 && n[1] == 0 && n[2] == 0 && strings.Trim(frac, "0") == ""
	if (n[0] > 23 && !endOfDay) || n[1] > 59 || n[2] > 59 {
		return TimeTZ{}, false
	}
	t = TimeTZ{Seconds: n[0]*3600 + n[1]*60 + n[2], Frac: frac}
	if off == "" {
		return t, true
	}
	parts := strings.Split(off[1:], ":")
	if len(parts) > 3 {
		return TimeTZ{}, false
	}
	unit := 3600
	for _, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || p == "" || p[0] == '+' {
			return TimeTZ{}, false
		}
		t.Offset += v * unit
		unit /= 60
	}
	if off[0] == '-' {
		t.Offset = -t.Offset
	}
	return t, true
}

// String writes the value in one form: the clock, then the offset as
// ±HH, ±HH:MM or ±HH:MM:SS (the shortest that holds it).
func (t TimeTZ) String() string {
	s := fmt.Sprintf("%02d:%02d:%02d", t.Seconds/3600, t.Seconds/60%60, t.Seconds%60)
	if t.Frac != "" {
		s += "." + t.Frac
	}
	sign, o := "+", t.Offset
	if o < 0 {
		sign, o = "-", -o
	}
	s += fmt.Sprintf("%s%02d", sign, o/3600)
	if o%3600 != 0 {
		s += fmt.Sprintf(":%02d", o/60%60)
		if o%60 != 0 {
			s += fmt.Sprintf(":%02d", o%60)
		}
	}
	return s
}

// DropOffset is the value a reader that ignores the offset returns (the
// wall-clock time at +00; QuirkTimeTZDefaultOffset).
func (t TimeTZ) DropOffset() TimeTZ { return TimeTZ{Seconds: t.Seconds, Frac: t.Frac} }
