//go:build !unix

package server

import (
	"net"
	"os"
)

// listenPrivate listens; without a umask a unix socket is made owner-only
// right after its creation.
func listenPrivate(network, addr string) (net.Listener, error) {
	ln, err := net.Listen(network, addr)
	if err != nil || network != "unix" {
		return ln, err
	}
	if err := os.Chmod(addr, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}
