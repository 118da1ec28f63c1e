package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

// longHistory prints figure 5: what a version costs when the history is
// long. Each version of a repository holds every snapshot before it, so a
// proof walks all of them, and a backfill proves every version: the cost of
// a cell grows with the history, and a whole backfill with its square (or
// worse). The repository: lakegen -history V -history-rows R (2,000 rows
// per version by default, so that the data is small and what is measured is
// the catalogs' work), every deleteEvery-th version deleting from every
// data file (negative: an append-only history, where every version's proof
// can carry the one before; a version deleting again from a file cannot). Per round and binary: the proof of the newest version
// (compare with its 1.1 conversion, --no-cache), and a backfill (cold cache)
// of the last `last` versions only (--versions), whose cells are the most
// expensive of a whole backfill; with whole, the whole backfill too.
func (b *bench) longHistory(ctx context.Context, versions, rows, deleteEvery, last, rounds int, whole bool) {
	name := fmt.Sprintf("history-%d-%d", versions, rows)
	if deleteEvery != 5 {
		name += fmt.Sprintf("-delete-every-%d", deleteEvery)
	}
	repo := b.repo(ctx, name, func(d string) error {
		_, err := lakegen.History(ctx, d, lakegen.HistoryOptions{Versions: versions, RowsPerVersion: rows, DeleteEvery: deleteEvery})
		return err
	})
	src := newest(repo)
	conv := filepath.Join(b.dir, name+"-newest-1.1.duckdb")
	os.Remove(conv)
	b.run("convert", "--to", "1.1", "--output", conv, src)
	data := filepath.Join(repo, "data")
	var seqs []string
	for v := versions - last + 1; v <= versions; v++ {
		seqs = append(seqs, fmt.Sprint(v))
	}
	bins := b.bins()
	type runs struct{ proof, proofCPU, tail, tailCPU, tailRSS, all, allCPU, allRSS []float64 }
	byBin := perBin[runs](bins)
	for i := 0; i < rounds; i++ {
		for _, bin := range proofOrder(i, bins) {
			r := byBin[bin]
			s, _, c := runBin(bin, "compare", "--no-cache", "--data", data, src, conv)
			r.proof, r.proofCPU = append(r.proof, s), append(r.proofCPU, c)
			clean(repo)
			s, kb, c := runBin(bin, "backfill", "--jobs", fmt.Sprint(b.jobs), "--versions", strings.Join(seqs, ","), "--cache", b.freshCache(), repo)
			r.tail, r.tailCPU, r.tailRSS = append(r.tail, s), append(r.tailCPU, c), append(r.tailRSS, kb/1024)
			line := fmt.Sprintf("   round %d %s: proof %.2f s (CPU %.2f s), backfill of the last %d versions %.1f s (CPU %.1f s, %.0f MB)",
				i+1, filepath.Base(bin), r.proof[i], r.proofCPU[i], last, r.tail[i], r.tailCPU[i], r.tailRSS[i])
			if whole {
				clean(repo)
				s, kb, c := runBin(bin, "backfill", "--jobs", fmt.Sprint(b.jobs), "--cache", b.freshCache(), repo)
				r.all, r.allCPU, r.allRSS = append(r.all, s), append(r.allCPU, c), append(r.allRSS, kb/1024)
				line += fmt.Sprintf(", whole backfill %.1f s (CPU %.1f s, %.0f MB)", r.all[i], r.allCPU[i], r.allRSS[i])
			}
			fmt.Printf("%s; load %s\n", line, loadavg())
		}
	}
	clean(repo)
	for _, bin := range bins {
		r := byBin[bin]
		bname := ""
		if b.against != "" {
			bname = " (" + filepath.Base(bin) + ")"
		}
		cells := float64(2 * last)
		fmt.Printf("5. long history (%s)%s: proof of the newest version %.2f s (CPU %.2f s); backfill of its last %d versions %.1f s (CPU %.1f s, %.2f s of CPU a cell, peak %.0f MB), / proof %.1f\n",
			name, bname, median(r.proof), median(r.proofCPU), last, median(r.tail), median(r.tailCPU), median(r.tailCPU)/cells, median(r.tailRSS), ratio(r.tail, r.proof))
		if whole {
			fmt.Printf("5. whole backfill of the %d versions%s: %.1f s (CPU %.1f s, peak %.0f MB), / proof %.1f\n", versions, bname, median(r.all), median(r.allCPU), median(r.allRSS), ratio(r.all, r.proof))
		}
	}
	if b.against != "" {
		a, o := byBin[b.bin], byBin[b.against]
		fmt.Printf("5. %s / %s, per round: proof %.2f, backfill of the last %d versions %.2f (CPU %.2f)", filepath.Base(b.bin), filepath.Base(b.against), ratio(a.proof, o.proof), last, ratio(a.tail, o.tail), ratio(a.tailCPU, o.tailCPU))
		if whole {
			fmt.Printf(", whole backfill %.2f (CPU %.2f)", ratio(a.all, o.all), ratio(a.allCPU, o.allCPU))
		}
		fmt.Println()
	}
}
