package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The page gives a session; the stream relays the session user's run;
// the /v1 routes answer as that user; without the session, neither.
func TestWebapp(t *testing.T) {
	fake := threadstest.NewServer(t)
	var logged bytes.Buffer
	a, err := newApp(fake.Client(), log.New(&logged, "", 0))
	require.NoError(t, err)
	defer func() { require.NoError(t, a.v1.Shutdown(context.Background()), "detached runs ended") }()
	srv := httptest.NewServer(a)
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	defer browser.CloseIdleConnections()
	get := func(path string) (*http.Response, string) {
		resp, err := browser.Get(srv.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}

	resp, _ := get("/stream?q=hi")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "no session yet")
	resp, body := get("/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, "new EventSource(")
	assert.Contains(t, body, `/events?lastEventId=`, "the page resumes a detached run")
	assert.Contains(t, body, `fetch("/api/approvals/" + call.id`, "the page decides parked calls")

	resp, body = get("/stream?q=" + url.QueryEscape("hello there"))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Contains(t, body, `"type":"RUN_STARTED"`)
	assert.Contains(t, body, `"type":"RUN_FINISHED"`)
	assert.Contains(t, body, "id: ", "a detached run's events have ids")
	var text string
	for _, block := range strings.Split(body, "\n\n") {
		if i := strings.Index(block, `"delta":"`); i >= 0 {
			text += strings.SplitN(block[i+len(`"delta":"`):], `"`, 2)[0]
		}
	}
	assert.Equal(t, "You said: hello there", text)

	resp, body = get("/api/tambo/v1/threads?userKey=someone-else")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"userKey":"web-`, "the session's user")
	assert.NotContains(t, body, "someone-else")

	// The server-side tool is offered on a run of the official clients.
	run := `{"message":{"role":"user","content":[{"type":"text","text":"what time is it?"}]}}`
	req, _ := http.NewRequest("POST", srv.URL+"/api/tambo/v1/threads/runs", strings.NewReader(run))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err = browser.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(b))
	// The fake's model calls the first tool offered: send_gift_card,
	// which waits for approval.
	assert.Contains(t, string(b), `"name":"threads.approval.requested"`, "the page's prompt")
	assert.Contains(t, string(b), `"type":"interrupt"`, "AG-UI's interrupt")
	assert.Contains(t, string(b), "\nid: ", "a detached run's events carry ids")

	// A reload: the page resumes the run from its first event's id.
	runPath := "/api/tambo/v1/threads/" + resp.Header.Get("X-Thread-Id") + "/runs/" + resp.Header.Get("X-Run-Id") + "/events"
	resp, body = get(runPath + "?lastEventId=1")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, strings.SplitN(string(b), "id: 2\n", 2)[1], strings.SplitN(body, "id: 2\n", 2)[1], "every event after the first, as first sent")

	// The page's prompt: the user allows the call through the approval
	// API; the decision continues the run, which the page resumes.
	id := strings.SplitN(strings.SplitN(string(b), `"approvals":[{"id":"`, 2)[1], `"`, 2)[0]
	req, _ = http.NewRequest("POST", srv.URL+"/api/approvals/"+id, strings.NewReader(`{"approved":true}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err = browser.Do(req)
	require.NoError(t, err)
	var d struct{ Status, Result, RunID string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&d))
	resp.Body.Close()
	assert.Equal(t, "approved", d.Status)
	assert.Equal(t, "a gift card of 1.00 was sent", d.Result)
	require.NotEmpty(t, d.RunID)
	resp, body = get(strings.SplitN(runPath, "/runs/", 2)[0] + "/runs/" + d.RunID + "/events")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"type":"RUN_FINISHED"`)
	assert.Empty(t, logged.String())

	// Another site's page posting with the user's cookie starts nothing:
	// neither a JSON fetch (refused by its Sec-Fetch-Site or Origin) nor
	// a text/plain form or fetch that needs no preflight.
	before := len(fake.Requests())
	for _, hdr := range [][]string{
		{"Content-Type", "application/json", "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"},
		{"Content-Type", "application/json", "Origin", "https://evil.example"},
		{"Content-Type", "text/plain", "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"},
		{"Content-Type", "text/plain"},
	} {
		req, _ := http.NewRequest("POST", srv.URL+"/api/tambo/v1/threads/runs", strings.NewReader(run))
		for i := 0; i < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := browser.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Contains(t, []int{http.StatusForbidden, http.StatusUnsupportedMediaType}, resp.StatusCode, "%q", hdr)
	}
	assert.Len(t, fake.Requests(), before, "nothing reached the service")

	stranger := &http.Client{}
	resp, err = stranger.Get(srv.URL + "/api/tambo/v1/threads")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	stranger.CloseIdleConnections()
}

// run serves until its context ends, against the built-in fake when
// THREADS_BASE_URL is unset.
func TestRunBuiltInFake(t *testing.T) {
	t.Setenv(threads.EnvBaseURL, "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, "127.0.0.1:0", func(u string) {
			resp, err := http.Get(u + "/")
			if assert.NoError(t, err) {
				resp.Body.Close()
				assert.Equal(t, http.StatusOK, resp.StatusCode)
			}
			http.DefaultClient.CloseIdleConnections()
			cancel()
		})
	}()
	require.NoError(t, <-done)
}
