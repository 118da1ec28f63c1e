package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"
)

// flagRole is what a flag of the run does for a Try: line's command line
// of another run, which repeats it according to its role (tryFlags).
type flagRole int

const (
	// roleAccess flags select the repository and its access, and what the
	// run may use (not secrets: no flag holds one): a Try: command that
	// left them out ran elsewhere (another endpoint, the AWS one; another
	// data folder or cache, so every data file again; another spill
	// bound).
	roleAccess flagRole = iota + 1
	// roleJudge flags decide what a run accepts and when: until as of
	// --now, the losses --allow-lossy allows, the delete files
	// --rewrite-deletes writes. A Try: command without them judges
	// otherwise.
	roleJudge
	// roleSelect flags select the cells: repeated unless the Try: command
	// selects its own (`check --versions PARENT REPO`).
	roleSelect
)

// flagRoles is the table of the flags a Try: command line repeats from
// another command's run, by role. Which of them a command takes is its own
// flag definitions' (tryFlags): a command takes a run's flag where it
// defines one of that name the same way (type and usage), so resolve's
// --data, the readers' DATA_PATH (a URL or folder their statement names),
// is not repeated as plan's, backfill's and check's local folder of the
// data files, and a command without --now is given none.
var flagRoles = map[string]flagRole{
	"endpoint": roleAccess, "virtual-hosted": roleAccess, "no-sign-request": roleAccess,
	"data": roleAccess, "cache": roleAccess, "no-cache": roleAccess, "max-spill": roleAccess,
	"now": roleJudge, "allow-lossy": roleJudge, "rewrite-deletes": roleJudge,
	"formats": roleSelect, "versions": roleSelect, "shard": roleSelect,
}

// writeRefuses are the flags a command refuses when it writes, which its
// dry run (--dry-run) takes: `backfill` with --no-sign-request (it writes
// catalogs; the publisher runs it with credentials).
var writeRefuses = map[string][]string{"backfill": {"no-sign-request"}}

// tryCommand matches a command line in a hint: `fdl-formats VERB ARGS
// REPO`, REPO standing for the run's repository.
var tryCommand = regexp.MustCompile("`fdl-formats ([a-z]+)((?: [^` ]+)*) REPO`")

// tryLine gives a hint's command lines the run's repository where they
// say REPO, and the run's flags that a user copying the line needs for
// the same run (tryFlags): a Try: line without them (the run's
// --endpoint, --cache, --now ...) ran against AWS instead of the run's
// endpoint, or judged `until` as of another day. The global
// --stall-timeout goes before the command, when the run set it otherwise
// than its environment variable does.
func tryLine(hint string, cmd *cli.Command) string {
	repoArg := shellWord(cmd.Args().First())
	return tryCommand.ReplaceAllStringFunc(hint, func(m string) string {
		sub := tryCommand.FindStringSubmatch(m)
		verb, own := sub[1], strings.Fields(sub[2])
		target := cmd.Root().Command(verb)
		if target == nil || target.ArgsUsage != "REPO" {
			return "`fdl-formats " + verb + sub[2] + " " + repoArg + "`"
		}
		words := []string{"fdl-formats"}
		if root := cmd.Root(); root.IsSet("stall-timeout") {
			d := root.Duration("stall-timeout")
			if env, err := time.ParseDuration(os.Getenv(stallTimeoutEnv)); err != nil || env != d {
				words = append(words, "--stall-timeout="+d.String())
			}
		}
		words = append(words, verb)
		words = append(words, own...)
		words = append(words, setFlags(cmd, tryFlags(cmd, target, own))...)
		return "`" + strings.Join(append(words, repoArg), " ") + "`"
	})
}

// tryFlags are the flags of the run (cmd) that a Try: line's command
// line (target, with its own words) repeats, its own words' flags
// replacing the run's:
//
//   - the run's own command again (`fdl-formats backfill REPO` after an
//     interrupted backfill), its own words at most mending access
//     (--endpoint with its scheme): every flag the run set;
//   - else the flags of flagRoles that target defines as the run's
//     command does: access and judging, and selection unless its own
//     words give any (`check --versions PARENT REPO`). From resolve to
//     plan, backfill or check: the access flags they share in meaning
//     (--endpoint, --virtual-hosted, --max-spill); it judges and selects
//     nothing of theirs;
//
// less writeRefuses of a target that writes: not a dry run (its own
// --dry-run, or the run's own dry run again).
func tryFlags(cmd, target *cli.Command, own []string) []string {
	var ownNames []string
	sameRun := target.Name == cmd.Name
	for _, w := range own {
		if name, ok := strings.CutPrefix(w, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			ownNames = append(ownNames, name)
			if flagRoles[name] != roleAccess {
				sameRun = false
			}
		} else {
			sameRun = false // an argument of its own flag
		}
	}
	ownSelects := slices.ContainsFunc(ownNames, func(n string) bool { return flagRoles[n] == roleSelect })
	defs := map[string]string{}
	for _, f := range target.Flags {
		defs[f.Names()[0]] = flagDefinition(f)
	}
	var names []string
	for _, f := range cmd.Flags {
		name := f.Names()[0]
		role := flagRoles[name]
		switch {
		case slices.Contains(ownNames, name):
			continue
		case sameRun:
		case role == 0, role == roleSelect && ownSelects:
			continue
		case defs[name] == "" || defs[name] != flagDefinition(f):
			continue // not the target's, or not in the same meaning
		}
		names = append(names, name)
	}
	dryRun := slices.Contains(ownNames, "dry-run") || (sameRun && cmd.Bool("dry-run"))
	if !dryRun {
		names = slices.DeleteFunc(names, func(f string) bool { return slices.Contains(writeRefuses[target.Name], f) })
	}
	return names
}

// flagDefinition is what a flag means to its command: its type and usage
// ("" for a flag without either).
func flagDefinition(f cli.Flag) string {
	d, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%T %s", f, d.GetUsage())
}

// setFlags are the flags of cmd set on its command line, in the order
// its help lists them, as shell words (--name=value): those named.
func setFlags(cmd *cli.Command, names []string) []string {
	var words []string
	for _, f := range cmd.Flags {
		name := f.Names()[0]
		if !cmd.IsSet(name) || !slices.Contains(names, name) {
			continue
		}
		switch v := cmd.Value(name).(type) {
		case bool:
			if v {
				words = append(words, "--"+name)
			} else {
				words = append(words, "--"+name+"=false")
			}
		case []string:
			words = append(words, shellWord("--"+name+"="+strings.Join(v, ",")))
		default:
			words = append(words, shellWord(fmt.Sprintf("--%s=%v", name, v)))
		}
	}
	return words
}
