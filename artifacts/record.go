package artifacts

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
)

// PackName is the file of a session scope that holds its artifacts as
// appended records: <state>/artifacts/<scope>/pack.
const PackName = "pack"

// RecordHeaderSize is the size of a record's header; the content follows
// it. The header is
//
//	magic "cxa1" (4) | sha256 of the content (32) | content length,
//	uint64 big endian (8) | CRC-32C of the 44 bytes before it (4)
const RecordHeaderSize = 48

var recordMagic = []byte("cxa1")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errBadHeader is a header whose magic or checksum is wrong.
var errBadHeader = errors.New("artifact record header does not verify")

// headerOf is the header of a record of n bytes whose SHA-256 is sum
// (the content follows it: written apart from the content, a record costs
// no copy of a large text).
func headerOf(sum [sha256.Size]byte, n int64) []byte {
	b := make([]byte, RecordHeaderSize)
	copy(b, recordMagic)
	copy(b[4:36], sum[:])
	binary.BigEndian.PutUint64(b[36:44], uint64(n))
	binary.BigEndian.PutUint32(b[44:48], crc32.Checksum(b[:44], castagnoli))
	return b
}

// decodeHeader checks a record header and returns the content's hash (hex)
// and length.
func decodeHeader(h []byte) (string, int64, error) {
	if len(h) < RecordHeaderSize || !bytes.Equal(h[:4], recordMagic) ||
		binary.BigEndian.Uint32(h[44:48]) != crc32.Checksum(h[:44], castagnoli) {
		return "", 0, errBadHeader
	}
	n := binary.BigEndian.Uint64(h[36:44])
	if n > 1<<62 {
		return "", 0, errBadHeader
	}
	return hex.EncodeToString(h[4:36]), int64(n), nil
}

// packRecord locates one record's content in a pack.
type packRecord struct {
	hash string
	off  int64 // of the content
	n    int64
}

// packScan is what [scanPack] found between two offsets.
type packScan struct {
	records []packRecord
	// damaged counts bytes skipped because no valid header covered them
	// (a flipped bit, a foreign write): reported, never trusted.
	damaged int64
	// end is where the next record starts: the end of the last complete
	// record, or the start of a torn one (a write cut short, or one in
	// progress in another process).
	end int64
	// torn reports a record at end that runs past the file's end.
	torn bool
}

// scanPack reads the record headers of a pack from offset from to size,
// skipping over contents (a content is verified against its hash when it
// is read). A header that does not verify is damage: the scan resumes at
// the next offset where a valid header starts.
func scanPack(r io.ReaderAt, from, size int64) (packScan, error) {
	sc := packScan{end: from}
	off := from
	h := make([]byte, RecordHeaderSize)
	// skip counts the bytes up to the next valid header as damage.
	skip := func() error {
		next, err := resync(r, off+1, size)
		if err != nil {
			return err
		}
		sc.damaged += next - off
		off, sc.end = next, next
		return nil
	}
	for off < size {
		if size-off < RecordHeaderSize {
			if _, err := r.ReadAt(h[:size-off], off); err != nil && err != io.EOF {
				return sc, err
			}
			if bytes.HasPrefix(h[:size-off], recordMagic[:min(4, size-off)]) {
				sc.torn = true // a header being written, or cut short
				sc.end = off
				return sc, nil
			}
			if err := skip(); err != nil {
				return sc, err
			}
			continue
		}
		if _, err := r.ReadAt(h, off); err != nil && err != io.EOF {
			return sc, err
		}
		hash, n, err := decodeHeader(h)
		if err != nil {
			if err := skip(); err != nil {
				return sc, err
			}
			continue
		}
		if n > size-off-RecordHeaderSize {
			sc.torn = true
			sc.end = off
			return sc, nil
		}
		sc.records = append(sc.records, packRecord{hash: hash, off: off + RecordHeaderSize, n: n})
		off += RecordHeaderSize + n
		sc.end = off
	}
	return sc, nil
}

// resync finds the first offset at or after from where a valid header
// starts (or a header too short to judge: a torn tail), or size.
func resync(r io.ReaderAt, from, size int64) (int64, error) {
	if from >= size {
		return size, nil
	}
	rest := make([]byte, size-from)
	if _, err := r.ReadAt(rest, from); err != nil && err != io.EOF {
		return 0, err
	}
	for i := 0; i < len(rest); {
		j := bytes.Index(rest[i:], recordMagic[:min(4, len(rest)-i)])
		if j < 0 {
			break
		}
		at := i + j
		if len(rest)-at < RecordHeaderSize {
			if bytes.HasPrefix(rest[at:], recordMagic[:min(4, len(rest)-at)]) {
				return from + int64(at), nil
			}
		} else if _, _, err := decodeHeader(rest[at : at+RecordHeaderSize]); err == nil {
			return from + int64(at), nil
		}
		i = at + 1
	}
	return size, nil
}
