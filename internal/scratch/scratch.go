// Package scratch makes the temporary files and folders of a run, named
// after the process that owns them, and removes those that runs killed
// before their cleanup left behind.
//
// A name is "<prefix><host>-<pid>-<random>": host is a short hash of the
// host name, PID namespace and boot, so a PID read back from a name means
// the same process only on the same host, in the same namespace, since the
// same boot. Sweep removes an entry whose owner is such a process that no
// longer exists, or that is older than StaleAfter and whose owner is not a
// live process of this host.
package scratch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// StaleAfter is the age past which a temporary entry whose owner cannot be
// told alive (another host, an older boot, a name without owner) is
// removed. No run of this module keeps a temporary file that long.
const StaleAfter = 24 * time.Hour

// Removed is one stale entry Sweep removed.
type Removed struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func (r Removed) String() string { return r.Path + " (" + r.Reason + ")" }

// tag is this process's owner tag: "<host hash>-<pid>-".
func tag() string {
	return hostID() + "-" + strconv.Itoa(os.Getpid()) + "-"
}

// hostID hashes what makes a PID meaningful: host name, PID namespace, boot.
func hostID() string {
	host, _ := os.Hostname()
	ns, _ := os.Readlink("/proc/self/ns/pid")
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	sum := sha256.Sum256([]byte(host + "\x00" + ns + "\x00" + strings.TrimSpace(string(boot))))
	return hex.EncodeToString(sum[:4])
}

// owned finds the owner in a name after its prefix, also when the caller
// sweeps with a shorter prefix than the writer used ("" for "create-").
var owned = regexp.MustCompile(`^(?:[a-z]+-)*?([0-9a-f]{8})-([0-9]+)-`)

// MkdirTemp creates a new folder "<prefix><owner>-<random>" in dir, making
// dir if needed. Another run may remove dir when it finds it empty, between
// the two steps; MkdirTemp then tries again.
func MkdirTemp(dir, prefix string) (string, error) {
	var err error
	for range attempts {
		if err = mkdirAll(dir); errors.Is(err, fs.ErrExist) {
			continue
		} else if err != nil {
			return "", err
		}
		var name string
		if name, err = os.MkdirTemp(dir, prefix+tag()+"*"); err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return "", err
}

// attempts bounds MkdirTemp's and CreateTemp's tries while other writers
// remove dir as they finish (each lost race is one try).
const attempts = 8

// mkdirAll is os.MkdirAll(dir, 0o755). It fails with "file exists" when dir
// is removed between its mkdir and its look at what is there (another
// writer removing the folder it emptied, as store/local's Create does): the
// callers try again then, as they do when dir goes before the entry is made.
func mkdirAll(dir string) error {
	return os.MkdirAll(dir, 0o755)
}

// TempName is a new name "<prefix><owner>-<random>" for an entry that
// another program makes later, if ever (DuckDB makes its spill folder at
// its first spill): nothing is created. The random part is 64 bits, so
// two names of one process differ; Sweep treats the entry as MkdirTemp's.
func TempName(prefix string) string {
	return prefix + tag() + strconv.FormatUint(rand.Uint64(), 10)
}

// CreateTemp creates a new file "<prefix><owner>-<random><suffix>" in dir,
// making dir if needed, as MkdirTemp does.
func CreateTemp(dir, prefix, suffix string) (*os.File, error) {
	var err error
	for range attempts {
		if err = mkdirAll(dir); errors.Is(err, fs.ErrExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		var f *os.File
		if f, err = os.CreateTemp(dir, prefix+tag()+"*"+suffix); err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return nil, err
}

// Sweep removes the stale entries of dir whose names start with one of
// prefixes, and returns what it removed. A missing dir is not an error.
// Entries it cannot remove are reported in the error; the others are
// still removed.
func Sweep(dir string, prefixes []string, now time.Time) ([]Removed, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", dir, err)
	}
	me := hostID()
	var removed []Removed
	var errs []error
	for _, e := range entries {
		reason := stale(e, prefixes, me, now)
		if reason == "" {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("remove stale %s: %w", p, err))
			continue
		}
		removed = append(removed, Removed{Path: p, Reason: reason})
	}
	return removed, errors.Join(errs...)
}

// stale says why an entry is stale, or "" to keep it.
func stale(e fs.DirEntry, prefixes []string, me string, now time.Time) string {
	rest, ok := "", false
	for _, p := range prefixes {
		if rest, ok = strings.CutPrefix(e.Name(), p); ok {
			break
		}
	}
	if !ok {
		return ""
	}
	if m := owned.FindStringSubmatch(rest); m != nil && m[1] == me {
		pid, err := strconv.Atoi(m[2])
		if err == nil && pid != os.Getpid() && !alive(pid) {
			return fmt.Sprintf("its run, process %d on this host, is gone", pid)
		}
		return "" // a live process of this host (or this one) owns it
	}
	info, err := e.Info()
	if err != nil {
		return ""
	}
	if age := now.Sub(info.ModTime()); age > StaleAfter {
		return fmt.Sprintf("untouched for %s, more than %s", age.Round(time.Minute), StaleAfter)
	}
	return ""
}
