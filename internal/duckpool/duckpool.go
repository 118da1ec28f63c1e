// Package duckpool keeps private in-memory DuckDB databases for reuse.
// Starting a DuckDB database (and binding its system catalog on a first
// catalog listing) costs about as much CPU as a reader reading a whole
// DuckLake catalog; a backfill opens three per cell (a conversion and the
// two sides of its proof), so it reuses them.
//
// A database serves one user at a time: the user leaves it as it found it
// (nothing attached but its own, no connection open, no table of its own)
// before putting it back, or closes it. Its connections are closed, not
// kept, when released, so that temporary tables and session state go with
// them. A database serves at most MaxUses users, then is closed and a new
// one takes its place: a reused database holds on to a little more memory
// after each user. Package compare and package convert each keep their own
// pool: they share no database, so that neither's settings reach the other.
package duckpool

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/internal/scratch"
)

// Pool keeps idle databases. Safe for concurrent use; a nil *Pool keeps
// none (Get starts a database, Put closes it).
type Pool struct {
	mu      sync.Mutex
	idle    []*sql.DB
	uses    map[*sql.DB]int // users served so far, by database this pool got back
	maxIdle int
	closed  bool
	// bounds are the reaches of the databases this pool handed out or
	// keeps (for an unbounded one, Get's, its spill folder alone), and
	// what their LOADs said.
	bounds map[*sql.DB]bounded
	// outer, when set (Within), is the reach every user whose own reach
	// it covers gets, so that the users of one run share databases.
	outer *Reach
	// spill, when set (SpillIn), is where the databases of Get's users
	// and of GetWithin's users that name no spill folder spill.
	spill string
	// maxSpill, when set (SpillAtMost), bounds the spill of the databases
	// of users that name no bound (Reach.MaxSpill).
	maxSpill int64
}

// bounded is a database's reach and what its extensions' LOADs said.
type bounded struct {
	reach     Reach
	sandboxed bool // else an unbounded database (Get) of reach.Spill
	key       string
	loads     map[string]error
}

// open starts a database like b's (Put, of one retired).
func (b bounded) open() (*sql.DB, map[string]error, error) {
	if b.sandboxed {
		return OpenWithin(b.reach)
	}
	db, err := open(b.reach.Spill, b.reach.MaxSpill)
	return db, nil, err
}

// MaxUses is how many users a database serves before Put closes it and
// keeps a new one in its place. DuckDB keeps some memory of each user
// outside its buffer manager until the database closes (glibc heap memory
// that neither DETACH nor closing the connection frees; e.g. about 1.6 KB
// per table written into an attached DuckDB file): about 0.1 MB per
// conversion and 0.02 MB per reader of the issue 9 history repositories,
// so a database reused for a whole backfill grew with its cells, and the
// backfill's memory with the number of versions (docs/compare.md,
// "Memory"). Starting a database again after 16 users gives back about
// 1/16 of what reusing it saves.
const MaxUses = 16

// New keeps at most maxIdle idle databases (at least one).
func New(maxIdle int) *Pool {
	return &Pool{maxIdle: max(maxIdle, 1)}
}

// config is every database's startup configuration, the same for each
// user and each reuse: no extension is ever installed or loaded behind a
// user's back (a proof or a conversion never reaches the network; the
// ducklake oracle and httpfs are loaded explicitly), and DuckDB's external
// file cache is off. That cache keeps the bytes of every file a database
// read until it closes: a pooled database would carry them from one
// conversion or proof to the next for the whole run, and a proof's peak
// memory grew with the files it read (docs/compare.md, "Memory"). No
// persistent secret is read (~/.duckdb/stored_secrets may hold a user's
// credentials, and a sandboxed database could not read that folder: the
// ducklake extension's ATTACH lists the secrets and failed).
const config = "?autoinstall_known_extensions=false&autoload_known_extensions=false&enable_external_file_cache=false&allow_persistent_secrets=false"

// Open starts a private in-memory DuckDB database whose connections are
// closed, not kept, when released. It can open any file the process can:
// a database that reads repository input is opened with OpenWithin. It
// spills in a folder of its own in os.TempDir(), bounded by MaxSpill, as
// a sandboxed database does (Reach.Spill).
func Open() (*sql.DB, error) { return open("", 0) }

// open is Open, spilling at most maxSpill bytes (MaxSpill when 0 or
// less) in a folder of its own in root (os.TempDir() when empty).
func open(root string, maxSpill int64) (*sql.DB, error) {
	db, err := start(root)
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec(spillBound(maxSpill)); err != nil {
		return nil, errors.Join(fmt.Errorf("bound duckdb's spill: %w", err), db.Close())
	}
	return db, nil
}

// start starts a database spilling in a folder of its own in root
// (os.TempDir() when empty), not yet bounded (spillBound: open,
// OpenWithin). The folder is only named (its owner, a random part):
// DuckDB makes it at its first spill, in a folder that must exist, and
// removes at close the folder it made (only the files of one it found).
// Making and removing it here cost 1-2 ms per database on a busy disk.
// DuckDB's default, ".tmp" in the working folder, wrote into a
// repository's folder when the tool ran in it, allowed 90% of the disk's
// free space, and was shared by every database of the process: two
// spilling at once wrote the same files (named after their block size
// only) and read back each other's blocks or crashed.
func start(root string) (*sql.DB, error) {
	if root == "" {
		root = os.TempDir()
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("spill folder for duckdb: %w", err)
	}
	spill := url.Values{"temp_directory": {filepath.Join(root, scratch.TempName(SpillPrefix))}}
	connector, err := duckdb.NewConnector(config+"&"+spill.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxIdleConns(0)
	return db, nil
}

// spillBound is the statement that bounds a database's spill to maxSpill
// bytes (MaxSpill when 0 or less). DuckDB 1.5.6 shows a
// max_temp_directory_size given when the database starts (a DSN option)
// but does not hold to it: a statement spilled past it. Only a SET bounds
// the spill.
func spillBound(maxSpill int64) string {
	if maxSpill <= 0 {
		maxSpill = MaxSpill
	}
	return fmt.Sprintf("SET max_temp_directory_size = '%d bytes'", maxSpill)
}

// Idle databases run no worker thread: DuckDB's worker threads keep the
// memory they allocated (their allocator caches) while they live, about
// 6 MB for each idle database after a reader of the issue 9 history
// repository, and stopping them gives it back. Get hands out an idle
// database as it idled, on one thread, and a new one with DuckDB's
// defaults: its user sets the threads it needs (readers and conversions
// run their metadata statements on one thread, and give their data scans
// DuckDB's default with AllThreads), so Get starts no worker thread that
// its user would stop at once.

// OneThread puts a database on one thread. Readers and conversions run
// their many small statements on one thread: for statements of a few
// milliseconds, waking DuckDB's worker threads, handing over and waiting
// cost more CPU than the work (docs/compare.md, "Proof benchmarks").
const OneThread = "SET threads = 1"

// AllThreads runs fn, which reads data files' rows, with DuckDB's default
// number of threads on conn, then puts conn back on one thread, also when
// fn fails, panics or its context is cancelled.
func AllThreads(ctx context.Context, conn *sql.Conn, fn func() error) (err error) {
	if _, err := conn.ExecContext(ctx, "RESET threads"); err != nil {
		return fmt.Errorf("give DuckDB its threads: %w", err)
	}
	defer func() {
		if _, errSet := conn.ExecContext(context.WithoutCancel(ctx), OneThread); errSet != nil {
			err = errors.Join(err, fmt.Errorf("put DuckDB back on one thread: %w", errSet))
		}
	}()
	return fn()
}

// Get hands out an idle database that can open any file, or a new one
// (Open), spilling in the pool's spill folder (SpillIn).
func (p *Pool) Get() (*sql.DB, error) {
	db, _, err := p.get(nil)
	return db, err
}

// GetWithin hands out an idle database sandboxed to reach, or a new one
// (OpenWithin), with what its extensions' LOADs said. When the pool has
// an outer reach (Within) that covers reach, the database gets the outer
// reach (and reach's extensions): the users of one run then share
// databases, each bounded to the run's folders.
func (p *Pool) GetWithin(reach Reach) (*sql.DB, map[string]error, error) {
	return p.get(&reach)
}

// Within bounds, from now on, every user of GetWithin whose reach the
// folders dirs cover to dirs (with the user's extensions): a run's
// repository, data, cache and work folders. A user reaching further gets
// a database of its own reach.
func (p *Pool) Within(dirs ...string) {
	if p == nil {
		return
	}
	outer := Reach{Dirs: dirs}.normal()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.outer = &outer
}

// SpillIn makes, from now on, the databases of Get's users and of
// GetWithin's users whose reach names no spill folder (Reach.Spill) spill
// in dir, each in a folder of its own: a run's work folder's parent (the
// work folder itself goes before the run's databases close).
func (p *Pool) SpillIn(dir string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.spill = dir
}

// SpillAtMost bounds, from now on, what each database of Get's users and
// of GetWithin's users whose reach names no bound (Reach.MaxSpill) may
// spill to n bytes; 0 or less: MaxSpill. A statement that would spill
// more fails with DuckDB's "Out of Memory Error: failed to offload data
// block" (backfill's, check's and compare's --max-spill).
func (p *Pool) SpillAtMost(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.maxSpill = max(n, 0)
}

// SpillBound is what each database of a user that names no bound may
// spill, in bytes (SpillAtMost; MaxSpill unless set).
func (p *Pool) SpillBound() int64 {
	if p == nil {
		return MaxSpill
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.maxSpill > 0 {
		return p.maxSpill
	}
	return MaxSpill
}

func (p *Pool) get(reach *Reach) (*sql.DB, map[string]error, error) {
	want := Reach{}
	if reach != nil {
		want = *reach
	}
	var outer *Reach
	if p != nil {
		p.mu.Lock()
		if want.Spill == "" {
			want.Spill = p.spill
		}
		if want.MaxSpill <= 0 {
			want.MaxSpill = p.maxSpill
		}
		outer = p.outer
		p.mu.Unlock()
	}
	want = want.normal()
	b := bounded{reach: want, sandboxed: reach != nil}
	if b.sandboxed && outer != nil && outer.covers(want) {
		b.reach = Reach{Dirs: outer.Dirs, Load: want.Load, Spill: want.Spill, MaxSpill: want.MaxSpill}
	}
	if b.sandboxed {
		b.key = b.reach.key()
	} else {
		b.key = "open\x00" + want.Spill + "\x00" + strconv.FormatInt(want.MaxSpill, 10)
	}
	if p != nil {
		p.mu.Lock()
		for i := len(p.idle) - 1; i >= 0; i-- {
			db := p.idle[i]
			if idle := p.bounds[db]; idle.key == b.key {
				p.idle = slices.Delete(p.idle, i, i+1)
				p.mu.Unlock()
				return db, idle.loads, nil
			}
		}
		p.mu.Unlock()
	}
	db, loads, err := b.open()
	if err != nil {
		return nil, nil, err
	}
	b.loads = loads
	if p != nil {
		p.mu.Lock()
		if p.bounds == nil {
			p.bounds = map[*sql.DB]bounded{}
		}
		p.bounds[db] = b
		p.mu.Unlock()
	}
	return db, loads, nil
}

// Put takes back a database nothing uses any more; it is closed when the
// pool is full or closed, or when there is no pool. One that has served
// MaxUses users is closed too, and a new database is kept in its place.
func (p *Pool) Put(db *sql.DB) error {
	// The process's C heap (glibc's, where DuckDB's statements and
	// catalogs live; its buffer memory is jemalloc's) gives its free
	// memory back to the operating system once a user is done: the heap
	// otherwise kept what finished users freed, and a backfill's peak grew
	// with its versions (docs/compare.md, "Memory"). A call costs about
	// 0.1 ms on a backfill's heap.
	defer trimHeap()
	if p == nil {
		return db.Close()
	}
	p.mu.Lock()
	if p.uses == nil {
		p.uses = map[*sql.DB]int{}
	}
	p.uses[db]++
	b, isBounded := p.bounds[db]
	// A full pool makes room for the database of the reach just used by
	// closing an idle one of another reach: a run's users all ask for
	// the run's reach (Within).
	var evicted *sql.DB
	if !p.closed && len(p.idle) >= p.maxIdle {
		for i, idle := range p.idle {
			if p.bounds[idle].key != b.key {
				evicted = idle
				p.idle = slices.Delete(p.idle, i, i+1)
				delete(p.uses, idle)
				delete(p.bounds, idle)
				break
			}
		}
	}
	keep := !p.closed && len(p.idle) < p.maxIdle
	retired := keep && p.uses[db] >= MaxUses
	if !keep || retired {
		delete(p.uses, db)
		delete(p.bounds, db)
	}
	p.mu.Unlock()
	if evicted != nil {
		evicted.Close() //nolint:errcheck // an idle database, nothing of any user's in it
	}
	if !keep {
		return db.Close()
	}
	if retired {
		if err := db.Close(); err != nil {
			return err
		}
		var fresh *sql.DB
		var err error
		if isBounded {
			fresh, b.loads, err = b.open()
		} else {
			fresh, err = Open()
		}
		if err != nil {
			return nil // the next Get starts one, and reports its error
		}
		db = fresh
		if isBounded {
			p.mu.Lock()
			if p.bounds == nil {
				p.bounds = map[*sql.DB]bounded{}
			}
			p.bounds[db] = b
			p.mu.Unlock()
		}
	}
	if _, err := db.Exec(OneThread); err != nil {
		p.forget(db)
		return errors.Join(fmt.Errorf("idle duckdb: %w", err), db.Close())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.idle) >= p.maxIdle {
		delete(p.uses, db)
		delete(p.bounds, db)
		return db.Close()
	}
	p.idle = append(p.idle, db)
	return nil
}

// Release ends a user's connection so that its database can go back: it
// detaches the databases the user attached (attached, by name), checks that
// nothing else of the user's is left (another attached database, a table,
// view or sequence in the default database; temporary tables go with the
// connection), and closes the connection, also when ctx-less cleanup
// fails. It reports whether the database holds nothing but what a new one
// holds: then Put, else Discard.
func Release(conn *sql.Conn, attached ...string) bool {
	ctx := context.Background() // a cancelled user still cleans up
	defer conn.Close()
	q := "USE memory"
	for _, name := range attached {
		q += "; DETACH DATABASE IF EXISTS " + name
	}
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return false
	}
	var left int
	// One count over a UNION ALL: the sum of four scalar subqueries
	// planned a join per subquery, 1.3 ms of CPU a release against 0.75 ms
	// (a backfill of the issue 9 history repository releases about 120).
	err := conn.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM duckdb_databases() WHERE NOT internal AND database_name <> 'memory'
		UNION ALL SELECT 1 FROM duckdb_tables() WHERE database_name = 'memory' AND NOT temporary
		UNION ALL SELECT 1 FROM duckdb_views() WHERE NOT internal AND database_name = 'memory'
		UNION ALL SELECT 1 FROM duckdb_sequences() WHERE database_name = 'memory')`).Scan(&left)
	return err == nil && left == 0
}

// Discard closes a database its user got from Get and does not give back
// (it could not be left clean); the pool forgets it.
func (p *Pool) Discard(db *sql.DB) error {
	if p != nil {
		p.forget(db)
	}
	return db.Close()
}

// forget drops the count of a database closed outside Put's bookkeeping.
func (p *Pool) forget(db *sql.DB) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.uses, db)
	delete(p.bounds, db)
}

// Idle is the number of idle databases.
func (p *Pool) Idle() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// Close closes the idle databases; one put back later is closed then.
func (p *Pool) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	for _, db := range idle {
		delete(p.uses, db)
		delete(p.bounds, db)
	}
	p.mu.Unlock()
	var errs []error
	for _, db := range idle {
		errs = append(errs, db.Close())
	}
	return errors.Join(errs...)
}

// TrimHeap gives the C heap's free memory back to the operating system, as
// Put does, for a user that frees much and goes on with its database (a
// conversion pass between its outputs).
func TrimHeap() { trimHeap() }
