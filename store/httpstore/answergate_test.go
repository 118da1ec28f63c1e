package httpstore_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// gate is a store.AnswerGate that drops the answers whose ETag is etag.
type gate struct {
	bytes.Buffer
	etag  string
	asked []store.ObjectInfo
}

func (g *gate) Drop(info store.ObjectInfo) bool {
	g.asked = append(g.asked, info)
	return info.ETag == g.etag
}

// TestReadTailAnswerGate: a whole answer to the ranged read (a server that
// ignores Range) is offered, before its first byte is read, to an
// AnswerGate given as the writer: dropped, the read returns no tail, the
// answer's description (size, ETag, Last-Modified, IgnoredRange) and
// nothing kept, and the Counter counts no byte; not dropped, it is read
// and kept as before. A ranged answer is never offered.
func TestReadTailAnswerGate(t *testing.T) {
	body := strings.Repeat("x", 1<<20) + "PAR1"
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var honour atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !honour.Load() {
			r.Header.Del("Range")
		}
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "f.parquet", mod, strings.NewReader(body))
	}))
	t.Cleanup(srv.Close)
	st, err := httpstore.New(srv.URL+"/", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := store.NewCounter(st)

	g := &gate{etag: "v1"}
	tail, info, kept, err := c.ReadTailKeep(ctx, "f.parquet", 4, g)
	if err != nil || tail != nil || kept || g.Len() != 0 || len(g.asked) != 1 {
		t.Fatalf("dropped: ReadTailKeep = %q, kept %t, %d bytes written, asked %d times, %v; want no tail, nothing kept or written, asked once", tail, kept, g.Len(), len(g.asked), err)
	}
	if info.Size != int64(len(body)) || info.ETag != "v1" || !info.ModTime.Equal(mod) || !info.IgnoredRange {
		t.Errorf("dropped: info %+v; want size %d, ETag v1, Last-Modified %s, ignored range", info, len(body), mod)
	}
	if n := c.Downloaded(); n != 0 {
		t.Errorf("dropped: %d bytes counted as downloaded, want 0", n)
	}
	// The same through ReadTailOf (an object a HEAD of the run described).
	g = &gate{etag: "v1"}
	if tail, _, kept, err := c.ReadTailOf(ctx, "f.parquet", 4, info, g); err != nil || tail != nil || kept || g.Len() != 0 {
		t.Errorf("dropped by ReadTailOf: tail %q, kept %t, %d bytes written, %v", tail, kept, g.Len(), err)
	}

	// Another validator: read and kept, as without a gate.
	g = &gate{etag: "v0"}
	tail, _, kept, err = c.ReadTailKeep(ctx, "f.parquet", 4, g)
	if err != nil || string(tail) != "PAR1" || !kept || g.String() != body || len(g.asked) != 1 {
		t.Errorf("not dropped: ReadTailKeep = %q, kept %t, %d bytes written, asked %d times, %v; want PAR1, the whole body kept", tail, kept, g.Len(), len(g.asked), err)
	}

	// A server honouring the range: the gate is never asked.
	honour.Store(true)
	g = &gate{etag: "v1"}
	tail, _, kept, err = c.ReadTailKeep(ctx, "f.parquet", 4, g)
	if err != nil || string(tail) != "PAR1" || kept || len(g.asked) != 0 {
		t.Errorf("ranged: ReadTailKeep = %q, kept %t, asked %d times, %v; want PAR1, the gate not asked", tail, kept, len(g.asked), err)
	}
}
