package formats

import (
	"fmt"
	"strconv"
)

// TimeTZ is a TIMETZ literal as DuckDB parses an initial_default: a
// wall-clock time and an offset. The offset is part of the value: DuckDB
// keeps it ('12:34:56+02' and '10:34:56+00' are the same instant, but
// different values: = is false, hour() and the text differ).
type TimeTZ struct {
	Seconds int    // of the wall-clock time, 0-86400 (24:00:00)
	Frac    string // fractional digits of the seconds, without the dot
	Offset  int    // seconds east of UTC
}

// maxTimeTZOffset is DuckDB's bound on an offset: within ±15:59:59.
const maxTimeTZOffset = 16*3600 - 1

// ParseTimeTZ parses a TIMETZ literal as DuckDB's cast from text does
// (Time::TryConvertTimeTZ, not strict, as a CAST and Value::DefaultCastAs
// run it; the same grammar in DuckDB 1.3 to 1.5): white space, the hour
// (1 to 9 digits), ':', the minutes (1 or 2 digits), ':' and the seconds
// (1 or 2 digits; either may be cut off at the end of the text: '12:00'
// is noon), optional '.' and digits, white space, then optionally the
// offset: '+' or '-', exactly two digits of hours, then two digits of
// minutes with or without ':' and, after a ':', two digits of seconds
// ('12:34:56 +0230' is +02:30). Text after the offset is ignored; any
// other text after the time fails the cast. ok is false for every literal
// DuckDB does not read as a time with an offset: those it refuses, and
// those it reads as a timestamp (a date first), whose offset is +00 in
// every reader.
func ParseTimeTZ(lit string) (t TimeTZ, ok bool) {
	s, i := lit, 0
	isSpace := func(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	// upTo2 reads one or two digits (Date::ParseDoubleDigit).
	upTo2 := func() (int, bool) {
		if i >= len(s) || !isDigit(s[i]) {
			return 0, false
		}
		v := int(s[i] - '0')
		i++
		if i < len(s) && isDigit(s[i]) {
			v = v*10 + int(s[i]-'0')
			i++
		}
		return v, true
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	hour, digits := 0, 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		if digits++; digits > 9 {
			return TimeTZ{}, false
		}
		hour = hour*10 + int(s[i]-'0')
	}
	if digits == 0 || i >= len(s) || s[i] != ':' {
		return TimeTZ{}, false
	}
	i++
	var minute, second int
	if i < len(s) {
		if minute, ok = upTo2(); !ok || minute >= 60 {
			return TimeTZ{}, false
		}
		if i < len(s) {
			if s[i] != ':' {
				return TimeTZ{}, false
			}
			i++
			if i < len(s) {
				if second, ok = upTo2(); !ok || second >= 60 {
					return TimeTZ{}, false
				}
			}
		}
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[j:i]
	}
	// Only microseconds count; the time runs to 24:00:00 inclusive.
	micros, _ := strconv.Atoi((frac + "000000")[:6])
	t = TimeTZ{Seconds: (hour*60+minute)*60 + second, Frac: frac}
	if t.Seconds > 86400 || (t.Seconds == 86400 && micros > 0) {
		return TimeTZ{}, false
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i == len(s) {
		return t, true
	}
	// Timestamp::TryParseUTCOffset.
	if i+3 > len(s) || (s[i] != '+' && s[i] != '-') || !isDigit(s[i+1]) || !isDigit(s[i+2]) {
		return TimeTZ{}, false
	}
	sign := s[i]
	off := int(s[i+1]-'0')*36000 + int(s[i+2]-'0')*3600
	i += 3
	colons := i < len(s) && s[i] == ':'
	if colons {
		i++
	}
	if i+2 <= len(s) && isDigit(s[i]) && isDigit(s[i+1]) {
		off += int(s[i]-'0')*600 + int(s[i+1]-'0')*60
		i += 2
		if colons && i+3 <= len(s) && s[i] == ':' && isDigit(s[i+1]) && isDigit(s[i+2]) {
			off += int(s[i+1]-'0')*10 + int(s[i+2]-'0')
		}
	}
	if off > maxTimeTZOffset {
		return TimeTZ{}, false
	}
	if sign == '-' {
		off = -off
	}
	t.Offset = off
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
