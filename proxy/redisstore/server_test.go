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
	url  string
	port int
	mu   sync.Mutex
	proc *exec.Cmd
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

// stop kills the server process (by its PID) and waits for it.
func (s *redisServer) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	_ = s.proc.Process.Kill()
	_ = s.proc.Wait()
	s.proc = nil
}

// restart starts the server again on its port, empty.
func (s *redisServer) restart(t *testing.T) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
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
