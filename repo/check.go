package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/store"
)

// Kind classifies a finding of Check; it decides the exit code.
type Kind string

const (
	// KindDifference: a published catalog is not equivalent to its source,
	// a file does not match version.json, or a catalog breaks the until rule.
	KindDifference Kind = "difference"
	// KindInvalid: a version's files are missing or invalid.
	KindInvalid Kind = "invalid"
	// KindUnverifiable: a catalog could not be read or compared.
	KindUnverifiable Kind = "unverifiable"
	// KindMissing: a declared format that can be written is missing.
	KindMissing Kind = "missing"
	// KindWarning: reported, does not fail the check (repository rules that
	// only the writer can fix).
	KindWarning Kind = "warning"
)

// Finding is one thing Check found.
type Finding struct {
	Kind    Kind   `json:"kind"`
	Version string `json:"version,omitempty"`
	Format  string `json:"format,omitempty"`
	Key     string `json:"key,omitempty"`
	Detail  string `json:"detail"`
}

// Proof is the verification of one published catalog.
type Proof struct {
	Version string  `json:"version"`
	Format  string  `json:"format"`
	Key     string  `json:"key"`
	OK      bool    `json:"ok"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"duration_seconds"`
}

// CheckReport is what Check found.
type CheckReport struct {
	FormatVersion int          `json:"format_version"`
	OK            bool         `json:"ok"`
	Plan          *Matrix      `json:"plan"`
	Proofs        []*Proof     `json:"proofs"`
	Findings      []Finding    `json:"findings"`
	Counts        map[Kind]int `json:"counts"`
	// Readers is the matrix from the reader's side: per declared DuckDB
	// range, the versions it can and cannot read.
	Readers []*ReaderRange `json:"readers"`
}

// CheckError is returned by Check when it found anything but warnings. It
// matches ErrDifferences, ErrInvalidVersion, ErrUnverifiable or
// ErrWorkMissing: the most serious kind found, in that order.
type CheckError struct {
	Counts map[Kind]int
	First  Finding
}

func (e *CheckError) sentinel() error {
	switch {
	case e.Counts[KindDifference] > 0:
		return ErrDifferences
	case e.Counts[KindInvalid] > 0:
		return ErrInvalidVersion
	case e.Counts[KindUnverifiable] > 0:
		return ErrUnverifiable
	default:
		return ErrWorkMissing
	}
}

func (e *CheckError) Error() string {
	var parts []string
	for _, k := range []Kind{KindDifference, KindInvalid, KindUnverifiable, KindMissing} {
		if n := e.Counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return fmt.Sprintf("check: %s (first: %s %s %s: %s)", strings.Join(parts, ", "), e.First.Kind, e.First.Version, e.First.Format, e.First.Detail)
}

// Is matches the sentinel of the most serious kind found.
func (e *CheckError) Is(target error) bool { return target == e.sentinel() }

// Hint tells the user what to do next.
func (e *CheckError) Hint() string {
	switch e.sentinel() {
	case ErrWorkMissing:
		return "run `fdl-formats backfill REPO` to write the missing catalogs"
	case ErrDifferences:
		return "a published file differs from what its version says; see the report (--json) and restore or withdraw it"
	}
	return "see the report (--json) for every finding"
}

// Check verifies a repository: every present catalogs/*.duckdb is proved
// equivalent to its version's frozen catalog (compare, the full proof),
// every frozen catalog, dataset.json and files.json matches version.json
// (and files.json and dataset.json agree with the catalog),
// no catalog was written in a format for a version created at or after the
// format's until, and no declared format that can be written is missing.
// Repository rules only the writer can fix are warnings. It returns the
// report and, unless everything is fine, a *CheckError.
func Check(ctx context.Context, st store.Store, opts Options) (*CheckReport, error) {
	r, err := load(ctx, st, &opts)
	if err != nil {
		return nil, err
	}
	m, err := r.plan(ctx, &opts)
	if err != nil {
		return nil, err
	}
	rep := &CheckReport{FormatVersion: 1, Plan: m, Proofs: []*Proof{}, Findings: []Finding{}, Counts: map[Kind]int{}}
	add := func(f Finding) {
		rep.Findings = append(rep.Findings, f)
		rep.Counts[f.Kind]++
	}
	var present []*Cell
	for _, vp := range m.Versions {
		if vp.Error != "" {
			p := vp.v.problem
			if len(vp.Cells) > 0 {
				p = vp.Cells[0].Problem
			}
			add(Finding{Kind: problemKind(p), Version: vp.ID, Key: vp.Catalog, Detail: vp.Error})
		}
		for _, is := range vp.Issues {
			add(Finding{Kind: problemKind(is.Problem), Version: vp.ID, Detail: is.Detail})
		}
		for _, c := range vp.Cells {
			switch {
			case c.State == Present:
				present = append(present, c)
				if c.Violation != "" {
					add(Finding{Kind: KindDifference, Version: c.Version, Format: c.Format, Key: c.Key, Detail: "rule broken: " + c.Violation})
				}
			case c.State == Missing:
				add(Finding{Kind: KindMissing, Version: c.Version, Format: c.Format, Key: c.Key, Detail: "declared format not written yet"})
			case c.State == Error && vp.Error == "":
				add(Finding{Kind: problemKind(c.Problem), Version: c.Version, Format: c.Format, Detail: strings.Join(c.Reasons, "; ")})
			}
		}
	}
	for _, rule := range m.Rules {
		if rule.Status == "violated" {
			add(Finding{Kind: KindWarning, Version: rule.Version, Format: rule.Format, Detail: rule.Rule + ": " + rule.Detail})
		}
	}
	for _, w := range m.Warnings {
		add(Finding{Kind: KindWarning, Detail: w})
	}
	if err := r.addReaders(ctx, rep, &opts); err != nil {
		return nil, err
	}

	work, err := os.MkdirTemp(opts.WorkDir, "fdl-check-")
	if err != nil {
		return nil, fmt.Errorf("create work folder: %w", err)
	}
	defer os.RemoveAll(work)
	// files.json and dataset.json against the frozen catalog (only for
	// versions whose files matched version.json).
	for _, vp := range m.Versions {
		if vp.Error != "" || vp.Skipped != "" || len(vp.Issues) > 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, is := range r.checkContents(ctx, vp.v, work) {
			add(Finding{Kind: problemKind(is.Problem), Version: vp.ID, Detail: is.Detail})
		}
	}
	proofs := make([]*Proof, len(present))
	var mu sync.Mutex
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.jobs())
	for i, c := range present {
		g.Go(func() error {
			p, kind := r.prove(gctx, c, work)
			if err := ctx.Err(); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			proofs[i] = p
			if !p.OK {
				add(Finding{Kind: kind, Version: c.Version, Format: c.Format, Key: c.Key, Detail: p.Error})
			}
			done++
			if opts.Progress != nil {
				result := "proved"
				if !p.OK {
					result = "failed"
				}
				opts.Progress(Progress{Done: done, Total: len(present), Cell: c, Result: result})
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rep.Proofs = append(rep.Proofs, proofs...)
	var first *Finding
	for i, f := range rep.Findings {
		if f.Kind != KindWarning && (first == nil || kindRank(f.Kind) < kindRank(first.Kind)) {
			first = &rep.Findings[i]
		}
	}
	if first == nil {
		rep.OK = true
		return rep, nil
	}
	return rep, &CheckError{Counts: rep.Counts, First: *first}
}

// prove compares one published catalog with its version's frozen catalog.
func (r *repository) prove(ctx context.Context, c *Cell, work string) (*Proof, Kind) {
	start := time.Now()
	p := &Proof{Version: c.Version, Format: c.Format, Key: c.Key}
	defer func() { p.Seconds = time.Since(start).Seconds() }()
	dir, err := os.MkdirTemp(work, "proof-")
	if err != nil {
		p.Error = err.Error()
		return p, KindUnverifiable
	}
	defer os.RemoveAll(dir)
	src, err := localFile(ctx, r.st, c.source, dir)
	if err != nil {
		p.Error = err.Error()
		return p, KindUnverifiable
	}
	pub, err := localFile(ctx, r.st, c.Key, filepath.Join(dir))
	if err != nil {
		p.Error = err.Error()
		return p, KindUnverifiable
	}
	_, err = compare.Catalogs(ctx, src, pub, compare.Options{DataPath: r.dataPath})
	switch {
	case err == nil:
		p.OK = true
		return p, ""
	case errors.Is(err, compare.ErrNotEquivalent):
		p.Error = err.Error()
		return p, KindDifference
	case errors.Is(err, context.Canceled):
		p.Error = err.Error()
		return p, KindUnverifiable
	}
	p.Error = err.Error()
	// The source matched its sha256 when planned; if it opens and the
	// published file does not, the published file is what is wrong.
	if rs, serr := compare.Open(ctx, src, compare.ReaderOptions{DataPath: r.dataPath}); serr == nil {
		rs.Close()
		rp, perr := compare.Open(ctx, pub, compare.ReaderOptions{DataPath: r.dataPath})
		if perr != nil {
			p.Error = "published catalog unreadable: " + perr.Error()
			return p, KindDifference
		}
		rp.Close()
	}
	return p, KindUnverifiable
}

func problemKind(p Problem) Kind {
	switch p {
	case ProblemMismatch, ProblemNotEquivalent, ProblemViolation:
		return KindDifference
	case ProblemInvalid:
		return KindInvalid
	default:
		return KindUnverifiable
	}
}

func kindRank(k Kind) int {
	switch k {
	case KindDifference:
		return 0
	case KindInvalid:
		return 1
	case KindUnverifiable:
		return 2
	}
	return 3
}
