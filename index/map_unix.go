//go:build unix

package index

import (
	"os"
	"syscall"
)

// mapFile maps the file at path read-only, its pages read in at once (on
// Linux): no copy of the bytes and no page faults one page at a time.
// The mapping is never released, so the bytes stay valid for the process's
// life; the file may be replaced (Save renames a new one over it) but
// must not be truncated in place. An empty or unmappable file is read
// instead.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	n := st.Size()
	if n <= 0 || n != int64(int(n)) || !st.Mode().IsRegular() {
		return os.ReadFile(path)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(n), syscall.PROT_READ, syscall.MAP_PRIVATE|mapPopulate)
	if err != nil {
		return os.ReadFile(path)
	}
	return b, nil
}
