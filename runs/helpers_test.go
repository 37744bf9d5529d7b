package runs

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	threads "github.com/threadsapi/threads-go"
)

// testKey is the API key of every test client.
const testKey = "test-key"

// newTestClient returns a Client for the server at base with no end
// user, through threads.NewClient and New: the real request core.
func newTestClient(t testing.TB, base string, opts ...threads.ClientOption) *Client {
	t.Helper()
	tc, err := threads.NewClient(append([]threads.ClientOption{
		threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(base), threads.WithAPIKey(testKey),
		threads.WithMaxRetries(0),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return New(tc)
}

// newStatic serves body with status to every request, as the service's
// JSON; it returns the base URL.
func newStatic(t testing.TB, status int, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// capture is one recorded exchange of testdata/captures (the live
// service's bytes, v1-api.md).
type capture struct {
	name string
	// The request the capture client sent.
	method, path string
	query        url.Values
	header       http.Header
	body         []byte
	// The answer.
	status     int
	respHeader http.Header
	respBody   []byte
}

func loadCapture(t testing.TB, name string) capture {
	t.Helper()
	return loadCaptureIn(t, "captures", name)
}

// loadCaptureIn loads capture name of testdata/dir ("captures-turn4").
func loadCaptureIn(t testing.TB, dir, name string) capture {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join("testdata", dir, name+"-*.txt"))
	if len(matches) != 1 {
		t.Fatalf("capture %s: %d files match", name, len(matches))
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	section := func(start, end string) string {
		i := strings.Index(s, start)
		if i < 0 {
			t.Fatalf("capture %s: no %q", name, start)
		}
		i += strings.Index(s[i:], "\n") + 1
		j := strings.Index(s[i:], end)
		if j < 0 {
			t.Fatalf("capture %s: no %q", name, end)
		}
		return s[i : i+j]
	}
	c := capture{name: filepath.Base(matches[0]), header: http.Header{}, respHeader: http.Header{}}

	req := section("===== REQUEST", "\n\n===== RESPONSE HEAD")
	head, body, _ := strings.Cut(req, "\n\n")
	lines := strings.Split(head, "\n")
	f := strings.Fields(lines[0])
	c.method = f[0]
	u, err := url.Parse(f[1])
	if err != nil {
		t.Fatal(err)
	}
	c.path, c.query = u.EscapedPath(), u.Query()
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ": ")
		c.header.Add(k, v)
	}
	if n, _ := strconv.Atoi(c.header.Get("Content-Length")); n > 0 {
		c.body = []byte(body[:n])
	}

	resp := section("===== RESPONSE HEAD", "\n\n===== RESPONSE BODY")
	lines = strings.Split(resp, "\n")
	c.status, _ = strconv.Atoi(strings.Fields(lines[0])[1])
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ": ")
		c.respHeader.Add(k, v)
	}
	c.respBody = []byte(section("===== RESPONSE BODY", "\n===== END BODY"))
	return c
}

// replayer is a server that answers the n-th request with the n-th
// capture's recorded status, headers and body, and keeps what it got.
type replayer struct {
	t    testing.TB
	caps []capture
	URL  string

	mu  sync.Mutex
	got []*http.Request
	// bodies of got
	bodies [][]byte
}

func replay(t testing.TB, names ...string) *replayer {
	t.Helper()
	r := &replayer{t: t}
	for _, n := range names {
		r.caps = append(r.caps, loadCapture(t, n))
	}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *replayer) serve(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	n := len(r.got)
	r.got = append(r.got, req)
	r.bodies = append(r.bodies, b)
	r.mu.Unlock()
	if n >= len(r.caps) {
		http.Error(w, "no more captures", http.StatusTeapot)
		return
	}
	c := r.caps[n]
	for k, vs := range c.respHeader {
		switch k {
		case "Content-Length", "Connection", "Keep-Alive", "Transfer-Encoding", "Date":
			continue
		}
		w.Header()[k] = vs
	}
	w.WriteHeader(c.status)
	w.Write(c.respBody)
}

// client returns a test Client for the replayer.
func (r *replayer) client() *Client { return newTestClient(r.t, r.URL) }

// requests returns how many requests arrived.
func (r *replayer) requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// check asserts that the SDK sent what each capture's client sent: the
// method, the path, the query (userKey where the route reads it), the key
// in x-api-key, the same Authorization, and the same body (JSON compared by
// value, a form by its values).
func (r *replayer) check() {
	t := r.t
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.got) != len(r.caps) {
		t.Fatalf("got %d requests, want %d", len(r.got), len(r.caps))
	}
	for i, c := range r.caps {
		req, body := r.got[i], r.bodies[i]
		if req.Method != c.method || req.URL.EscapedPath() != c.path {
			t.Errorf("%s: sent %s %s, want %s %s", c.name, req.Method, req.URL.EscapedPath(), c.method, c.path)
		}
		if q := req.URL.Query(); !reflect.DeepEqual(q, c.query) && !(len(q) == 0 && len(c.query) == 0) {
			t.Errorf("%s: query %v, want %v", c.name, q, c.query)
		}
		if got := req.Header.Get("X-Api-Key"); got != testKey {
			t.Errorf("%s: x-api-key %q, want the key", c.name, got)
		}
		if got, want := req.Header.Get("Authorization"), c.header.Get("Authorization"); got != want {
			t.Errorf("%s: Authorization %q, want %q", c.name, got, want)
		}
		switch ct := c.header.Get("Content-Type"); {
		case len(c.body) == 0:
			if len(body) != 0 {
				t.Errorf("%s: sent body %s, want none", c.name, body)
			}
		case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
			// A form goes as the official clients send it: the same bytes,
			// the same content type.
			if got := req.Header.Get("Content-Type"); got != ct || !bytes.Equal(body, c.body) {
				t.Errorf("%s: sent %q %s, want %q %s", c.name, got, body, ct, c.body)
			}
		default:
			if !jsonEqual(body, c.body) {
				t.Errorf("%s: sent body %s, want %s", c.name, body, c.body)
			}
		}
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

func TestLoadCapture(t *testing.T) {
	c := loadCapture(t, "01")
	if c.method != "POST" || c.path != "/v1/threads" || string(c.body) != `{"userKey":"user-1"}` || c.status != 201 ||
		!strings.HasPrefix(string(c.respBody), `{"id":"thr_whwbaaBG.9b41b2"`) || !strings.HasSuffix(string(c.respBody), `"}`) {
		t.Fatalf("%+v", c)
	}
	if c := loadCapture(t, "22"); c.status != 204 || len(c.respBody) != 0 {
		t.Fatalf("22: %d %q", c.status, c.respBody)
	}
	if c := loadCapture(t, "08"); c.query.Get("cursor") == "" || c.query.Get("limit") != "2" {
		t.Fatalf("08: %v", c.query)
	}
}
