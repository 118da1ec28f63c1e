package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/digestcache"
)

// cacheEnv names the environment variable that sets the cache folder when
// --cache is not given (a CI job points it at a folder it keeps between
// runs; the tests at a private one).
const cacheEnv = "FDL_FORMATS_CACHE"

// cacheFlags are the cache folder flags, declared once for every command
// that uses the cache (compare, plan, backfill, check). The folder is
// shared: digests go to <cache>/digests/, other caches to their own
// subfolders.
//
// $FDL_FORMATS_CACHE is read by cacheRoot, not given to the flag as a
// source: the CLI library reports a flag set from its source as set, and
// only a --cache on the command line contradicts --no-cache.
func cacheFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cache", Usage: "cache folder `DIR`, shared by runs and machines on one volume: proof digests go to DIR/digests/, data files of s3:// and https:// repositories to DIR/objects/ (default: $" + cacheEnv + ", else the user cache folder, e.g. ~/.cache/fdl-formats)"},
		&cli.BoolFlag{Name: "no-cache", Usage: "neither read nor write the cache folder: every data file and frozen catalog is read again (wins over $" + cacheEnv + "; refused with --cache)"},
	}
}

// cacheRoot is the cache folder of the flags ("" with --no-cache). A
// --no-cache wins over $FDL_FORMATS_CACHE (a standing setting, such as a
// CI job's, that a one-off run turns off), but not over a --cache on the
// same command line: one of the two would be ignored, so both are refused.
func cacheRoot(cmd *cli.Command) (string, error) {
	switch {
	case cmd.Bool("no-cache") && cmd.IsSet("cache"):
		return "", usageError{err: fmt.Errorf("--cache %q and --no-cache contradict each other: give one (--no-cache alone also turns off $%s)", cmd.String("cache"), cacheEnv)}
	case cmd.Bool("no-cache"):
		return "", nil
	}
	dir := cmd.String("cache")
	if !cmd.IsSet("cache") {
		dir = os.Getenv(cacheEnv)
	}
	if dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder (set --cache DIR, $%s or --no-cache): %w", cacheEnv, err)
	}
	return filepath.Join(base, "fdl-formats"), nil
}

// digestStore opens the digest cache of the flags; nil with --no-cache.
func digestStore(cmd *cli.Command) (compare.DigestStore, error) {
	root, err := cacheRoot(cmd)
	if err != nil || root == "" {
		return nil, err
	}
	c, err := digestcache.Open(root, digestcache.Limits{})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// parseSize reads a size in bytes: a number with an optional unit (B, KB,
// MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of 1024), or
// "unlimited" (-1).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "unlimited") {
		return -1, nil
	}
	units := []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"b", 1}}
	num, mult := strings.ToLower(t), int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(num, 64)
	// float64(math.MaxInt64) is 2^63, past int64's maximum: a size there
	// ("9223372036854775807") converted to int64's minimum, as did NaN,
	// which no comparison refused.
	// A size under a byte ("0.5", "1e-9") read as 0, which "0" is refused
	// for.
	if err != nil || !(n > 0) || n*float64(mult) >= math.MaxInt64 || int64(n*float64(mult)) < 1 {
		return 0, fmt.Errorf("size %q: want a positive number with an optional unit (500MB, 10GiB) or unlimited", s)
	}
	return int64(n * float64(mult)), nil
}
