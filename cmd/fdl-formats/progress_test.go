package main

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/repo"
)

// TestProgressBarKeepsLogLinesWhole: on a terminal, a log record written
// while the progress bar is on the screen starts on a line of its own and
// the bar is drawn again below it; records went into the middle of the
// bar's line ("... 5/24 cells, 4s  time=... msg=converted ...").
func TestProgressBarKeepsLogLinesWhole(t *testing.T) {
	var out strings.Builder
	bar := &progressBar{w: &out, verb: "backfill", start: time.Now()}
	log := slog.New(slog.NewTextHandler(bar, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	log.Info("before")
	bar.progress(repo.Progress{Done: 1, Total: 2})
	log.Info("converted")
	bar.progress(repo.Progress{Done: 2, Total: 2})
	bar.end()
	log.Info("after")
	bar.progress(repo.Progress{Done: 2, Total: 2}) // nothing drawn once ended
	want := "level=INFO msg=before\n" +
		"\rbackfill [###############...............] 1/2 cells, 0s  " + clearLine + "level=INFO msg=converted\n" +
		"\rbackfill [###############...............] 1/2 cells, 0s  " +
		"\rbackfill [##############################] 2/2 cells, 0s  \n" +
		"level=INFO msg=after\n"
	if got := out.String(); got != want {
		t.Errorf("terminal got\n%q\nwant\n%q", got, want)
	}
}
