package repo

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/store"
)

// NotOwnDataFolderError is Check's and Backfill's refusal of an
// Options.DataPath other than the data folder of a repository in a local
// folder (a store.PathStore): its readers open REPO/<data_dir>, so a check
// of another folder would certify files they never read (and pass with
// the repository's own data gone), and a backfill would write delete files
// where they never look. A bucket or web site with a DataPath is checked
// against the store's own files, and Plan takes any folder. The CLI refuses
// --data so (exit 2) before it starts a run, by OwnDataFolder.
type NotOwnDataFolderError struct {
	DataPath string // Options.DataPath
	Own      string // the repository's data folder
}

func (e *NotOwnDataFolderError) Error() string {
	return fmt.Sprintf("data folder %s: the repository is a local folder, whose readers open its own data folder %s (data_dir in fdl.json), not this one", e.DataPath, e.Own)
}

// OwnDataFolder returns a *NotOwnDataFolderError when st is a repository
// in a local folder and dataPath, when not empty, is not its own data
// folder (the same folder by os.SameFile: a link to it is). An fdl.json
// that cannot be read is left to the run, which reports it: nil.
func OwnDataFolder(ctx context.Context, st store.Store, dataPath string) error {
	ps, ok := st.(store.PathStore)
	if !ok || dataPath == "" {
		return nil
	}
	raw, err := readUnsized(ctx, st, FDLKey)
	if err != nil {
		return nil
	}
	cfg, err := fdljson.ParseRepo("fdl.json", raw)
	if err != nil {
		return nil
	}
	return ownDataFolder(ps, cfg, dataPath)
}

// ownDataFolder is OwnDataFolder of a repository whose fdl.json is read.
func ownDataFolder(ps store.PathStore, cfg *fdljson.Repo, dataPath string) error {
	if ps == nil || dataPath == "" {
		return nil
	}
	own, err := ps.Path(strings.TrimSuffix(cfg.DataDir, "/"))
	if err != nil {
		return nil
	}
	a, errOwn := os.Stat(own)
	b, errData := os.Stat(dataPath)
	if errOwn == nil && errData == nil && os.SameFile(a, b) {
		return nil
	}
	return &NotOwnDataFolderError{DataPath: dataPath, Own: own}
}
