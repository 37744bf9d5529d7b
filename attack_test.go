package threads_test

// Holes found by attacking the SDK with hostile loopback servers after this
// round's merges; each test failed before its fix.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/redact"
)

const atkKey = "sk_test_ATTACKkey0123456789"

func atkClient(t *testing.T, url string, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	c, err := threads.NewClient(append([]threads.ClientOption{threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(url),
		threads.WithAPIKey(atkKey), threads.WithRetryWait(time.Millisecond, 2*time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	return c
}

// TestAttackToolRoundsErrorCleaned: the unanswered call's id and name come
// from the server; the error shows them on one short line, without the key.
func TestAttackToolRoundsErrorCleaned(t *testing.T) {
	t.Parallel()
	// As long as RunStream echoes (1 KiB): a longer id is refused before
	// the rounds are counted.
	id := "call\x1b]0;pwned\x07\x1b[2J\r\nFAKE LOG LINE " + atkKey + " " + strings.Repeat("A", 900)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		jid, _ := json.Marshal(id)
		fmt.Fprintf(w, "data: {\"responseMessageDto\":{\"id\":\"m\",\"threadId\":\"t\",\"role\":\"assistant\",\"content\":[],\"tool_call_id\":%s,\"toolCallRequest\":{\"toolName\":\"x\",\"parameters\":[]}},\"generationStage\":\"FETCHING_CONTEXT\"}\n\ndata: DONE\n\n", jid)
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	tool := threads.Tool{Name: "x", Call: func(context.Context, threads.ToolCall) (string, error) { return "ok", nil }}
	st, err := c.Threads.RunStream(context.Background(), "t", threads.AdvanceParams{Message: threads.UserMessage("hi")}, []threads.Tool{tool}, threads.WithMaxToolRounds(1))
	require.NoError(t, err)
	_, err = st.Collect()
	var tre *threads.ToolRoundsError
	require.ErrorAs(t, err, &tre)
	s := err.Error()
	assert.Less(t, len(s), 1024, "the error is cut short")
	assert.NotContains(t, s, "\x1b")
	assert.NotContains(t, s, "\r")
	assert.NotContains(t, s, "\n")
	assert.False(t, redact.Contains(s, atkKey), "the key is in %q", s)
	assert.Equal(t, id, tre.Call.ID, "the field keeps the id as sent")
}

// TestAttackListTurnHonoursContext: a caller waiting for another caller's
// slow first List leaves when its own context ends.
func TestAttackListTurnHonoursContext(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var arrived atomic.Bool
	first := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/threads" && arrived.CompareAndSwap(false, true) {
			close(first)
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[],"total":0}`)
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	done := make(chan error, 1)
	go func() {
		_, err := c.Threads.List(context.Background(), nil) // holds the turn on the server
		done <- err
	}()
	<-first
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Threads.List(ctx, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the second caller leaves with its own deadline")
	close(release)
	require.NoError(t, <-done)
}

// TestAttackKeyInServerSentPath: a project id that spells the key becomes a
// path; the error, the problem and the debug log show it redacted.
func TestAttackKeyInServerSentPath(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/threads":
			w.WriteHeader(404)
			io.WriteString(w, `{"statusCode":404,"message":"Cannot GET /threads","error":"Not Found"}`)
		case "/projects":
			fmt.Fprintf(w, `{"id":%q,"name":"p"}`, atkKey+"/x")
		default:
			w.WriteHeader(500)
			io.WriteString(w, `{"statusCode":500,"message":"boom"}`)
		}
	}))
	t.Cleanup(srv.Close)
	var logs bytes.Buffer
	c := atkClient(t, srv.URL, threads.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))), threads.WithMaxRetries(0))
	_, err := c.Threads.List(context.Background(), nil)
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, 500, p.Status)
	for what, s := range map[string]string{"error": err.Error(), "%#v": fmt.Sprintf("%#v", p), "%+v": fmt.Sprintf("%+v", p), "log": logs.String()} {
		assert.False(t, redact.Contains(s, atkKey) || strings.Contains(s, "sk_test_ATTACK"), "%s holds the key: %s", what, s)
	}
}

// TestAttackKeyAsHeaderName: the transport canonicalises header names, so
// a key echoed as a name, or echoed upper-cased, is matched whatever its
// case.
func TestAttackKeyAsHeaderName(t *testing.T) {
	t.Parallel()
	key := "sk-live-abcdefghijklmnop"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")] = []string{"1"}
		w.Header().Set("X-Echo", strings.ToUpper(r.Header.Get("Authorization")))
		w.WriteHeader(500)
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(key), threads.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "x")
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	s := strings.ToLower(fmt.Sprintf("%#v %v", p, p.Header))
	assert.NotContains(t, s, key)
}

// TestAttackProjectIDDots: "." and ".." never become path steps, whether
// the caller or the server names the project.
func TestAttackProjectIDDots(t *testing.T) {
	t.Parallel()
	var paths atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/threads":
			w.WriteHeader(404)
			io.WriteString(w, `{"statusCode":404,"message":"Cannot GET /threads","error":"Not Found"}`)
		case "/projects":
			io.WriteString(w, `{"id":"..","name":"p"}`)
		default:
			paths.Add(1)
			io.WriteString(w, `{"items":[],"total":0}`)
		}
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	_, err := c.Threads.List(context.Background(), &threads.ListParams{ProjectID: "."})
	assert.ErrorContains(t, err, "dot segment")
	_, err = c.Threads.List(context.Background(), nil)
	assert.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.Zero(t, paths.Load(), "no per-project request was sent")
}

// TestAttackRedirectWithShouldRetry: a 3xx to a write carrying
// x-should-retry is final: the write may have acted.
func TestAttackRedirectWithShouldRetry(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("X-Should-Retry", "true")
		w.WriteHeader(http.StatusNotModified)
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	_, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: "p"})
	assert.Error(t, err)
	assert.Equal(t, int32(1), n.Load(), "sent once")
	assert.False(t, errors.Is(err, context.DeadlineExceeded))
}
