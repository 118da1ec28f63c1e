package repo

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/store"
)

// TestStrongValidator: only a validator that names the bytes names a copy
// in a proof's key; the ETags web servers make of a file's time and size,
// weak ETags and Last-Modified alone do not.
func TestStrongValidator(t *testing.T) {
	mod := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	const size = 123456
	for _, tc := range []struct {
		name string
		info store.ObjectInfo
		want bool
	}{
		{"s3 single put", store.ObjectInfo{ETag: "9b2cf535f27731c974343645a3985328", ModTime: mod, Size: size}, true},
		{"s3 multipart", store.ObjectInfo{ETag: "d41d8cd98f00b204e9800998ecf8427e-3", ModTime: mod, Size: size}, true},
		{"content hash", store.ObjectInfo{ETag: "sha256-abc", ModTime: mod, Size: size}, true},
		{"nginx", store.ObjectInfo{ETag: fmt.Sprintf("%x-%x", mod.Unix(), size), ModTime: mod, Size: size}, false},
		{"apache", store.ObjectInfo{ETag: fmt.Sprintf("%x-%x", size, mod.UnixMicro()+4321), ModTime: mod, Size: size}, false},
		{"apache with inode", store.ObjectInfo{ETag: fmt.Sprintf("%x-%x-%x", 98765, size, mod.UnixMicro()), ModTime: mod, Size: size}, false},
		{"weak", store.ObjectInfo{ETag: "abc", WeakETag: true, ModTime: mod, Size: size}, false},
		{"last-modified only", store.ObjectInfo{ModTime: mod, Size: size}, false},
		{"nothing", store.ObjectInfo{Size: size}, false},
	} {
		if got := strongValidator(&tc.info); got != tc.want {
			t.Errorf("%s (%q): strong %v, want %v", tc.name, tc.info.ETag, got, tc.want)
		}
	}
}

// TestCopyRecordRoundTrip: a record reads back as written; an earlier
// release's (the validator alone) is none.
func TestCopyRecordRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c := copyRecord{validator: `etag "abc"`, size: 42, sha256: "00ff", strong: true, stamp: "42 1 ctime 1.000000002 dev 3 ino 4"}
	p := dir + "/a" + validatorSuffix
	if _, _, err := writeHashed(strings.NewReader(c.encode()), p, dir, nil); err != nil {
		t.Fatal(err)
	}
	if got, ok := readCopyRecord(p); !ok || got != c {
		t.Errorf("read back %+v, %v; want %+v", got, ok, c)
	}
	if _, _, err := writeHashed(strings.NewReader(`etag "abc"`), p, dir, nil); err != nil {
		t.Fatal(err)
	}
	if got, ok := readCopyRecord(p); ok {
		t.Errorf("an earlier release's validator file read as a record: %+v", got)
	}
}
