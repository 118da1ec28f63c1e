// Package duckfile reads the header of a DuckDB database file: the storage
// version it was saved at, and so the oldest DuckDB release that can open it.
// It reads the first 12 KiB of the file and needs no DuckDB (pure Go).
//
// A DuckDB file starts with a main header (block 0: checksum, the magic
// "DUCK", the storage version number, flags, the writer's version string)
// and two database headers (at 4096 and 8192 bytes; the one with the higher
// iteration is current) that carry the serialization compatibility the file
// was written with. A DuckDB release refuses a file whose storage version
// number or serialization compatibility is newer than its own.
package duckfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	goversion "github.com/hashicorp/go-version"
)

// Storage is one DuckDB storage version, as STORAGE_VERSION names it, with
// the two numbers a file saved at it carries in its headers.
type Storage struct {
	// Name is the STORAGE_VERSION value ("v1.5.0").
	Name string
	// Since is the oldest DuckDB release that saves these numbers, and so
	// opens a file saved at them, when it is not the release Name names:
	// DuckDB 0.10.3 already writes v1.0.0's serialization.
	Since string
	// VersionNumber is the main header's storage version number.
	VersionNumber uint64
	// Serialization is the database header's serialization compatibility.
	Serialization uint64
	// DefaultOf is the DuckDB line that saves new files at this storage
	// by default ("2.0"), where that was measured; empty otherwise.
	DefaultOf string
}

// Storages lists the storage versions this package knows, oldest first.
// Measured by saving a table with DuckDB 1.5.6 at each STORAGE_VERSION
// (TestStoragesMatchDuckDB keeps this list honest).
var Storages = []Storage{
	{Name: "v0.10.0", VersionNumber: 64, Serialization: 1},
	{Name: "v1.0.0", Since: "v0.10.3", VersionNumber: 64, Serialization: 2},
	{Name: "v1.1.0", VersionNumber: 64, Serialization: 3},
	{Name: "v1.2.0", VersionNumber: 65, Serialization: 4},
	{Name: "v1.3.0", VersionNumber: 66, Serialization: 5},
	{Name: "v1.4.0", VersionNumber: 67, Serialization: 6},
	{Name: "v1.5.0", VersionNumber: 68, Serialization: 7},
}

// NewerStorages lists, oldest first, the storage versions of DuckDB
// releases newer than the linked DuckDB (1.5.6) that are known by the
// numbers their files carry: a file saved at one is named and given its
// oldest reader, but the linked DuckDB neither opens nor writes it, so it
// is never a storage outputs are written at (Storages lists those).
// Measured with DuckDB 2.0.0 (the library testdata/realduckdb/duckdb-2.0.0
// links): it saves a new file at its default storage ('latest') with
// these numbers, the same as STORAGE_VERSION 'v2.0.0', and v1.5.0's
// numbers at STORAGE_VERSION 'v1.5.0'; it names no later storage (it
// refuses 'v2.0.1'). TestRealDuckDBsOpenNewerStorage (package repo) has
// DuckDB 2.0.0 open such files, and the releases before it refuse them.
var NewerStorages = []Storage{
	{Name: "v2.0.0", VersionNumber: 999, Serialization: 69, DefaultOf: "2.0"},
}

// patchStorages are the release names, accepted as STORAGE_VERSION, that
// save another storage than the first release of their line (measured with
// DuckDB 1.5.6, which accepts every release name from v0.10.0 to its own:
// TestPatchStorageNames). Every other patch release saves its line's.
var patchStorages = map[string]string{"v0.10.3": "v1.0.0"}

// Header is what the headers of one DuckDB file say.
type Header struct {
	// VersionNumber and Serialization are the raw numbers of the file.
	VersionNumber uint64 `json:"version_number"`
	Serialization uint64 `json:"serialization"`
	// Writer is the version string of the DuckDB that wrote the file ("v1.5.6").
	Writer string `json:"writer,omitempty"`
	// Storage is the oldest known storage version whose numbers are both at
	// least the file's: what the file needs. Empty when the file is newer
	// than every known storage version.
	Storage string `json:"storage,omitempty"`
	// BlockSize is the file's block size in bytes (DuckDB's default is
	// 262144; fdl-formats writes 16384); 0 when the header does not say.
	BlockSize uint64 `json:"block_size,omitempty"`
	// length is what the current database header promises the file holds:
	// the three headers and every block (0 when it does not say).
	length uint64
}

var (
	// ErrNotDuckDB is returned by Read for a file without DuckDB's magic bytes.
	ErrNotDuckDB = errors.New("not a DuckDB database file")
	// ErrTruncated is returned by Read for a file shorter than its headers.
	ErrTruncated = errors.New("DuckDB file shorter than its headers")
)

const (
	headerSize   = 4096 // each header occupies one 4 KiB slot
	magicOffset  = 8
	writerOffset = 52
	writerSize   = 32
	// Offsets inside a database header: checksum, iteration, meta block,
	// free list, block count, block alloc size, vector size, serialization.
	iterationOffset     = 8
	blockCountOffset    = 32
	blockSizeOffset     = 40
	serializationOffset = 56
	// Bounds past which a block size or count is not one DuckDB writes.
	minBlockSize = 4096
	maxBlockSize = 1 << 30
	maxFileSize  = 1 << 50
)

// HeadersSize is how many bytes at the start of a file Read needs: the main
// header and the two database headers.
const HeadersSize = 3 * headerSize

// Read parses the headers at the start of r (it reads HeadersSize bytes, 12 KiB).
func Read(r io.Reader) (Header, error) {
	buf := make([]byte, HeadersSize)
	n, err := io.ReadFull(r, buf)
	if n >= magicOffset+4 && !bytes.Equal(buf[magicOffset:magicOffset+4], []byte("DUCK")) {
		return Header{}, ErrNotDuckDB
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			if n < magicOffset+4 {
				return Header{}, ErrNotDuckDB
			}
			return Header{}, fmt.Errorf("%w (%d bytes)", ErrTruncated, n)
		}
		return Header{}, err
	}
	le := binary.LittleEndian
	h := Header{
		VersionNumber: le.Uint64(buf[magicOffset+4:]),
		Writer:        string(bytes.TrimRight(buf[writerOffset:writerOffset+writerSize], "\x00")),
	}
	db1, db2 := buf[headerSize:2*headerSize], buf[2*headerSize:]
	current := db1
	if le.Uint64(db2[iterationOffset:]) > le.Uint64(db1[iterationOffset:]) {
		current = db2
	}
	h.Serialization = le.Uint64(current[serializationOffset:])
	blocks, blockSize := le.Uint64(current[blockCountOffset:]), le.Uint64(current[blockSizeOffset:])
	if blockSize >= minBlockSize && blockSize <= maxBlockSize && blocks <= maxFileSize/blockSize {
		h.length = uint64(len(buf)) + blocks*blockSize
		h.BlockSize = blockSize
	}
	for _, s := range known() {
		if s.VersionNumber >= h.VersionNumber && s.Serialization >= h.Serialization {
			h.Storage = s.Name
			break
		}
	}
	return h, nil
}

// Length is how long the file must be by its current database header: the
// headers, then the header's block count times its block size; 0 when the
// header does not say. A shorter file was cut (DuckDB notices only when a
// query reads a missing block), or truncated by DuckDB itself (Cut).
func (h Header) Length() int64 { return int64(h.length) }

// Cut reports whether a file of size bytes was cut short: shorter than
// Length, and not where DuckDB itself ends a file. At a checkpoint DuckDB
// truncates the free blocks at the end of the file and does not rewrite the
// header until the next checkpoint (SingleFileBlockManager::Truncate: the
// file then ends at the headers plus a whole number of blocks), so a file
// shorter than its header at such a boundary is what DuckDB leaves, and
// reads: whether a block it needs is missing is for a read of the file to
// say. A cut anywhere else is a torn copy.
func (h Header) Cut(size int64) bool {
	if size >= h.Length() {
		return false
	}
	return size < HeadersSize || h.BlockSize == 0 || (size-HeadersSize)%int64(h.BlockSize) != 0
}

// known is every known storage version, oldest first: Storages, then
// NewerStorages.
func known() []Storage {
	return append(Storages[:len(Storages):len(Storages)], NewerStorages...)
}

// newestKnown is the newest storage version this package knows.
func newestKnown() Storage {
	all := known()
	return all[len(all)-1]
}

// Known reports whether the file's storage version is one this package knows.
func (h Header) Known() bool { return h.Storage != "" }

// Newer reports whether the file is saved at a storage newer than every one
// the linked DuckDB writes (Storages): one of NewerStorages, or one newer
// than every known storage version. The linked DuckDB cannot open it.
func (h Header) Newer() bool {
	return !slices.ContainsFunc(Storages, func(s Storage) bool { return s.Name == h.Storage })
}

// String names the storage version: "v1.5.0", or the raw numbers of a file
// newer than every known storage version.
func (h Header) String() string {
	if h.Known() {
		return h.Storage
	}
	return fmt.Sprintf("newer than %s (storage number %d, serialization %d)", newestKnown().Name, h.VersionNumber, h.Serialization)
}

// MinDuckDB is the oldest DuckDB release that opens the file. For a file
// newer than every known storage version it is the first release after the
// newest known line (a DuckDB of a known line cannot open it; whether a newer
// one can is not known here).
func (h Header) MinDuckDB() *goversion.Version {
	if h.Known() {
		return MinDuckDB(h.Storage)
	}
	newest := MinDuckDB(newestKnown().Name).Segments()
	return goversion.Must(goversion.NewVersion(fmt.Sprintf("%d.%d.0", newest[0], newest[1]+1)))
}

// TooNew describes, for a message about a file the linked DuckDB cannot
// open (Newer), the storage it is saved at and the DuckDB that saves it:
// "saved at storage v2.0.0 (header numbers 999 and 69: what DuckDB 2.0
// saves by default; writer v2.0.0)", or for unknown numbers "saved at a
// storage newer than v2.0.0 (header numbers 1000 and 70; writer v2.1.0)".
func (h Header) TooNew() string {
	var msg string
	if h.Known() {
		msg = fmt.Sprintf("saved at storage %s (header numbers %d and %d", h.Storage, h.VersionNumber, h.Serialization)
		if i := slices.IndexFunc(known(), func(s Storage) bool { return s.Name == h.Storage }); i >= 0 && known()[i].DefaultOf != "" {
			msg += fmt.Sprintf(": what DuckDB %s saves by default", known()[i].DefaultOf)
		}
	} else {
		msg = fmt.Sprintf("saved at a storage newer than %s (header numbers %d and %d", newestKnown().Name, h.VersionNumber, h.Serialization)
	}
	if h.Writer != "" {
		msg += "; writer " + h.Writer
	}
	return msg + ")"
}

// Resave says how to make a file the linked DuckDB cannot open (Newer) one
// it opens: saved again at the newest storage it writes, by a DuckDB that
// opens the file. A file DuckDB creates at a storage keeps it when a newer
// DuckDB writes to it later (measured with DuckDB 2.0.0), so the same
// ATTACH option serves where a DuckLake catalog is first written.
func (h Header) Resave() string {
	who := "the DuckDB that wrote it"
	if h.Known() {
		who = "DuckDB " + MinDuckDB(h.Storage).String() + " or newer"
	}
	return fmt.Sprintf("save it again with %[1]s at STORAGE_VERSION '%[2]s' (ATTACH a new file with (STORAGE_VERSION '%[2]s') and COPY FROM DATABASE into it), which the DuckDB that fdl-formats links opens", who, Storages[len(Storages)-1].Name)
}

// TooNewFile says, for the file at path that the linked DuckDB refused as
// saved at a newer storage, what its header says it was saved at (TooNew)
// and how to save it so that it opens (Resave); general words where the
// header cannot be read.
func TooNewFile(path string) (saved, resave string) {
	saved, resave = "saved at a newer DuckDB storage", "save it again with the DuckDB that wrote it at an older STORAGE_VERSION, such as "+Storages[len(Storages)-1].Name
	f, err := os.Open(path)
	if err != nil {
		return saved, resave
	}
	defer f.Close()
	h, err := Read(f)
	if err != nil {
		return saved, resave
	}
	return h.TooNew(), h.Resave()
}

// DictFSSTReadable is the oldest storage version whose DuckDB releases (1.4
// on) read the dictionary-FSST segments DuckDB 1.5 writes; at older ones
// DuckDB 1.3 reads some of their values as NULL, with no error.
const DictFSSTReadable = "v1.4.0"

// Older reports whether storage is opened by DuckDB releases older than
// those of storage than; known is false when storage names no version.
func Older(storage, than string) (older, known bool) {
	v := MinDuckDB(storage)
	if v == nil {
		return false, false
	}
	return v.LessThan(MinDuckDB(than)), true
}

// MinDuckDB is the oldest DuckDB release that opens a storage version named
// like STORAGE_VERSION ("v1.5.0") or like version.json's catalog.storage
// ("duckdb-v1.5.0"); nil if the name is not such a version.
//
// DuckDB accepts the name of every release as a storage version, and a
// patch release's name stands for the storage of its line: a file saved at
// STORAGE_VERSION 'v1.5.3' carries v1.5.0's numbers, and DuckDB 1.5.0 opens
// it (measured: TestPatchStorageNames; patchStorages lists the exception).
// So a name of a line Storages lists gives the oldest release that saves
// that line's storage ("v1.5.3" -> 1.5.0). A name of another line (older
// than Storages, or newer, such as "v2.0.0") is taken as the release it
// names: what storage that line writes is not known here.
func MinDuckDB(storage string) *goversion.Version {
	v, err := goversion.NewVersion(strings.TrimPrefix(storage, "duckdb-"))
	if err != nil {
		return nil
	}
	v = v.Core()
	if s, ok := storageOf(v); ok {
		since := s.Since
		if since == "" {
			since = s.Name
		}
		return goversion.Must(goversion.NewVersion(since))
	}
	return v
}

// storageOf is the known storage a release's name saves, if its line is
// one Storages lists.
func storageOf(release *goversion.Version) (Storage, bool) {
	r := release.Segments()
	other, patch := patchStorages[fmt.Sprintf("v%d.%d.%d", r[0], r[1], r[2])]
	for _, s := range Storages {
		k := goversion.Must(goversion.NewVersion(s.Name)).Segments()
		if (patch && s.Name == other) || (!patch && k[0] == r[0] && k[1] == r[1]) {
			return s, true
		}
	}
	return Storage{}, false
}
