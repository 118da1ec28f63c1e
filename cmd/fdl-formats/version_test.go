package main

import (
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/repo"
)

// TestVersion: --version, -v and the version command print the build: the
// module version, the VCS revision, the DuckDB linked in and Go (there was
// no way to ask the binary its version).
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		out, errOut, code := runApp(t, args...)
		if code != exitOK || !strings.HasPrefix(out, "fdl-formats ") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
		for _, want := range []string{"\nrevision: ", "\nduckdb: v", "\ngo: go"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: %q lacks %q", args, out, want)
			}
		}
	}
	if _, _, code := runApp(t, "version", "extra"); code != exitUsage {
		t.Errorf("version extra: exit %d, want %d", code, exitUsage)
	}
}

// TestJobsZero: --jobs 0 is refused like -1 (it was taken silently as the
// default); without --jobs the default stands.
func TestJobsZero(t *testing.T) {
	dir := t.TempDir()
	for _, j := range []string{"0", "-1"} {
		_, errOut, code := runAppStderr(t, "plan", "--jobs", j, dir)
		if code != exitUsage || !strings.Contains(errOut, "--jobs "+j+": want a whole number ≥ 1") {
			t.Errorf("--jobs %s: exit %d, stderr %q; want %d and the refusal", j, code, errOut, exitUsage)
		}
	}
	if _, errOut, code := runAppStderr(t, "plan", dir); code == exitUsage {
		t.Errorf("no --jobs: exit %d, stderr %q", code, errOut)
	}
}

// TestReadersSeqRanges: the readers table names runs of consecutive seqs
// of which the same is said as one range; it listed every seq (60 KB for
// 200 versions).
func TestReadersSeqRanges(t *testing.T) {
	rr := &repo.ReaderRange{Format: "0.4", DuckDB: ">= 1.5.0, < 1.5.2", Tried: []string{"1.5.0", "1.5.1"}}
	for seq := int64(1); seq <= 200; seq++ {
		v := &repo.ReaderVersion{Seq: seq, Cannot: []string{"1.5.0", "1.5.1"}}
		switch {
		case seq <= 3:
			v.Expected = true
		case seq == 7 || seq == 8:
			v.Cannot = []string{"1.5.0"}
		case seq == 10:
			rr.Readable = append(rr.Readable, v)
			continue
		}
		rr.Unreadable = append(rr.Unreadable, v)
	}
	rr.Unreadable = append(rr.Unreadable, &repo.ReaderVersion{Version: "no-seq", Cannot: []string{"1.5.0", "1.5.1"}}, &repo.ReaderVersion{Version: "no-seq-2", Cannot: []string{"1.5.0", "1.5.1"}})
	var b strings.Builder
	printReaders(&b, []*repo.ReaderRange{rr})
	// Neighbouring ranges saying the same share it: "seq 9, 11-200" (a
	// gap, seq 10, between them), which read "seq 9, seq 11-200".
	want := "reads 1 of 202 versions; cannot read seq 1-3 (past until), seq 4-6, seq 7-8 (in DuckDB 1.5.0), seq 9, 11-200, seq 0, seq 0\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("readers:\n%s\nwant the line to end %q", b.String(), want)
	}
	// A withdrawn version (seq 2, not listed) between versions past until:
	// it read "seq 1 (past until), seq 3-5 (past until)".
	gap := &repo.ReaderRange{Format: "0.3", DuckDB: ">= 1.4.0, < 1.5.0", Tried: []string{"1.4.0"}}
	for _, seq := range []int64{1, 3, 4, 5} {
		gap.Unreadable = append(gap.Unreadable, &repo.ReaderVersion{Seq: seq, Cannot: []string{"1.4.0"}, Expected: true})
	}
	b.Reset()
	printReaders(&b, []*repo.ReaderRange{gap})
	if want := "reads 0 of 4 versions; cannot read seq 1, 3-5 (past until)\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("readers:\n%s\nwant the line to end %q", b.String(), want)
	}
}

// TestReadersCounts: the readers table counts in English and says when a
// run checked no version (a shard or --versions holding none); it said
// "reads all 1 versions" and "reads all 0 versions".
func TestReadersCounts(t *testing.T) {
	one := &repo.ReaderVersion{Seq: 1}
	for _, tc := range []struct {
		readable, unreadable []*repo.ReaderVersion
		want                 string
	}{
		{nil, nil, "(format 1.0): no version checked\n"},
		{[]*repo.ReaderVersion{one}, nil, "(format 1.0): reads all 1 version\n"},
		{[]*repo.ReaderVersion{one, {Seq: 2}}, nil, "(format 1.0): reads all 2 versions\n"},
		{nil, []*repo.ReaderVersion{one}, "(format 1.0): reads 0 of 1 version; cannot read seq 1\n"},
	} {
		var b strings.Builder
		printReaders(&b, []*repo.ReaderRange{{Format: "1.0", DuckDB: ">= 1.5.2", Readable: tc.readable, Unreadable: tc.unreadable}})
		if !strings.HasSuffix(b.String(), tc.want) {
			t.Errorf("readers:\n%s\nwant the line to end %q", b.String(), tc.want)
		}
	}
}
