package threadstest

import (
	"fmt"
	"net"
)

// WithAddr makes the server listen on addr, such as "127.0.0.1:8080" or
// "127.0.0.1:0" (any free port), instead of a free port on the loopback
// interface. It is for running the fake as a process that other programs
// reach at a known address (as "threads fake --addr" does); tests rarely
// need it. [Start] and [NewServer] panic when they cannot listen on addr, as
// net/http/httptest does; [Server.URL] holds the address in use.
func WithAddr(addr string) Option { return option(func(c *config) { c.addr = addr }) }

// listen replaces the test server's loopback listener with one on addr.
// It runs before the server starts.
func (s *Server) listen(addr string) {
	if addr == "" {
		return
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		panic(fmt.Sprintf("threadstest: WithAddr(%q): %v", addr, err))
	}
	s.srv.Listener.Close()
	s.srv.Listener = l
}
