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

// Issue 31: `threads v1-list --all` had no byte bound (`list --all` had):
// against a server whose every page is about 1 MiB of fresh threads with a
// fresh cursor, it read pages up to runs.MaxPages (1,000, some 1 GiB, all
// held) before failing. Now every --all stops at the same bound as
// `list --all` (64 MiB of page bodies) with a paging-limit error. The
// server answers 400 after 200 pages, so that the unbounded run fails
// fast.
func TestV1ListAllIsBounded(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		if n > 200 {
			http.Error(w, "enough", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteString(`{"threads":[`)
		for i := range 10 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"thr_%d.%d","name":%q,"runStatus":"idle","createdAt":"2026-11-24T05:28:11.912Z","updatedAt":"2026-11-24T05:28:11.912Z"}`, n, i, strings.Repeat("n", 100<<10))
		}
		fmt.Fprintf(&b, `],"nextCursor":"c%d","hasMore":true}`, n)
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	t.Setenv(threads.EnvBaseURL, srv.URL)
	t.Setenv(threads.EnvAPIKey, "sk_test_v1_list_all")
	t.Setenv(threads.EnvAPIKeyHeader, "")

	var stdout, stderr bytes.Buffer
	status := run([]string{"v1-list", "--user-key", "user-1", "--all", "--json"}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, interrupt: make(chan os.Signal)})
	assert.NotEqual(t, exitOK, status)
	assert.Contains(t, stderr.String(), "paging limit")
	assert.LessOrEqual(t, requests.Load(), int64(66), "pages of 1 MiB read")
}
