//go:build unix

package server

import (
	"net"
	"syscall"
)

// listenMasked listens on a unix socket created with umask 0177, so it
// is never reachable by others, even before listenPrivate's chmod.
func listenMasked(addr string) (net.Listener, error) {
	old := syscall.Umask(0o177)
	defer syscall.Umask(old)
	return net.Listen("unix", addr)
}
