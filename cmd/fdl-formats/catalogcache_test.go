package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/repo"
)

// planJSON runs plan --json and returns its matrix.
func planJSON(t *testing.T, args ...string) *repo.Matrix {
	t.Helper()
	out, errOut, code := runApp(t, append([]string{"--log-level", "error", "plan", "--json", remoteNow}, args...)...)
	var m repo.Matrix
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.Transfer == nil {
		t.Fatalf("plan %v: exit %d, no JSON report with a transfer: %v\nstdout %s\nstderr %s", args, code, err, out, errOut)
	}
	return &m
}

// TestS3FrozenCatalogCache: the frozen catalogs of a bucket are kept in the
// cache by version.json's sha256, so a second plan (and a backfill with
// nothing to do) downloads none of them; a cached copy changed in the cache
// is not used (downloaded again), --no-cache downloads them all, and a
// frozen catalog changed in the bucket is still found (the cache never
// answers for the store).
func TestS3FrozenCatalogCache(t *testing.T) {
	if testing.Short() {
		t.Skip("plans a lake in a bucket")
	}
	srv, bucket := s3Lake(t)
	url := "s3://" + bucket + "/lake"
	cacheDir := t.TempDir()
	cache := "--cache=" + cacheDir
	// One format's missing cells planned: the frozen catalogs every
	// plan reads are the same, and the other formats' cells (each a
	// dry-run conversion) only cost time.
	one := "--formats=1.1"

	first := planJSON(t, one, cache, url)
	// The frozen catalogs' bytes, as the bucket holds them.
	client := srv.Client()
	frozen := map[string]string{} // key in the bucket -> bytes
	var total int64
	for _, vp := range first.Versions {
		if vp.Error != "" || vp.Catalog == "" {
			t.Fatalf("version %s: catalog %q, error %q; want a sound version", vp.ID, vp.Catalog, vp.Error)
		}
		key := "lake/" + vp.Catalog
		frozen[key] = getObject(t, client, bucket, key)
		total += int64(len(frozen[key]))
	}
	n := len(frozen)
	if n == 0 || first.Transfer.CatalogsCached != 0 || first.Transfer.Downloaded < total {
		t.Fatalf("first plan: %d frozen catalogs of %d bytes, transfer %+v; want each downloaded", n, total, first.Transfer)
	}

	// Warm: no frozen catalog downloaded, only the few requests that
	// revalidate each against the bucket.
	second := planJSON(t, one, cache, url)
	if tr := second.Transfer; tr.CatalogsCached != n || tr.Downloaded > first.Transfer.Downloaded-total+int64(n)*64 {
		t.Errorf("second plan: transfer %+v; want the %d frozen catalogs (%d bytes) from the cache, about %d bytes downloaded",
			tr, n, total, first.Transfer.Downloaded-total)
	}
	if second.Counts[repo.Error] != 0 || second.Counts[repo.Missing] != first.Counts[repo.Missing] {
		t.Errorf("second plan counts %v, first %v", second.Counts, first.Counts)
	}
	rep, errOut, code := backfillJSON(t, "--dry-run", one, cache, url)
	if code != exitOK || rep.Transfer == nil || rep.Transfer.CatalogsCached != n || rep.Transfer.Downloaded >= total {
		t.Errorf("backfill --dry-run on a warm cache: exit %d, transfer %+v; want no frozen catalog downloaded\n%s", code, rep.Transfer, errOut)
	}

	// A cached catalog changed in the cache (same size): not used, the
	// catalog downloaded again and the cache repaired.
	var victim, victimKey string
	for key, body := range frozen {
		sum := sha256.Sum256([]byte(body))
		matches, _ := filepath.Glob(filepath.Join(cacheDir, "objects", "*.catalogs", hex.EncodeToString(sum[:])))
		if len(matches) != 1 {
			t.Fatalf("%s: %d cached copies named by its sha256 (%v), want 1", key, len(matches), matches)
		}
		victim, victimKey = matches[0], key
		break
	}
	data, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(victim, data, 0o644); err != nil {
		t.Fatal(err)
	}
	third := planJSON(t, one, cache, url)
	size := int64(len(frozen[victimKey]))
	if tr := third.Transfer; tr.CatalogsCached != n-1 || tr.Downloaded < size || third.Counts[repo.Error] != 0 {
		t.Errorf("plan after %s changed in the cache: transfer %+v, counts %v; want it downloaded again (%d bytes), the others cached, no error",
			victimKey, tr, third.Counts, size)
	}
	if got, err := os.ReadFile(victim); err != nil || string(got) != frozen[victimKey] {
		t.Errorf("%s: not repaired in the cache after the download (%v)", victim, err)
	}

	// --no-cache: every frozen catalog downloaded.
	if tr := planJSON(t, one, "--no-cache", url).Transfer; tr.CatalogsCached != 0 || tr.Downloaded < total {
		t.Errorf("plan --no-cache: transfer %+v; want the %d frozen catalogs (%d bytes) downloaded", tr, n, total)
	}

	// A frozen catalog changed in the bucket (same size, another ETag):
	// found, though the cache holds the bytes version.json hashes.
	bad := []byte(frozen[victimKey])
	bad[len(bad)/2] ^= 0xff
	putObject(t, client, bucket, victimKey, string(bad))
	m := planJSON(t, one, cache, url)
	found := false
	for _, vp := range m.Versions {
		if "lake/"+vp.Catalog == victimKey {
			found = vp.Error != ""
		}
	}
	if !found || m.Transfer.CatalogsCached != n-1 {
		t.Errorf("plan after %s changed in the bucket: no error for its version (transfer %+v); the cache hid the change", victimKey, m.Transfer)
	}
	if _, _, code := runApp(t, "--log-level", "error", "check", remoteNow, one, cache, url); code != exitDifferent {
		t.Errorf("check after %s changed in the bucket: exit %d, want %d", victimKey, code, exitDifferent)
	}
}
