package convert

import (
	"fmt"
	"os"
	"slices"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
)

// footerQuirksCheck refuses a target some of whose readers (the DuckDB
// releases of its range, within Options.Readers' range for it when set) fail on, or skip
// rows of, a data file because of its Parquet footer
// (formats.FooterQuirks): a bug of DuckDB's own Parquet reader in those
// releases, which no catalog row can steer around. Every data file of the
// working copy in the local data folder is read, once for all the quirks
// (parquetfooter.Read; Engines keep the answer for the next conversion);
// without a data folder nothing is read here and the proof reports such a
// file. Encrypted files are DuckLake's own, whose writer leaves none of
// these footers. The source is read as the newest release of its format,
// which has none of these bugs but decimal-byte-array-empty-value (every
// release before DuckDB 1.5.5: a 0.1-0.4 source's own readers misread such
// a file too), so only the target decides.
func (r *run) footerQuirksCheck(step string, target *formats.Version) error {
	var readers goversion.Constraints
	served := r.opts.Readers[target.Name]
	if served != "" {
		c, err := goversion.NewConstraint(served)
		if err != nil {
			return fmt.Errorf("the DuckDB range of format %s's readers %q: %w", target.Name, served, err)
		}
		readers = c
	}
	affected := target.FooterQuirksOf(readers)
	if len(affected) == 0 || r.opts.DataPath == "" {
		return nil
	}
	files, err := r.localDataFiles("f.encryption_key IS NULL")
	if err != nil {
		return err
	}
	var locals []string
	for _, f := range files {
		if f.local != "" { // "": outside the data folder, the proof reports it
			locals = append(locals, f.local)
		}
	}
	// The file each footer is read from: the data file, or a stand-in
	// holding its footer (Options.Footers); a missing one is left out (the
	// proof reports it).
	paths, err := r.footerPaths(locals)
	if err != nil {
		return fmt.Errorf("read the footers of the data files: %w", err)
	}
	hits := map[string][]parquetfooter.Hit{} // by local path
	stats := map[string]os.FileInfo{}        // by path read
	of := map[string]string{}                // local path by path read
	var unread []string
	for local, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue // gone meanwhile: the proof reports it
		}
		stats[p], of[p] = st, local
		if h, ok := r.footers.footerQuirkHits(p, st); ok {
			hits[local] = h
		} else {
			unread = append(unread, p)
		}
	}
	if len(unread) > 0 {
		slices.Sort(unread) // one statement's list, the same on every run
		read, err := parquetfooter.Read(r.ctx, r.w.conn, unread)
		if err != nil {
			return fmt.Errorf("read the footers of the data files: %w", err)
		}
		for p, h := range read {
			hits[of[p]] = h
			r.footers.keepFooterQuirkHits(p, stats[p], h)
		}
	}
	for _, q := range affected {
		var items []string
		for _, f := range files {
			for _, h := range hits[f.local] {
				if h.Quirk == q.Name {
					items = append(items, fmt.Sprintf("table %s %s: data_file_id %s %s, column %s: %s", f.table, f.name, f.id, f.stored, h.Column, h.Detail))
				}
			}
		}
		if len(items) == 0 {
			continue
		}
		within := "its range DuckDB " + target.DuckDB
		if served != "" {
			within += ", served to DuckDB " + served
		}
		fails := "fail to read these data files"
		if q.Error == "" {
			fails = "read these data files wrongly"
		}
		r.add(Finding{Severity: Refuse, Code: q.Name, Step: step, Table: "ducklake_data_file", Detail: summarize(items),
			Reason: fmt.Sprintf("%s, readers of format %s (%s), %s: %s; %s (%s; fixed by %s). No catalog row steers around a Parquet reader's bug: %s",
				q.ReleasesText(), target.Name, within, fails, q.Trigger, q.Behaviour, q.Source, q.Fixed, q.Advice(target))})
	}
	return nil
}
