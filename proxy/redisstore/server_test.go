package redisstore_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// installHint is how to get redis-server on Debian or Ubuntu.
const installHint = "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server"

// redisServer is a redis-server process a test started, on a loopback
// port of its own, or the server of THREADS_REDIS_URL (proc nil).
type redisServer struct {
	url   string
	port  int
	mu    sync.Mutex
	proc  *exec.Cmd
	relay *relay // ownServer's: the address its clients dial
}

// shared is the package's one server for the tests that do not stop it.
var shared struct {
	once sync.Once
	srv  *redisServer
	err  error
	skip string
}

// sharedServer returns the server most tests share: THREADS_REDIS_URL when
// set, else a redis-server started for the package (stopped by TestMain).
func sharedServer(t testing.TB) *redisServer {
	t.Helper()
	shared.once.Do(func() {
		if u := os.Getenv("THREADS_REDIS_URL"); u != "" {
			shared.srv = &redisServer{url: u}
			return
		}
		if _, err := exec.LookPath("redis-server"); err != nil {
			shared.skip = "redis-server is not on PATH; install it with: " + installHint + " (or set THREADS_REDIS_URL)"
			return
		}
		shared.srv, shared.err = startServer(0)
	})
	if shared.skip != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(shared.skip)
		}
		t.Skip(shared.skip)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.srv
}

// ownServer starts a redis-server for one test, which may stop and
// restart it; skipped with THREADS_REDIS_URL (that server is not ours).
// Its clients dial a relay the test holds until it ends, never the
// server's own port: a port freed while Redis is down can be taken by
// any process (another test's redis-server or HTTP server, another copy
// of the suite), and the test's "outage" would then reach a server that
// is not down, or its restart would find the port taken.
func ownServer(t *testing.T) *redisServer {
	t.Helper()
	if os.Getenv("THREADS_REDIS_URL") != "" {
		t.Skip("THREADS_REDIS_URL is set: this test stops and restarts its own redis-server")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not on PATH; install it with: " + installHint)
		}
		t.Skip("redis-server is not on PATH; install it with: " + installHint)
	}
	srv, err := startServer(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)
	r, err := startRelay()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.close)
	r.point("127.0.0.1:" + strconv.Itoa(srv.port))
	srv.relay, srv.url = r, "redis://"+r.ln.Addr().String()+"/0"
	return srv
}

// startServer starts redis-server on port (0: a free one) and returns once
// it accepts connections.
func startServer(port int) (*redisServer, error) {
	var lastErr error
	for range 3 { // a free port found may be taken before redis binds it
		p := port
		if p == 0 {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return nil, err
			}
			p = l.Addr().(*net.TCPAddr).Port
			_ = l.Close()
		}
		s := &redisServer{url: "redis://127.0.0.1:" + strconv.Itoa(p) + "/0", port: p}
		if lastErr = s.start(); lastErr == nil {
			return s, nil
		}
	}
	return nil, lastErr
}

// start runs the server process and waits for its "Ready to accept
// connections" line.
func (s *redisServer) start() error {
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--loglevel", "notice")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(out)
	var log []string
	for sc.Scan() {
		line := sc.Text()
		log = append(log, line)
		if strings.Contains(line, "Ready to accept connections") {
			go func() { _, _ = io.Copy(io.Discard, out) }() // ends when the process does
			s.mu.Lock()
			s.proc = cmd
			s.mu.Unlock()
			return nil
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return fmt.Errorf("redis-server on port %d did not start: %s", s.port, strings.Join(log, "\n"))
}

// stop kills the server process (by its PID) and waits for it; its
// relay, if any, drops the connections it relays and closes the ones it
// accepts until restart.
func (s *redisServer) stop() {
	if s.relay != nil {
		s.relay.point("")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	_ = s.proc.Process.Kill()
	_ = s.proc.Wait()
	s.proc = nil
}

// restart starts the server again, empty: on a port of its own behind
// the relay (the one it had may be taken by now), else on its port.
func (s *redisServer) restart(t *testing.T) {
	t.Helper()
	if s.relay == nil {
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
		return
	}
	ns, err := startServer(0)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.proc, s.port = ns.proc, ns.port
	s.mu.Unlock()
	s.relay.point("127.0.0.1:" + strconv.Itoa(ns.port))
}

// relay is a loopback TCP relay to a redis-server, or, while it points
// nowhere, a listener that closes each connection it accepts (a client
// reads EOF, as from a server that went away).
type relay struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	to    string // the server's address; "" while it is down
	conns map[net.Conn]bool
}

func startRelay() (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, conns: map[net.Conn]bool{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

func (r *relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		r.mu.Lock()
		to := r.to
		r.mu.Unlock()
		var s net.Conn
		if to != "" {
			s, _ = net.Dial("tcp", to)
		}
		r.mu.Lock()
		if s == nil || r.to != to { // down, or went down meanwhile
			r.mu.Unlock()
			_ = c.Close()
			if s != nil {
				_ = s.Close()
			}
			continue
		}
		r.conns[c], r.conns[s] = true, true
		r.wg.Add(2)
		r.mu.Unlock()
		go r.pipe(c, s)
		go r.pipe(s, c)
	}
}

// pipe copies src to dst; either side ending ends both.
func (r *relay) pipe(dst, src net.Conn) {
	defer r.wg.Done()
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
	_ = src.Close()
	r.mu.Lock()
	delete(r.conns, dst)
	delete(r.conns, src)
	r.mu.Unlock()
}

// point relays the connections accepted from now on to addr ("": none)
// and drops the ones relayed so far.
func (r *relay) point(addr string) {
	r.mu.Lock()
	r.to = addr
	var old []net.Conn
	for c := range r.conns {
		old = append(old, c)
	}
	r.mu.Unlock()
	for _, c := range old {
		_ = c.Close()
	}
}

// close stops the relay and waits for its goroutines.
func (r *relay) close() {
	_ = r.ln.Close()
	r.point("")
	r.wg.Wait()
}

// client returns a client of the server, closed when the test ends.
func (s *redisServer) client(t testing.TB) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(s.url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis at %s: %v", s.url, err)
	}
	return c
}

// keyPrefix is a prefix of keys that no other test (or run of the suite
// on the same server) uses.
func keyPrefix(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "test-" + hex.EncodeToString(b[:]) + "-" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
}
