// Package oneline shortens messages (DuckDB errors, SQL) to one line for
// reports and logs.
package oneline

import "strings"

// First returns s up to its first newline.
func First(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Brief returns the first line of s, cut to at most n bytes (and "…").
func Brief(s string, n int) string {
	line := First(s)
	if len(line) > n {
		return line[:n] + "…"
	}
	return line
}
