package index

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctxd/ctxd/internal/filelock"
)

// A record file holds a cache too large to read whole (the analyses of
// every source file of a tree): records by 32-byte key, read one at a
// time when used, so a process pays for what it uses, not for the file.
// It is two files in one directory:
//
//	NAME.keys       header, then fixed-size entries (key, offset, length, CRC-32C of the record, CRC-32C of the entry)
//	NAME.ID.dat     the records' bytes, back to back
//
// The header holds the magic, the key the records were computed with (a
// version: another one is rebuilt, never read) and ID, which names the
// data file. Both files only grow: a record is written to the data file
// first, then its entry appended (the last entry of a key wins), each
// under an exclusive flock of the keys file, so a daemon and a CLI process
// may append at once. A reader trusts nothing: an entry whose checksum
// fails, or that was torn by a crash, is skipped; a record whose bytes do
// not match its entry's checksum is dropped and the caller computes it
// again. Compaction (when superseded and dropped records are most of the
// data) writes the live records to a new data file and a new keys file
// naming it, renamed over the old one: a reader holding the old files
// keeps reading them, and sees the new ones on its next refresh.

const (
	recordsMagic = "CTXDRECS"
	// entrySize: key, offset, length, record CRC, entry CRC.
	entrySize = 32 + 8 + 4 + 4 + 4
	// maxRecord bounds one record.
	maxRecord = 64 << 20
	// compactMin: a data file smaller than this is never compacted.
	compactMin = 8 << 20
)

// ErrNoRecords is returned by [OpenRecords] for a directory that does not
// exist: the caller persists nothing there.
var ErrNoRecords = errors.New("no index directory")

// Records is a record file (see above). It is safe for concurrent use.
type Records struct {
	dir, name, key string
	// MaxBytes bounds the live records kept by compaction (0: no bound):
	// over it, the records this process did not use are left out.
	MaxBytes int64

	// mu guards the fields below.
	mu      sync.Mutex
	keys    *os.File
	keysIno uint64
	keysLen int64 // bytes of the keys file read (header + entries)
	header  int64
	data    *os.File
	table   map[[32]byte]recLoc
	used    map[[32]byte]bool
	live    int64 // bytes of the records in table
	dataLen int64 // bytes of the data file as this process knows it
	dropped int
}

type recLoc struct {
	off int64
	n   uint32
	crc uint32
}

// OpenRecords opens (or creates) the record file NAME in dir for key.
// A file of another key, or whose header does not verify, is replaced by
// an empty one. dir must exist ([ErrNoRecords] otherwise).
func OpenRecords(dir, name, key string) (*Records, error) {
	if !Exists(dir) {
		return nil, fmt.Errorf("open %s records in %s: %w", name, dir, ErrNoRecords)
	}
	r := &Records{dir: dir, name: name, key: key}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.open(); err != nil {
		return nil, fmt.Errorf("open %s records: %w", name, err)
	}
	return r, nil
}

func (r *Records) keysPath() string { return filepath.Join(r.dir, r.name+".keys") }

func (r *Records) dataPath(id string) string {
	return filepath.Join(r.dir, r.name+"."+id+".dat")
}

// open opens the current keys file and its data file, creating or
// replacing them when missing or not ours. r.mu must be held.
func (r *Records) open() error {
	r.closeFiles()
	for range 3 {
		err := r.openExisting()
		if err == nil {
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, ErrStale) && !errors.Is(err, ErrCorrupt) {
			return err
		}
		if err := r.create(nil); err != nil {
			return err
		}
	}
	return r.openExisting()
}

// openExisting opens the keys file and reads every entry.
func (r *Records) openExisting() error {
	f, err := os.OpenFile(r.keysPath(), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return err
	}
	id, hlen, err := r.parseHeader(b)
	if err != nil {
		f.Close()
		return err
	}
	d, err := os.OpenFile(r.dataPath(id), os.O_RDWR, 0)
	if err != nil {
		f.Close()
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("data file %s: %w", id, ErrCorrupt)
		}
		return err
	}
	st, err := d.Stat()
	if err != nil {
		f.Close()
		d.Close()
		return err
	}
	r.keys, r.data = f, d
	r.keysIno = inode(f)
	r.header = int64(hlen)
	r.keysLen = int64(hlen)
	r.dataLen = st.Size()
	// Sized for the entries listed (each key usually once): a grown
	// table rehashes several times, a large share of a cold CLI run.
	r.table = make(map[[32]byte]recLoc, (len(b)-hlen)/entrySize)
	if r.used == nil {
		r.used = map[[32]byte]bool{}
	}
	r.live = 0
	r.readEntries(b[hlen:])
	return nil
}

// parseHeader checks the keys file's header and returns the data file's
// id and the header's length.
func (r *Records) parseHeader(b []byte) (string, int, error) {
	if len(b) < len(recordsMagic)+8 || string(b[:len(recordsMagic)]) != recordsMagic {
		return "", 0, fmt.Errorf("keys file header: %w", ErrCorrupt)
	}
	p := len(recordsMagic)
	kl := int(binary.LittleEndian.Uint32(b[p:]))
	p += 4
	if kl > 1<<10 || len(b) < p+kl+4 {
		return "", 0, fmt.Errorf("keys file header: %w", ErrCorrupt)
	}
	key := string(b[p : p+kl])
	p += kl
	il := int(binary.LittleEndian.Uint32(b[p:]))
	p += 4
	if il > 64 || len(b) < p+il+4 {
		return "", 0, fmt.Errorf("keys file header: %w", ErrCorrupt)
	}
	id := string(b[p : p+il])
	p += il
	if binary.LittleEndian.Uint32(b[p:]) != crc32.Checksum(b[:p], castagnoli) {
		return "", 0, fmt.Errorf("keys file header checksum: %w", ErrCorrupt)
	}
	p += 4
	if key != r.key {
		return "", 0, fmt.Errorf("records for %q, want %q: %w", key, r.key, ErrStale)
	}
	if id == "" || strings.ContainsAny(id, `/\.`) {
		return "", 0, fmt.Errorf("keys file data id: %w", ErrCorrupt)
	}
	return id, p, nil
}

// readEntries adds the whole entries of b (from keysLen on) to the table;
// a torn entry at the end is left for a later read. r.mu must be held.
func (r *Records) readEntries(b []byte) {
	for len(b) >= entrySize {
		e := b[:entrySize]
		b = b[entrySize:]
		r.keysLen += entrySize
		if binary.LittleEndian.Uint32(e[48:]) != crc32.Checksum(e[:48], castagnoli) {
			r.dropped++
			continue // a corrupt entry: its record is computed again
		}
		var k [32]byte
		copy(k[:], e)
		l := recLoc{off: int64(binary.LittleEndian.Uint64(e[32:])), n: binary.LittleEndian.Uint32(e[40:]), crc: binary.LittleEndian.Uint32(e[44:])}
		if l.off < 0 || l.n > maxRecord {
			r.dropped++
			continue
		}
		if old, ok := r.table[k]; ok {
			r.live -= int64(old.n)
		}
		r.table[k] = l
		r.live += int64(l.n)
	}
}

// create writes a new empty data file and keys file holding recs (read
// from the current data file, nil for none), renamed over the keys file.
// r.mu must be held; the caller reopens.
func (r *Records) create(recs []rec) error {
	var idb [8]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return err
	}
	id := hex.EncodeToString(idb[:])
	d, err := os.OpenFile(r.dataPath(id), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer d.Close()
	hdr := []byte(recordsMagic)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(r.key)))
	hdr = append(hdr, r.key...)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(id)))
	hdr = append(hdr, id...)
	hdr = binary.LittleEndian.AppendUint32(hdr, crc32.Checksum(hdr, castagnoli))
	keys := hdr
	var off int64
	var body []byte
	for _, rc := range recs {
		body = append(body, rc.data...)
		keys = append(keys, entry(rc.k, recLoc{off: off, n: uint32(len(rc.data)), crc: crc32.Checksum(rc.data, castagnoli)})...)
		off += int64(len(rc.data))
	}
	if _, err := d.Write(body); err != nil {
		os.Remove(d.Name())
		return err
	}
	tmp, err := os.CreateTemp(r.dir, "."+r.name+"-*.tmp")
	if err != nil {
		os.Remove(d.Name())
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(keys)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), r.keysPath())
	}
	if err != nil {
		os.Remove(d.Name())
		return err
	}
	r.removeStaleData(id)
	return nil
}

// removeStaleData removes the data files of other ids (a process still
// reading one keeps its open descriptor).
func (r *Records) removeStaleData(keep string) {
	ms, _ := filepath.Glob(filepath.Join(r.dir, r.name+".*.dat"))
	for _, m := range ms {
		if m != r.dataPath(keep) {
			os.Remove(m)
		}
	}
}

func entry(k [32]byte, l recLoc) []byte {
	e := make([]byte, 0, entrySize)
	e = append(e, k[:]...)
	e = binary.LittleEndian.AppendUint64(e, uint64(l.off))
	e = binary.LittleEndian.AppendUint32(e, l.n)
	e = binary.LittleEndian.AppendUint32(e, l.crc)
	return binary.LittleEndian.AppendUint32(e, crc32.Checksum(e, castagnoli))
}

type rec struct {
	k    [32]byte
	data []byte
}

func (r *Records) closeFiles() {
	if r.keys != nil {
		r.keys.Close()
		r.keys = nil
	}
	if r.data != nil {
		r.data.Close()
		r.data = nil
	}
}

// Close releases the files.
func (r *Records) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeFiles()
	return nil
}

// Len is the number of records.
func (r *Records) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.table)
}

// Size is the bytes of the live records.
func (r *Records) Size() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live
}

// Has reports whether a record of k is listed (it may still fail to
// verify when read).
func (r *Records) Has(k [32]byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.table[k]
	return ok
}

// Get returns the record of k, verified, or false: none, or one that does
// not verify (then it is dropped, and the caller computes it again).
func (r *Records) Get(k [32]byte) ([]byte, bool) {
	r.mu.Lock()
	l, ok := r.table[k]
	if !ok {
		r.refresh()
		l, ok = r.table[k]
	}
	d := r.data
	if ok {
		r.used[k] = true
	}
	r.mu.Unlock()
	if !ok || d == nil {
		return nil, false
	}
	b := make([]byte, l.n)
	if _, err := d.ReadAt(b, l.off); err != nil || crc32.Checksum(b, castagnoli) != l.crc {
		r.mu.Lock()
		if cur, ok := r.table[k]; ok && cur == l {
			delete(r.table, k)
			r.live -= int64(l.n)
			r.dropped++
		}
		r.mu.Unlock()
		return nil, false
	}
	return b, true
}

// refresh reads the entries other processes appended, and reopens the
// files when another process compacted or rebuilt them. r.mu must be
// held.
func (r *Records) refresh() {
	if r.keys == nil {
		return
	}
	if st, err := os.Stat(r.keysPath()); err != nil || inodeOf(st) != r.keysIno {
		if err := r.open(); err != nil {
			r.closeFiles()
		}
		return
	}
	r.refreshTail()
}

// refreshTail reads the entries appended to the keys file since it was
// last read. r.mu must be held.
func (r *Records) refreshTail() {
	st, err := r.keys.Stat()
	if err != nil || st.Size() < r.keysLen+entrySize {
		return
	}
	b := make([]byte, (st.Size()-r.keysLen)/entrySize*entrySize)
	if _, err := r.keys.ReadAt(b, r.keysLen); err != nil {
		return
	}
	r.readEntries(b)
}

// Put appends the record of k, unless an identical one is listed.
func (r *Records) Put(k [32]byte, data []byte) error {
	if len(data) > maxRecord {
		return fmt.Errorf("record of %d bytes: over %d", len(data), maxRecord)
	}
	crc := crc32.Checksum(data, castagnoli)
	r.mu.Lock()
	defer r.mu.Unlock()
	if l, ok := r.table[k]; ok && l.crc == crc && l.n == uint32(len(data)) {
		r.used[k] = true
		return nil
	}
	if r.keys == nil {
		if err := r.open(); err != nil {
			return fmt.Errorf("append %s record: %w", r.name, err)
		}
	}
	if err := filelock.Lock(r.keys); err != nil {
		return fmt.Errorf("append %s record: lock: %w", r.name, err)
	}
	err := r.appendLocked(k, data, crc)
	filelock.Unlock(r.keys)
	if err != nil {
		return fmt.Errorf("append %s record: %w", r.name, err)
	}
	return nil
}

// appendLocked appends under the flock: the files may have been replaced
// or grown by another process since this one read them.
func (r *Records) appendLocked(k [32]byte, data []byte, crc uint32) error {
	if st, err := os.Stat(r.keysPath()); err != nil || inodeOf(st) != r.keysIno {
		// Compacted or rebuilt by another process: append to the new
		// files (and lock them instead).
		old := r.keys
		r.keys = nil
		if err := r.open(); err != nil {
			old.Close()
			return err
		}
		filelock.Lock(r.keys)
		defer filelock.Unlock(r.keys)
		old.Close()
	}
	r.refresh()
	ds, err := r.data.Stat()
	if err != nil {
		return err
	}
	off := ds.Size()
	if _, err := r.data.WriteAt(data, off); err != nil {
		return err
	}
	ks, err := r.keys.Stat()
	if err != nil {
		return err
	}
	// A torn entry at the end (a crash mid-append) is overwritten.
	end := r.header + (ks.Size()-r.header)/entrySize*entrySize
	if end != r.keysLen {
		end = max(end, r.keysLen)
	}
	l := recLoc{off: off, n: uint32(len(data)), crc: crc}
	if _, err := r.keys.WriteAt(entry(k, l), end); err != nil {
		return err
	}
	r.keysLen = end + entrySize
	if old, ok := r.table[k]; ok {
		r.live -= int64(old.n)
	}
	r.table[k] = l
	r.used[k] = true
	r.live += int64(l.n)
	r.dataLen = off + int64(len(data))
	return nil
}

// Compact rewrites the files with the live records only, when superseded
// and dropped records take more than half of the data file (or the live
// ones are over MaxBytes), so the files stay bounded. It returns whether
// it compacted.
func (r *Records) Compact() (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keys == nil {
		return false, nil
	}
	over := r.MaxBytes > 0 && r.live > r.MaxBytes
	if !over && (r.dataLen < compactMin || r.dataLen < 2*r.live) {
		return false, nil
	}
	keys := r.keys
	if err := filelock.Lock(keys); err != nil {
		return false, err
	}
	// Unlocking the old keys file (closing it) lets a waiting appender
	// in; it finds the renamed file and appends there.
	defer keys.Close()
	defer filelock.Unlock(keys)
	if st, err := os.Stat(r.keysPath()); err != nil || inodeOf(st) != r.keysIno {
		// Another process compacted: read its files instead.
		r.keys = nil
		if err := r.open(); err != nil {
			return false, err
		}
		return false, nil
	}
	r.refreshTail()
	var recs []rec
	var size int64
	for k, l := range r.table {
		if over && !r.used[k] {
			continue
		}
		b := make([]byte, l.n)
		if _, err := r.data.ReadAt(b, l.off); err != nil || crc32.Checksum(b, castagnoli) != l.crc {
			continue
		}
		if r.MaxBytes > 0 && size+int64(l.n) > r.MaxBytes {
			continue
		}
		size += int64(l.n)
		recs = append(recs, rec{k, b})
	}
	if err := r.create(recs); err != nil {
		return false, fmt.Errorf("compact %s records: %w", r.name, err)
	}
	r.keys = nil
	if r.data != nil {
		r.data.Close()
		r.data = nil
	}
	if err := r.openExisting(); err != nil {
		return true, fmt.Errorf("compact %s records: %w", r.name, err)
	}
	return true, nil
}

func inode(f *os.File) uint64 {
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	return inodeOf(st)
}
