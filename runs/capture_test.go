package runs_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
)

const testKey = "sk-test-runstream-5f1d0c"

// capture is one recorded exchange of runs/testdata/captures: the TCP
// reads of the response, exactly as they arrived (HTTP head and chunked
// framing included).
type capture struct {
	name   string
	reads  [][]byte
	create bool // a capture of POST /v1/threads/runs
}

func loadCapture(t testing.TB, num string) capture {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "captures", num+"-*.txt"))
	if len(files) != 1 {
		t.Fatalf("capture %s: %d files", num, len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	_, reads, ok := strings.Cut(string(b), "===== TCP READS")
	if !ok {
		t.Fatalf("%s: no TCP READS section", files[0])
	}
	c := capture{name: filepath.Base(files[0]), create: strings.Contains(string(b), "\nPOST /v1/threads/runs HTTP/1.1")}
	for _, line := range strings.Split(reads, "\n")[1:] {
		_, q, ok := strings.Cut(line, " bytes: ")
		if !ok {
			continue
		}
		var s string
		if err := json.Unmarshal([]byte(q), &s); err != nil {
			t.Fatalf("%s: %v", files[0], err)
		}
		c.reads = append(c.reads, []byte(s))
	}
	if len(c.reads) == 0 {
		t.Fatalf("%s: no reads", files[0])
	}
	// The replay serves one exchange per connection and then closes it, so
	// it must say so: with the recorded keep-alive, a client could send its
	// next request on the closing connection and find it reset (a DELETE
	// is not re-sent). The head arrived in the first read in every capture.
	head := c.reads[0]
	if i := bytes.Index(head, []byte("\r\n\r\n")); i >= 0 && bytes.Contains(head[:i], []byte("\r\nConnection: keep-alive\r\n")) {
		c.reads[0] = bytes.Replace(head, []byte("\r\nConnection: keep-alive\r\n"), []byte("\r\nConnection: close\r\n"), 1)
	} else if i < 0 {
		t.Fatalf("%s: the first read does not hold the whole head", files[0])
	}
	return c
}

// replay serves recorded responses, one per request in order, writing each
// recorded TCP read as one write on the raw connection, then closing it.
// It keeps what it received.
type replay struct {
	t        testing.TB
	ln       net.Listener
	URL      string
	mu       sync.Mutex
	queue    []capture
	requests []recorded
	wg       sync.WaitGroup
	// hold, when set, is called before each write after the first
	// (i is the read's index), so that a test can act mid-stream.
	hold func(i int)
}

type recorded struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

func newReplay(t testing.TB, caps ...capture) *replay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &replay{t: t, ln: ln, URL: "http://" + ln.Addr().String(), queue: caps}
	r.wg.Add(1)
	go r.serve()
	t.Cleanup(func() {
		ln.Close()
		r.wg.Wait()
	})
	return r
}

func (r *replay) serve() {
	defer r.wg.Done()
	for {
		conn, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer conn.Close()
			br := bufio.NewReader(conn)
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			body, _ := io.ReadAll(req.Body)
			r.mu.Lock()
			r.requests = append(r.requests, recorded{req.Method, req.URL.Path, req.URL.RawQuery, req.Header, body})
			if len(r.queue) == 0 {
				r.mu.Unlock()
				io.WriteString(conn, "HTTP/1.1 599 Nothing Queued\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
				return
			}
			c := r.queue[0]
			r.queue = r.queue[1:]
			hold := r.hold
			r.mu.Unlock()
			for i, b := range c.reads {
				if i > 0 && hold != nil {
					hold(i)
				}
				if _, err := conn.Write(b); err != nil {
					return
				}
			}
		}()
	}
}

func (r *replay) Requests() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.requests...)
}

// client returns a runs.Client for user-1 against url.
func client(t testing.TB, url string, opts ...threads.ClientOption) *runs.Client {
	t.Helper()
	c, err := threads.NewClient(append([]threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(url), threads.WithAPIKey(testKey), threads.WithMaxRetries(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return runs.New(c).ForUser("user-1")
}

// events reads s to its end and returns the events.
func events(s *runs.Stream) []runs.Event {
	var evs []runs.Event
	for s.Next() {
		evs = append(evs, s.Current())
	}
	return evs
}

func types(evs []runs.Event) string {
	var b strings.Builder
	for i, e := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.EventType())
		switch e := e.(type) {
		case runs.AwaitingInput:
			b.WriteString("(awaiting_input)")
		case runs.ComponentStart:
			b.WriteString("(component.start)")
		case runs.ComponentPropsDelta:
			b.WriteString("(props_delta)")
		case runs.ComponentEnd:
			b.WriteString("(component.end)")
		case runs.RunErrorEvent:
			b.WriteString("(" + e.Code + ")")
		}
	}
	return b.String()
}
