//go:build unix

package server

import (
	"net"
	"os"
	"syscall"
)

// listenPrivate listens; a unix socket is created mode 0600 (the umask is
// set around its creation, so it is never reachable by others).
func listenPrivate(network, addr string) (net.Listener, error) {
	if network != "unix" {
		return net.Listen(network, addr)
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen(network, addr)
	syscall.Umask(old)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(addr, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}
