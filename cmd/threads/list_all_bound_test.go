package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	threads "github.com/threadsapi/threads-go"
)

// `threads list --all` against a server that never sends an empty page
// (each page about 1 MB of fresh threads) stops at the SDK's paging bound
// with an error, instead of paging and holding threads without end
// (measured before: 1,931 pages in 8 s, RSS 624 MiB and growing).
func TestListAllIsBounded(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteByte('[')
		for i := range 10 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"thr_%d.a","name":%q}`, offset+i, strings.Repeat("n", 100<<10))
		}
		b.WriteByte(']')
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	t.Setenv(threads.EnvBaseURL, srv.URL)
	t.Setenv(threads.EnvAPIKey, "sk_test_list_all")
	t.Setenv(threads.EnvAPIKeyHeader, "")

	var stdout, stderr bytes.Buffer
	status := run([]string{"list", "--all", "--json"}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, interrupt: make(chan os.Signal)})
	assert.NotEqual(t, exitOK, status)
	assert.Contains(t, stderr.String(), "paging limit")
	assert.LessOrEqual(t, requests.Load()*10*(100<<10), int64(64<<20)+(20<<20))
}
