package compare

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/duckdb/duckdb-go/v2"
)

// Engines keeps the in-memory DuckDB databases of closed readers for later
// readers to reuse. Starting a DuckDB database and binding its system
// catalog on the first column listing cost a reader about as much CPU as
// reading its whole catalog; a backfill opens two readers per cell (80 for
// 40 cells), each for a few hundred milliseconds, so it reuses them.
//
// A database serves one reader at a time: the reader attaches its catalog,
// and its Close detaches it and closes the reader's connection (which drops
// its temporary tables) before the database goes back to the pool. A
// database whose detach fails is closed instead. Settings a reader makes
// are the same for every reader. Engines is safe for concurrent use; the
// zero value is not ready, use NewEngines.
type Engines struct {
	mu      sync.Mutex
	idle    []*sql.DB
	maxIdle int
	closed  bool
}

// NewEngines keeps at most maxIdle idle databases (at least one); a run
// that proves jobs comparisons at once needs about 2 x jobs.
func NewEngines(maxIdle int) *Engines {
	return &Engines{maxIdle: max(maxIdle, 1)}
}

// newEngine starts a private in-memory DuckDB database whose connections
// are closed, not pooled, when released (see Engines).
func newEngine() (*sql.DB, error) {
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxIdleConns(0)
	return db, nil
}

// get hands out an idle database, or a new one.
func (e *Engines) get() (*sql.DB, error) {
	if e != nil {
		e.mu.Lock()
		if n := len(e.idle); n > 0 && !e.closed {
			db := e.idle[n-1]
			e.idle = e.idle[:n-1]
			e.mu.Unlock()
			return db, nil
		}
		e.mu.Unlock()
	}
	return newEngine()
}

// put takes back a database that no reader uses any more (nothing
// attached but its own, no connection open); it is closed when the pool is
// full or closed, or when there is no pool.
func (e *Engines) put(db *sql.DB) error {
	if e != nil {
		e.mu.Lock()
		if !e.closed && len(e.idle) < e.maxIdle {
			e.idle = append(e.idle, db)
			e.mu.Unlock()
			return nil
		}
		e.mu.Unlock()
	}
	return db.Close()
}

// Close closes the idle databases; a reader closed later closes its own.
func (e *Engines) Close() error {
	e.mu.Lock()
	idle := e.idle
	e.idle, e.closed = nil, true
	e.mu.Unlock()
	var errs []error
	for _, db := range idle {
		errs = append(errs, db.Close())
	}
	return errors.Join(errs...)
}

// release detaches what a reader attached and closes its connection; it
// reports whether the database is clean enough to be reused.
func release(conn *sql.Conn, attached []string) bool {
	// Not the reader's context: a cancelled proof still cleans up.
	ctx := context.Background()
	clean := true
	for _, name := range attached {
		if _, err := conn.ExecContext(ctx, "DETACH DATABASE IF EXISTS "+name); err != nil {
			clean = false
		}
	}
	if err := conn.Close(); err != nil {
		clean = false
	}
	return clean
}
