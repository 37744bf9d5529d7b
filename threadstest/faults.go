package threadstest

import (
	"net/http"
	"strings"
)

// Fault replaces the server's answer to matching requests. Queue one with
// [Server.Inject]. A request is recorded in [Server.Requests] whether or
// not a fault answers it.
type Fault struct {
	// Method matches the request method; "" matches any.
	Method string
	// Path matches the escaped request path; a trailing "*" matches a
	// prefix ("/threads/*"); "" matches any path.
	Path string
	// Times is how many requests the fault answers: 0 means 1, -1 means
	// every matching request until the server closes.
	Times int

	// Stall, when not nil, holds the request before any answer until Stall
	// is closed or the client goes away; then the rest of the fault (or the
	// normal handler) answers.
	Stall <-chan struct{}
	// Reset closes the connection without an answer, before the request
	// has any effect.
	Reset bool
	// ActThenReset lets the request act (a thread is created, a message
	// appended) and then closes the connection without the answer: the
	// case a client must never retry blindly.
	ActThenReset bool
	// Status, Header and Body make the answer. Status 0 passes the request
	// on to the normal handler (after Stall).
	Status int
	Header http.Header
	Body   string
}

// Inject queues a fault. Faults are matched in the order they were
// injected; the first that matches answers, and is dropped once it has
// answered Times requests.
func (s *Server) Inject(f Fault) {
	if f.Times == 0 {
		f.Times = 1
	}
	f.Header = f.Header.Clone()
	s.mu.Lock()
	s.faults = append(s.faults, &f)
	s.mu.Unlock()
}

// takeFault returns the first fault matching r and counts it; s.mu is held.
func (s *Server) takeFault(r *http.Request) *Fault {
	for i, f := range s.faults {
		if f.Method != "" && f.Method != r.Method {
			continue
		}
		if p := f.Path; p != "" {
			if strings.HasSuffix(p, "*") {
				if !strings.HasPrefix(r.URL.EscapedPath(), strings.TrimSuffix(p, "*")) {
					continue
				}
			} else if p != r.URL.EscapedPath() {
				continue
			}
		}
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return f
	}
	return nil
}

// reset closes the connection without a response.
func reset(w http.ResponseWriter) {
	if mw, ok := w.(*memWriter); ok {
		mw.abort()
		return
	}
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}
