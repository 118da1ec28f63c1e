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

// repoCommands are the commands that open REPO with the same flags
// (repoFlags): a Try: line's command line of one of them run from
// another repeats the run's flags that they share.
var repoCommands = []string{"plan", "backfill", "check"}

// accessFlags select the repository and its access, and what the run
// may use (not secrets: no flag holds one): a Try: command that left
// them out ran elsewhere (another endpoint, the AWS one; another data
// folder or cache, so every data file again; another spill bound).
var accessFlags = []string{"endpoint", "virtual-hosted", "no-sign-request", "data", "cache", "no-cache", "max-spill"}

// signedFlags are access flags a command that writes does not take
// (`backfill` is refused with --no-sign-request: it writes; the publisher
// runs it with credentials), unless it is a dry run.
var signedFlags = []string{"no-sign-request"}

// judgeFlags decide what a run accepts and when: `until` as of --now,
// the losses --allow-lossy allows, the delete files --rewrite-deletes
// writes. A Try: command without them judges otherwise.
var judgeFlags = []string{"now", "allow-lossy", "rewrite-deletes"}

// selectFlags select the cells: repeated unless the Try: command selects
// its own (`check --versions PARENT REPO`).
var selectFlags = []string{"formats", "versions", "shard"}

// otherMeaning are the flags a command shares by name with plan, backfill
// and check but not by meaning: resolve's --data is the DATA_PATH its
// statement names (a URL or folder readers use), not the local folder of
// the data files a run reads. A Try: line of such a command leaves them
// out.
var otherMeaning = map[string][]string{"resolve": {"data"}}

// tryCommand matches a command line in a hint: `fdl-formats VERB ARGS
// REPO`, REPO standing for the run's repository.
var tryCommand = regexp.MustCompile("`fdl-formats ([a-z]+)((?: [^` ]+)*) REPO`")

// tryLine gives a hint's command lines the run's repository where they
// say REPO, and the run's flags that a user copying the line needs for
// the same run: a Try: line without them (the run's --endpoint, --cache,
// --now ...) ran against AWS instead of the run's endpoint, or judged
// `until` as of another day. From plan, backfill and check to one of them
// (which take the same flags): the access and judging flags the run set,
// its selection too unless the command gives its own; every flag the run
// set for a command that is the run's own, run again (`fdl-formats
// backfill REPO` after an interrupted backfill). From another command
// (resolve) to one of them: the access flags the two share in meaning.
// The global --stall-timeout goes before the command, when the run set it
// otherwise than its environment variable does.
func tryLine(hint string, cmd *cli.Command) string {
	repoArg := shellWord(cmd.Args().First())
	fromRepoCommand := slices.Contains(repoCommands, cmd.Name)
	return tryCommand.ReplaceAllStringFunc(hint, func(m string) string {
		sub := tryCommand.FindStringSubmatch(m)
		verb, own := sub[1], strings.Fields(sub[2])
		if !slices.Contains(repoCommands, verb) {
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
		var names []string
		switch {
		case !fromRepoCommand:
			// From resolve: the access flags it shares with them (the
			// run's --endpoint, --virtual-hosted, --max-spill); it
			// judges and selects nothing of theirs. It said `fdl-formats
			// backfill` alone, which went to AWS instead of the run's
			// endpoint.
			names = slices.DeleteFunc(slices.Clone(accessFlags), func(f string) bool { return slices.Contains(otherMeaning[cmd.Name], f) })
		case verb == cmd.Name && len(own) == 0:
			names = nil // every flag set: the same run again
		case len(own) == 0:
			names = slices.Concat(accessFlags, judgeFlags, selectFlags)
		default:
			names = slices.Concat(accessFlags, judgeFlags)
		}
		// The same dry run again keeps the run's flags: it writes nothing.
		dryRun := slices.Contains(own, "--dry-run") || (verb == cmd.Name && len(own) == 0 && cmd.Bool("dry-run"))
		if verb == "backfill" && !dryRun {
			if names == nil {
				names = flagNames(cmd)
			}
			names = slices.DeleteFunc(slices.Clone(names), func(f string) bool { return slices.Contains(signedFlags, f) })
		}
		words = append(words, setFlags(cmd, names)...)
		return "`" + strings.Join(append(words, repoArg), " ") + "`"
	})
}

// flagNames are the names of cmd's flags.
func flagNames(cmd *cli.Command) []string {
	var names []string
	for _, f := range cmd.Flags {
		names = append(names, f.Names()[0])
	}
	return names
}

// setFlags are the flags of cmd set on its command line, in the order
// its help lists them, as shell words (--name=value): those named, or
// all with names nil.
func setFlags(cmd *cli.Command, names []string) []string {
	var words []string
	for _, f := range cmd.Flags {
		name := f.Names()[0]
		if !cmd.IsSet(name) || (names != nil && !slices.Contains(names, name)) {
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
