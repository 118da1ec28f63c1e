package httpstore_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestKeepsConnectionsOfARun: the client keeps a connection for each
// request a run has in flight at once (a plan asks 28 at once 20 ms away:
// 4 versions, each its catalog, JSON files and probes), so a second round
// of 24 reads at once opens none: with 8 kept, 16 were closed after each
// round and opened again (a TLS handshake each on a real site).
func TestKeepsConnectionsOfARun(t *testing.T) {
	const n = 24
	root := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rounds := webtest.ServeRounds(t, n, http.FileServer(http.Dir(root)))
	site, err := httpstore.New(rounds.URL+"/", httpstore.Client(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for round := range 2 {
		rounds.Round(t, func(i int) error {
			_, err := site.Stat(ctx, fmt.Sprintf("f%d", i))
			return err
		})
		if got := rounds.Opened(); round == 0 && got != n {
			t.Fatalf("the first round opened %d connections, want %d", got, n)
		}
	}
	if got := rounds.Opened() - n; got != 0 {
		t.Errorf("the second round of %d requests at once opened %d connections, want none (kept from the first)", n, got)
	}
}
