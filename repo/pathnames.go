package repo

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/fdl-formats/fdl-formats/store"
)

// pathNames maps the local files and folders a run works on (copies of
// catalogs in its work folder, a bucket's data files in the download cache)
// to what they stand for in the repository, so that a message a user reads
// names the repository's file (versions/<id>/catalogs/1.1.duckdb,
// s3://bucket/lake/data/...) rather than a temporary path that is gone when
// the run ends. It rewrites messages as text: the names are only added
// where a run makes such a path.
type pathNames struct {
	mu     sync.Mutex
	local  []string // longest first once sorted
	sorted bool
	names  map[string]string
}

// add says that local (a file or folder) stands for name.
func (p *pathNames) add(local, name string) {
	if local == "" || name == "" || local == name {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.names == nil {
		p.names = map[string]string{}
	}
	if _, ok := p.names[local]; !ok {
		p.local, p.sorted = append(p.local, local), false
	}
	p.names[local] = name
}

// name rewrites every local path in s to the name it stands for (the
// longest first, so a file inside a mapped folder keeps its own name).
func (p *pathNames) name(s string) string {
	if p == nil {
		return s
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.sorted { // once per run of adds: a run adds a copy per proof
		slices.SortFunc(p.local, func(a, b string) int { return len(b) - len(a) })
		p.sorted = true
	}
	for _, l := range p.local {
		if strings.Contains(s, l) {
			s = strings.ReplaceAll(s, l, p.names[l])
		}
	}
	return s
}

// keyName is how a message names a repository key: its path in a folder,
// its URL in a bucket or on a web site, else the key.
func keyName(st store.Store, key string) string {
	switch s := store.Base(st).(type) {
	case store.PathStore:
		if p, err := s.Path(key); err == nil {
			return p
		}
	case store.URLStore:
		return s.BaseURL() + key
	}
	return key
}

// folderName is keyName of a folder key, for mapping a local folder that
// mirrors it (no trailing separator on either side).
func folderName(st store.Store, key string) string {
	return strings.TrimSuffix(keyName(st, strings.TrimSuffix(key, "/")), string(os.PathSeparator))
}

// removable names the file key where a message tells the user to remove
// (or delete) it, the one phrasing of every such message (plan's reasons,
// a proof's detail, check's and resolve's hints): store.KeyName's name
// (its path in a folder, its s3:// URL and endpoint in a bucket), so that
// it can be acted on from anywhere, which a key relative to the
// repository (versions/<id>/catalogs/0.3.duckdb) could not (the user of
// s3:// is in no such folder). A web site removes nothing: its file is
// removed where the site is published from, named by its key there and
// by its URL on the site.
func removable(st store.Store, key string) string {
	name := store.KeyName(st, key)
	if store.IsReadOnly(store.Base(st)) { // under the run's counter
		return key + " where the site is published from (the folder or s3:// bucket it serves; the site's " + name + ")"
	}
	return name
}

// objectName is how a message names the object key of a bucket or web
// site: where it is (store.KeyName: its s3:// URL at the endpoint, its
// URL), as a finding names a data file it cannot read, since a key inside
// the store (versions/<id>/ducklake.duckdb) leaves the user to put it
// together with the repository's URL and endpoint. A folder's key, which
// the run's REPO locates, stays as it is.
func objectName(st store.Store, key string) string {
	if _, local := store.Base(st).(store.PathStore); local {
		return key
	}
	return store.KeyName(st, key)
}

// nameOnce is err, a bucket's or web site's about the object name (what
// it is: "data file"), naming it once: "WHAT: ERR" where err names it
// already (a *store.ObjectError: the store's errors name their object
// where it is, a bucket's s3:// URL at the endpoint, a site's URL), else
// "WHAT NAME: ERR".
func nameOnce(what, name string, err error) error {
	if store.Named(err) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s %s: %w", what, name, err)
}

// storeErr is err, the store's about key, after what was done (doing,
// "" for nothing to say): a folder's as it was ("DOING KEY: ERR", the os
// error naming the path); a bucket's or web site's naming the object
// once, where it is: err as it is where it names it so already (a
// *store.ObjectError, as the stores' own errors are: "open
// s3://BUCKET/PREFIX/KEY at ENDPOINT: file does not exist", "stat URL:
// HEAD answered 500"), else "DOING NAME: ERR".
func storeErr(st store.Store, doing, key string, err error) error {
	name := objectName(st, key)
	if _, local := store.Base(st).(store.PathStore); !local && store.Named(err) {
		return err
	}
	if doing == "" {
		return fmt.Errorf("%s: %w", name, err)
	}
	return fmt.Errorf("%s %s: %w", doing, name, err)
}

// unlistedErr is err, the store's about key, a file probed because
// listing (the server's folder listing) does not show it: the file named
// once, where it is (storeErr).
func unlistedErr(st store.Store, key, listing string, err error) error {
	if name := objectName(st, key); !store.Named(err) {
		return fmt.Errorf("probe %s, which %s does not show: %w", name, listing, err)
	}
	return fmt.Errorf("probe a file %s does not show: %w", listing, err)
}

// backfillAgain is the command a message tells the user to run after
// removing a file removable names, which writes it again: on a web site,
// which refuses backfill, where the site is published from.
func backfillAgain(st store.Store) string {
	if store.IsReadOnly(store.Base(st)) {
		return "`fdl-formats backfill` there"
	}
	return "`fdl-formats backfill REPO`"
}
