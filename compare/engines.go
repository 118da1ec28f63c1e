package compare

import "github.com/fdl-formats/fdl-formats/internal/duckpool"

// Engines keeps the in-memory DuckDB databases of closed readers for later
// readers to reuse (package duckpool): starting a database and binding its
// system catalog on the first column listing cost a reader about as much
// CPU as reading its whole catalog, and a backfill opens two readers per
// cell. A reader's Close detaches its catalog (and the ducklake oracle's)
// and closes its connection (which drops its temporary tables) before its
// database goes back; one with anything else left is closed instead
// (duckpool.Release). The settings a reader makes are the same for every
// reader. Safe for concurrent use.
type Engines = duckpool.Pool

// NewEngines keeps at most maxIdle idle databases; a run that proves jobs
// comparisons at once needs about 2 x jobs.
func NewEngines(maxIdle int) *Engines { return duckpool.New(maxIdle) }
