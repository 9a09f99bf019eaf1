// Copyright 2024 The ctxd Authors.

// Package server accepts connections and serves requests. It is a small
// example for the truncation goldens.
package server

import (
	"context"
	"errors"
	"net"
)

// ErrClosed is returned after Close. Callers may compare with errors.Is.
var ErrClosed = errors.New("server closed")

const defaultAddr = ":8080"

// Server serves connections. The zero value is not usable.
type Server struct {
	// Addr is the address to listen on.
	Addr  string
	ln    net.Listener // set by Serve
	conns map[net.Conn]bool
}

// Handler handles one connection.
type Handler interface {
	// Handle serves c. It returns when c is closed.
	Handle(ctx context.Context, c net.Conn) error
}

// New returns a server for addr.
func New(addr string) *Server {
	if addr == "" {
		addr = defaultAddr
	}
	return &Server{Addr: addr, conns: map[net.Conn]bool{}}
}

// Serve accepts connections until ctx is done. It blocks. The handler h
// runs in its own goroutine per connection.
func (s *Server) Serve(ctx context.Context, h Handler) error {
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return err
	}
	s.ln = ln
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		s.track(c)
		go h.Handle(ctx, c)
	}
}

// Close stops the server.
func (s *Server) Close() error { return s.ln.Close() }

func (s *Server) track(c net.Conn) {
	if s.conns == nil {
		s.conns = map[net.Conn]bool{}
	}
	s.conns[c] = true
}

func (s *Server) untrack(c net.Conn) {
	delete(s.conns, c)
	if len(s.conns) == 0 {
		s.conns = nil
	}
}

var handlers = map[string]func() int{
	"a": func() int {
		x := 1
		x++
		x++
		return x
	},
}
