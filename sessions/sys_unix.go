//go:build unix

package sessions

import (
	"errors"
	"syscall"
)

// errSyncUnsupported is what fsync of a directory returns on filesystems
// that do not support it; the store goes on without it there.
var errSyncUnsupported error = syscall.EINVAL

// linkUnsupported reports a filesystem without hard links.
func linkUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS)
}
