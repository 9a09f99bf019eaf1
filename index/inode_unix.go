//go:build unix

package index

import (
	"os"
	"syscall"
)

// inodeOf is st's inode: a keys file replaced by another process's
// compaction has a new one.
func inodeOf(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return 0
}
