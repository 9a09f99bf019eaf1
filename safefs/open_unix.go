//go:build unix

package safefs

import (
	"os"
	"syscall"
)

// openNonblock opens name read-only with O_NONBLOCK, so that opening a FIFO
// swapped in after the stat returns at once instead of waiting for a
// writer; the caller's fstat then refuses it.
func openNonblock(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
