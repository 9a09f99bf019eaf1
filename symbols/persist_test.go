package symbols

import (
	"github.com/ctxd/ctxd/index"
)

// The tests persist an index as the workspace store does (package
// workspace owns the record file in a real state directory): these helpers
// open, persist and close its record file in dir.

// maxRecordBytes bounds the tests' record file (the store's bound for the
// symbols' records, which a test lowers).
var maxRecordBytes int64 = 512 << 20

// openRecords returns an index backed by the record file in dir when dir
// exists, else in memory.
func openRecords(dir string) (*Index, error) {
	x := New()
	if !index.Exists(dir) {
		return x, nil
	}
	r, err := index.OpenRecords(dir, "symbols", Version())
	if err != nil {
		return x, err
	}
	r.MaxBytes = maxRecordBytes
	return x, x.SetRecords(r)
}

// persist writes x's entries to dir's record file (an index opened before
// dir existed) and compacts it.
func (x *Index) persist(dir string) error {
	if r, ok := x.records().(*index.Records); ok {
		_, err := r.Compact()
		return err
	}
	if !index.Exists(dir) {
		return nil
	}
	r, err := index.OpenRecords(dir, "symbols", Version())
	if err != nil {
		return err
	}
	r.MaxBytes = maxRecordBytes
	return x.SetRecords(r)
}

// close closes x's record file.
func (x *Index) close() error {
	if r, ok := x.records().(*index.Records); ok {
		return r.Close()
	}
	return nil
}
