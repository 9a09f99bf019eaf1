//go:build !unix

package server

import "net"

// listenMasked listens on a unix socket; without a umask it is made
// owner-only by listenPrivate's chmod right after its creation.
func listenMasked(addr string) (net.Listener, error) { return net.Listen("unix", addr) }
