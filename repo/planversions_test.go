package repo

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestPlanLooksAtVersionsAtOnce: plan looks at several versions at once
// (one at a time, its look at each version, about seven round trips, cost
// a web repository of 200 versions 20 ms away about a minute), and its
// matrix is the same as a folder's, versions in order.
func TestPlanLooksAtVersionsAtOnce(t *testing.T) {
	ctx := context.Background()
	dir, _ := sharedDemo(ctx, t)
	// files.json is read by plan's look at a version only (versionIssues).
	handler, most := inFlight(http.FileServer(http.Dir(dir)), "/files.json")
	site := webSite(t, handler)
	opts := Options{Formats: []string{"1.0", "1.1"}, Cache: t.TempDir()}
	web, err := Plan(ctx, site, opts)
	if err != nil {
		t.Fatal(err)
	}
	folder, err := local.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	folderPlan, err := Plan(ctx, folder, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(web.Versions) < 2 {
		t.Fatalf("plan has %d versions, want the demo's 3", len(web.Versions))
	}
	for i := 1; i < len(web.Versions); i++ {
		if web.Versions[i-1].ID >= web.Versions[i].ID {
			t.Errorf("plan's versions out of order: %s before %s", web.Versions[i-1].ID, web.Versions[i].ID)
		}
	}
	got, _ := json.MarshalIndent(web.Versions, "", " ")
	want, _ := json.MarshalIndent(folderPlan.Versions, "", " ")
	if string(got) != string(want) {
		t.Errorf("web plan's versions differ from the folder's:\n%s\nwant\n%s", got, want)
	}
	if n := most(); n < 2 {
		t.Errorf("plan had at most %d files.json in flight, want 2 or more", n)
	}
}
