package fdljson

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestConformanceLakes parses every JSON file of every conformance lake.
func TestConformanceLakes(t *testing.T) {
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1"} {
		for _, lake := range testlakes.Lakes(t, archive) {
			t.Run(archive+"/"+filepath.Base(lake), func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join(lake, "fdl.json"))
				if err != nil {
					t.Fatal(err)
				}
				repo, err := ParseRepo("fdl.json", data)
				if err != nil {
					t.Fatal(err)
				}
				if len(repo.Formats) == 0 {
					t.Error("no formats")
				}
				entries, err := os.ReadDir(filepath.Join(lake, "versions"))
				if err != nil {
					t.Fatal(err)
				}
				if len(entries) == 0 {
					t.Fatal("no versions")
				}
				for _, e := range entries {
					dir := filepath.Join(lake, "versions", e.Name())
					read := func(name string) []byte {
						data, err := os.ReadFile(filepath.Join(dir, name))
						if err != nil {
							t.Fatal(err)
						}
						return data
					}
					v, err := ParseVersion("versions/"+e.Name()+"/version.json", e.Name(), read("version.json"))
					if err != nil {
						t.Fatal(err)
					}
					if v.Dataset != nil {
						if _, err := ParseDataset(v.Dataset.Path, read(v.Dataset.Path)); err != nil {
							t.Error(err)
						}
					}
					if v.Files != nil {
						if _, err := ParseFiles(v.Files.Path, read(v.Files.Path)); err != nil {
							t.Error(err)
						}
					}
				}
			})
		}
	}
}
