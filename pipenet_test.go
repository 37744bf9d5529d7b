package threads_test

import (
	"context"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
)

// pipeNet is an in-memory network for tests under testing/synctest: an
// http.Server and the client's http.Transport talk over net.Pipe
// connections, so every wait is on a channel (durably blocking) and time
// is the bubble's fake clock. Both sides are the real net/http, hijacking
// and chunked streams included.
type pipeNet struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// pipeServer serves h on a pipeNet and returns its base URL and a
// transport that reaches it; both are closed when the test ends. A nil h
// is a host where nothing listens: every dial is refused.
func pipeServer(t testing.TB, h http.Handler) (baseURL string, tr *http.Transport) {
	t.Helper()
	n := &pipeNet{conns: make(chan net.Conn), done: make(chan struct{})}
	tr = &http.Transport{DialContext: n.dial}
	if h == nil {
		n.Close()
		t.Cleanup(tr.CloseIdleConnections)
		return "http://pipe.invalid", tr
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(n)
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return "http://pipe.invalid", tr
}

func (n *pipeNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case n.conns <- server:
		return client, nil
	case <-n.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

func (n *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.done:
		return nil, net.ErrClosed
	}
}

func (n *pipeNet) Close() error {
	n.once.Do(func() { close(n.done) })
	return nil
}

func (n *pipeNet) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
