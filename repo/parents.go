package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// parentIssues reports each of a version's parents that is not in the
// repository: readers follow the first parent for history (FDL Versions
// page), so a version naming one that is gone leads them nowhere. A version
// whose folder is there counts, whatever its state (expired, withdrawn or
// invalid: those are reported on their own). A parent the listing does not
// show is probed where readers would open it; if its version.json or
// expired.json is there, the listing hid it, and the version is
// unverifiable rather than wrong.
func (r *repository) parentIssues(ctx context.Context, v *version) []Issue {
	var issues []Issue
	for i, id := range v.meta.Parents {
		// r.versions is sorted by ID (read).
		if _, ok := slices.BinarySearchFunc(r.versions, id, func(x *version, id string) int { return strings.Compare(x.id, id) }); ok {
			continue
		}
		field := fmt.Sprintf("%sversion.json: parents[%d]", v.prefix(), i)
		if key, err := r.probeVersion(ctx, id); err != nil {
			issues = append(issues, Issue{ProblemUnreadable, fmt.Sprintf("%s: version %s is not listed under %s and probing it failed: %v", field, id, VersionsDir, err)})
			continue
		} else if key != "" {
			issues = append(issues, Issue{ProblemUnreadable, fmt.Sprintf("%s: version %s is not listed under %s, yet %s exists: the store's listing hides it", field, id, VersionsDir, key)})
			continue
		}
		issues = append(issues, Issue{ProblemViolation, fmt.Sprintf("%s: version %s is not in the repository (no folder %s%s/): readers following its history find nothing", field, id, VersionsDir, id)})
	}
	return issues
}

// probeVersion returns the key of the version.json or expired.json of
// version id that exists ("" when neither does).
func (r *repository) probeVersion(ctx context.Context, id string) (string, error) {
	for _, name := range []string{"version.json", "expired.json"} {
		key := VersionsDir + id + "/" + name
		if _, err := r.st.Stat(ctx, key); err == nil {
			return key, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("stat %s: %w", key, err)
		}
	}
	return "", nil
}
