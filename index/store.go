package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/ctxd/ctxd/internal/uvarint"
)

// Version is the persisted format's version; a file of another version is
// rebuilt, never read.
const Version = 5 // 2: Content.Generated (and the defined-names bag); 3: Content.Minified; 4: CRC-32C instead of SHA-256; 5: bag arrays 4-byte aligned

// magic opens every index file.
const magic = "CTXDIDX\n"

// ErrStale reports an index written for another key (another root,
// options or term extractor) or another format version.
var ErrStale = errors.New("index is stale")

// ErrCorrupt reports an index that fails verification.
var ErrCorrupt = errors.New("index is corrupt")

// Terms is a bag of lexical terms: sorted unique 32-bit term hashes with
// their counts, and the total number of terms.
type Terms struct {
	Hash []uint32
	TF   []uint16
	N    int
}

// Content is what a file's bytes yield. It depends on the content only, so
// it is stored once per content hash and shared by identical files.
type Content struct {
	Hash        [32]byte // SHA-256 of the bytes
	Lines       int
	InlineTests bool
	Imports     []string
	GoModule    string
	// Bags are the lexical term bags of the content, one per field of
	// the ranking, in the order the term extractor defines (gather: the
	// body, then the names the file defines; a ranking with more fields
	// adds bags and bumps its extractor version in the key).
	Bags []Terms
	// Generated marks a generated-code header ("Code generated ... DO
	// NOT EDIT").
	Generated bool
	// Minified marks minified or very-long-line text (tree.Minified):
	// its bags hold the terms of its head only, and a prompt shows it as
	// a one-line stub.
	Minified bool
}

// File flags.
const (
	FlagBinary  = 1 << iota // not text; not indexed
	FlagTooBig              // over the size cap; not read
	FlagReadErr             // could not be read
)

// File is one file's facts.
type File struct {
	Path    string // root-relative, slash-separated
	Size    int64
	ModTime int64 // Unix nanoseconds
	Flags   uint8
	// Content is nil for files not read (binary, too big, unreadable).
	Content *Content
}

// Snapshot is a persisted set of file facts.
type Snapshot struct {
	// Key names what the facts were computed for (root, options, term
	// extractor version); Load refuses another key.
	Key string
	// Written is when the walk that produced the facts started (Unix
	// nanoseconds). A file modified at or after Written - [RacyWindow]
	// may have changed without its mtime moving, so it is read again.
	Written int64
	Files   []File // sorted by Path

	byPathOnce sync.Once
	byPath     map[string]int
}

// RacyWindow is how close to Written a file's mtime may be before its
// facts are not trusted (mtime granularity and clock steps).
const RacyWindow = 2_000_000_000

// Trusted reports whether f's stored facts hold for a file of size and
// mtime (Unix nanoseconds) found on disk now.
func (s *Snapshot) Trusted(f *File, size, mtime int64) bool {
	return f.Size == size && f.ModTime == mtime && mtime < s.Written-RacyWindow
}

// Lookup returns the facts of path, or nil. Safe for concurrent use
// (Files must not change).
func (s *Snapshot) Lookup(path string) *File {
	s.byPathOnce.Do(func() {
		s.byPath = make(map[string]int, len(s.Files))
		for i := range s.Files {
			s.byPath[s.Files[i].Path] = i
		}
	})
	i, ok := s.byPath[path]
	if !ok {
		return nil
	}
	return &s.Files[i]
}

// Find returns the index in Files of path's facts, -1 when there are
// none. hint is where the caller expects it (the index found for the
// previous path of a walk, plus one): a walk lists paths nearly in path
// order, so most finds compare one or two paths, the others search.
// Safe for concurrent use (Files must not change).
func (s *Snapshot) Find(path string, hint int) int {
	for _, i := range [2]int{hint, hint + 1} {
		if i >= 0 && i < len(s.Files) && s.Files[i].Path == path {
			return i
		}
	}
	i := sort.Search(len(s.Files), func(i int) bool { return s.Files[i].Path >= path })
	if i < len(s.Files) && s.Files[i].Path == path {
		return i
	}
	return -1
}

// Each calls fn for every file in path order until fn returns false.
func (s *Snapshot) Each(fn func(*File) bool) {
	for i := range s.Files {
		if !fn(&s.Files[i]) {
			return
		}
	}
}

// Save writes s to path atomically (a temporary file in the same
// directory, synced, then renamed), creating the directory and a
// .gitignore in it that ignores everything.
func Save(path string, s *Snapshot) error {
	sort.Slice(s.Files, func(i, j int) bool { return s.Files[i].Path < s.Files[j].Path })
	if err := MakeDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".index-*.tmp")
	if err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	// The encoding streams to the file through the checksum in pieces of
	// about saveChunk bytes: at 100k files the whole encoding is tens of
	// megabytes that would otherwise sit in memory at once.
	sum := crc32.New(castagnoli)
	out := io.MultiWriter(tmp, sum)
	var werr error
	var e encoder
	written := 0 // bytes flushed before e.buf
	flush := func(min int) {
		if werr == nil && e.buf.Len() >= min {
			written += e.buf.Len()
			_, werr = out.Write(e.buf.Bytes())
			e.buf.Reset()
		}
	}
	e.buf.WriteString(magic)
	e.u64(Version)
	e.str(s.Key)
	e.u64(uint64(s.Written))
	// Contents, once per hash.
	ids := map[[32]byte]uint64{}
	var contents []*Content
	for _, f := range s.Files {
		if c := f.Content; c != nil {
			if _, ok := ids[c.Hash]; !ok {
				ids[c.Hash] = uint64(len(contents))
				contents = append(contents, c)
			}
		}
	}
	e.u64(uint64(len(contents)))
	for _, c := range contents {
		e.buf.Write(c.Hash[:])
		e.u64(uint64(c.Lines))
		e.bool(c.InlineTests)
		e.strs(c.Imports)
		e.str(c.GoModule)
		e.u64(uint64(len(c.Bags)))
		for _, t := range c.Bags {
			e.u64(uint64(t.N))
			e.u64(uint64(len(t.Hash)))
			// Zeros up to a 4-byte offset in the file: a loaded file's
			// arrays are then read in place (see decode).
			for (written+e.buf.Len())%4 != 0 {
				e.buf.WriteByte(0)
			}
			for _, h := range t.Hash {
				e.buf.Write(binary.LittleEndian.AppendUint32(e.tmp[:0], h))
			}
			for _, tf := range t.TF {
				e.buf.Write(binary.LittleEndian.AppendUint16(e.tmp[:0], tf))
			}
		}
		e.bool(c.Generated)
		e.bool(c.Minified)
		flush(saveChunk)
	}
	e.u64(uint64(len(s.Files)))
	for _, f := range s.Files {
		e.str(f.Path)
		e.u64(uint64(f.Size))
		e.u64(uint64(f.ModTime))
		e.buf.WriteByte(f.Flags)
		if f.Content == nil {
			e.u64(0)
		} else {
			e.u64(ids[f.Content.Hash] + 1)
		}
		flush(saveChunk)
	}
	flush(0)
	if werr == nil {
		_, werr = tmp.Write(sum.Sum(nil))
	}
	if werr != nil {
		tmp.Close()
		return fmt.Errorf("save index: %w", werr)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save index: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	return nil
}

// saveChunk is about how many encoded bytes Save holds before writing
// them out.
const saveChunk = 256 << 10

// Exists reports whether dir, a persisted index's directory, exists. The
// caches beside the index (secrets' clean set, the symbol index, git
// history) are written only there: a tree too small for a persisted index
// gets no state directory of their making.
func Exists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// MakeDir creates a directory for local state (the index, token counts)
// with a .gitignore that ignores everything in it: the directory usually
// lies in the workspace (.ctxd/index), and `git status` must not list it.
// The first call of a process for a directory also removes the temporary
// files of writes that never finished there ([sweepTemps]).
func MakeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sweepTemps(dir)
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(ignore); errors.Is(err, os.ErrNotExist) {
		return os.WriteFile(ignore, []byte("# written by ctxd: local state\n*\n"), 0o644)
	}
	return nil
}

// StaleTemp is the age past which a temporary file of an atomic write in a
// state directory (.index-*.tmp, .sealed-*.tmp, .NAME-*.tmp) is a leftover:
// no write takes that long, and a younger one may be another process's
// write in progress (a CLI run beside the daemon).
const StaleTemp = 10 * time.Minute

// swept holds the directories sweepTemps has swept in this process.
var swept sync.Map

// sweepTemps removes dir's leftover temporary files, once per process: a
// process that ended between creating one and renaming it (a daemon whose
// client closed its standard input while a cache was being written, a
// kill) left it for good, as large as the file it was writing (a view
// cache of tens of megabytes).
func sweepTemps(dir string) {
	if _, done := swept.LoadOrStore(dir, true); done {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".tmp") || name == ".tmp" {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > StaleTemp {
			os.Remove(filepath.Join(dir, name))
		}
	}
}

// Load reads and verifies the index at path. It fails with [ErrCorrupt]
// when the bytes do not verify and [ErrStale] for another key or version;
// the caller rebuilds in both cases.
func Load(path, key string) (*Snapshot, error) {
	return load(path, key, os.ReadFile)
}

// LoadMapped is Load for a short-lived process (a CLI run): the file is
// mapped rather than read, and the snapshot's bags are the mapped bytes,
// which stay mapped until the process exits. A process that loads
// indexes again and again (a daemon) uses Load, whose memory the garbage
// collector frees.
func LoadMapped(path, key string) (*Snapshot, error) {
	return load(path, key, mapFile)
}

func load(path, key string, read func(string) ([]byte, error)) (*Snapshot, error) {
	b, err := read(path)
	if err != nil {
		return nil, fmt.Errorf("load index: %w", err)
	}
	s, err := decode(b, key)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func decode(b []byte, key string) (*Snapshot, error) {
	if len(b) < len(magic)+sumSize || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("load index: %w: bad header", ErrCorrupt)
	}
	body := b[:len(b)-sumSize]
	if !bytes.Equal(checksum(body), b[len(body):]) {
		return nil, fmt.Errorf("load index: %w: checksum mismatch", ErrCorrupt)
	}
	d := uvarint.NewReader(body[len(magic):])
	if v := d.Uvarint(); v != Version {
		return nil, fmt.Errorf("load index: %w: version %d, want %d", ErrStale, v, Version)
	}
	if k := d.Str(); k != key {
		return nil, fmt.Errorf("load index: %w: written for another root or options", ErrStale)
	}
	s := &Snapshot{Key: key, Written: int64(d.Uvarint())}
	nc := d.Count(32 + 4)
	contents := make([]Content, nc)
	// The bags are the file's own bytes where it can (see inPlace), else
	// cut from a few large arrays rather than allocated one by one (two
	// slices per bag, tens of thousands of bags). Either way a bag keeps
	// its backing alive, which costs at most the loaded index's size.
	var hashes []uint32
	var tfs []uint16
	pos := func() int { return len(b) - sumSize - d.Len() } // offset in the file
	for i := range contents {
		c := &contents[i]
		copy(c.Hash[:], d.Bytes(32))
		c.Lines = int(d.Uvarint())
		c.InlineTests = d.Bool()
		c.Imports = d.Strs()
		c.GoModule = d.Str()
		c.Bags = make([]Terms, d.Count(2))
		for k := range c.Bags {
			t := &c.Bags[k]
			t.N = int(d.Uvarint())
			nt := d.Count(6)
			d.Bytes((4 - pos()%4) % 4) // alignment padding
			hb := d.Bytes(4 * nt)
			tb := d.Bytes(2 * nt)
			if d.Err() != nil {
				break
			}
			if h, tf, ok := inPlace(hb, tb, nt); ok {
				t.Hash, t.TF = h, tf
				continue
			}
			if nt > len(hashes) {
				n := max(nt, bagArena)
				hashes, tfs = make([]uint32, n), make([]uint16, n)
			}
			t.Hash, hashes = hashes[:nt:nt], hashes[nt:]
			t.TF, tfs = tfs[:nt:nt], tfs[nt:]
			for j := range t.Hash {
				t.Hash[j] = binary.LittleEndian.Uint32(hb[4*j:])
			}
			for j := range t.TF {
				t.TF[j] = binary.LittleEndian.Uint16(tb[2*j:])
			}
		}
		if d.Err() != nil {
			break
		}
		c.Generated = d.Bool()
		c.Minified = d.Bool()
		if d.Err() != nil {
			break
		}
	}
	nf := d.Count(4)
	s.Files = make([]File, nf)
	for i := range s.Files {
		f := &s.Files[i]
		f.Path = d.Str()
		f.Size = int64(d.Uvarint())
		f.ModTime = int64(d.Uvarint())
		f.Flags = d.Byte()
		if id := d.Uvarint(); id > 0 {
			if id > uint64(len(contents)) {
				return nil, fmt.Errorf("load index: %w: content %d of %d", ErrCorrupt, id, len(contents))
			}
			f.Content = &contents[id-1]
		}
	}
	if d.Err() != nil {
		return nil, fmt.Errorf("load index: %w: %v", ErrCorrupt, d.Err())
	}
	if d.Len() != 0 {
		return nil, fmt.Errorf("load index: %w: %d trailing bytes", ErrCorrupt, d.Len())
	}
	return s, nil
}

// inPlace returns hb and tb, nt little-endian uint32s and uint16s, as
// slices over the same bytes, when the machine is little-endian and they
// are aligned (Save aligns them in the file; a file read into a fresh
// allocation keeps that alignment). The caller must never write to them.
func inPlace(hb, tb []byte, nt int) ([]uint32, []uint16, bool) {
	if nt == 0 {
		return []uint32{}, []uint16{}, true
	}
	if !littleEndian || uintptr(unsafe.Pointer(unsafe.SliceData(hb)))%4 != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(tb)))%2 != 0 {
		return nil, nil, false
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(hb))), nt), unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(tb))), nt), true
}

// littleEndian reports the machine's byte order.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// bagArena is how many terms decode allocates at once for the bags.
const bagArena = 64 << 10

type encoder struct {
	buf bytes.Buffer
	tmp [binary.MaxVarintLen64]byte
}

func (e *encoder) u64(v uint64) { e.buf.Write(binary.AppendUvarint(e.tmp[:0], v)) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.buf.WriteString(s) }

// strs writes a count and the strings; uvarint.Reader.Strs reads them.
func (e *encoder) strs(ss []string) {
	e.u64(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

func (e *encoder) bool(v bool) {
	if v {
		e.buf.WriteByte(1)
	} else {
		e.buf.WriteByte(0)
	}
}

// The index's checksum is a CRC-32C (Castagnoli) of everything before
// it. It guards against a torn or damaged file, not against a writer: one
// that can write the state directory can write a matching SHA-256 as
// well. The CPU computes it (SSE 4.2, ARMv8 CRC) at several GB/s, where
// SHA-256 took ~20 ms of a cold CLI run on a 15 MB index.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sumSize is the checksum's length in bytes.
const sumSize = crc32.Size

// checksum returns the checksum of b as the file stores it (big-endian,
// as hash.Hash32's Sum appends it).
func checksum(b []byte) []byte {
	return binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, castagnoli))
}
