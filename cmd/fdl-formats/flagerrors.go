package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"
)

// The CLI library words a flag mistake in Go's internals, with one dash:
// `invalid value "abc" for flag -jobs: strconv.ParseInt: parsing "abc":
// invalid syntax`, `flag provided but not defined: -bogus`. Its errors are
// plain text (no type to match), in these two fixed forms, which
// rewordFlagError turns into the words of our other usage errors: the flag
// as typed in help, the value, and what the flag wants (`--jobs "abc": want
// a whole number ≥ 1`). Anything else passes unchanged.
const (
	libInvalidValue = "invalid value "
	libUnknownFlag  = "flag provided but not defined: -"
)

// flagWants is what a flag's value must be, where more can be said than
// its type tells (wantOf); the commands' own checks of a parsed value say
// the same words.
var flagWants = map[string]string{
	"jobs":          "a whole number ≥ 1",
	"max-rows":      "a whole number ≥ 1",
	"stall-timeout": "a duration of 0 (off) or more, e.g. 2m",
}

// wantOf is what flag f's value must be ("" when nothing better than the
// library's words is known).
func wantOf(f cli.Flag) string {
	if w, ok := flagWants[f.Names()[0]]; ok {
		return w
	}
	switch f.(type) {
	case *cli.IntFlag:
		return "a whole number"
	case *cli.DurationFlag:
		return "a duration, e.g. 2m"
	case *cli.BoolFlag:
		return "true or false (or the flag alone for true)"
	}
	return ""
}

// dashed is a flag's name as typed: --name, or -n for one letter.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// lookupFlag finds the flag named name (or an alias) on cmd or, for the
// global flags, on the commands above it.
func lookupFlag(cmd *cli.Command, name string) cli.Flag {
	for _, c := range cmd.Lineage() {
		for _, f := range c.Flags {
			if slices.Contains(f.Names(), name) {
				return f
			}
		}
	}
	return nil
}

// rewordFlagError rewords the library's error for a flag value it cannot
// parse, or a flag no command defines; other errors pass unchanged.
func rewordFlagError(cmd *cli.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, libUnknownFlag); ok && name != "" && !strings.ContainsAny(name, " :") {
		return errors.New("unknown flag " + dashed(name))
	}
	rest, ok := strings.CutPrefix(msg, libInvalidValue)
	if !ok {
		return err
	}
	value, qerr := strconv.QuotedPrefix(rest)
	if qerr != nil {
		return err
	}
	name, _, ok := strings.Cut(strings.TrimPrefix(rest[len(value):], " for flag -"), ": ")
	if !ok || !strings.HasPrefix(rest[len(value):], " for flag -") {
		return err
	}
	f := lookupFlag(cmd, name)
	if f == nil {
		return err
	}
	want := wantOf(f)
	if want == "" {
		return err
	}
	if strings.HasSuffix(msg, strconv.ErrRange.Error()) {
		want += " (this one is out of range)"
	}
	return fmt.Errorf("%s %s: want %s", dashed(f.Names()[0]), value, want)
}
