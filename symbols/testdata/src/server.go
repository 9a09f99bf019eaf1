package server

import "context"

// MaxConns bounds the connections.
const MaxConns = 64

// Server serves connections.
type Server struct {
	addr string
}

// Shutdown stops the server.
func (s *Server) Shutdown(ctx context.Context) error {
	return closeListeners(s.addr) // not a call to "Serve"
}

func closeListeners(addr string) error { return nil }
