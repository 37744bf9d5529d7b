package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// evil is what a hostile service puts in every string the CLI prints: an
// OSC (window title), a clear screen, a fake line, a C1 CSI and a bidi
// override.
const evil = "\u001b]0;pwned\u0007\u001b[2J\r\nEVIL\u009b31m\u202e"

// unsafe matches what must never reach the terminal: ESC, BEL, CR and the
// other C0 controls but '\n' and '\t', DEL, C1, bidi controls.
var unsafe = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]")

// TestTerminalSafe runs list, get, send and a failing call against a
// service whose thread names, context keys, ids, roles, message text, tool
// names, streamed reply and error details all carry escape sequences: none
// reaches stdout or stderr, and the text around them still does.
func TestTerminalSafe(t *testing.T) {
	srv := threadstest.NewServer(t)
	ctx := context.Background()
	th, err := srv.Client().Threads.Create(ctx, threads.CreateThreadParams{
		ProjectID: srv.ProjectID, Name: "name" + evil, ContextKey: "key" + evil,
	})
	require.NoError(t, err)

	// A proxy in front of the fake makes every thread id and role evil
	// too (the fake names those itself), and answers one thread with a
	// problem whose detail is evil.
	evilJSON, _ := json.Marshal(evil)
	evilEsc := string(evilJSON[1 : len(evilJSON)-1])
	ids := regexp.MustCompile(`"(thr_[^"\\]*)"`)
	roles := regexp.MustCompile(`"role":"(assistant|user|tool)"`)
	target, _ := url.Parse(srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(r *http.Response) error {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return err
		}
		b = ids.ReplaceAll(b, []byte(`"${1}`+evilEsc+`"`))
		b = roles.ReplaceAll(b, []byte(`"role":"${1}`+evilEsc+`"`))
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		r.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/thr_problem") {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusForbidden)
			json.NewEncoder(w).Encode(map[string]any{"status": 403, "title": "Forbidden" + evil, "detail": "no" + evil})
			return
		}
		wholeBody(proxy).ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	t.Setenv(threads.EnvBaseURL, front.URL)
	t.Setenv(threads.EnvAPIKey, srv.APIKey)
	t.Setenv(threads.EnvAPIKeyHeader, "")
	t.Setenv("THREADS_PROJECT_ID", srv.ProjectID)

	cli := func(wantStatus int, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		status := run(args, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, interrupt: make(chan os.Signal)})
		assert.Equal(t, wantStatus, status, "%q: stderr %q", args, stderr.String())
		for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
			assert.NotRegexp(t, unsafe, out, "%q: %s", args, name)
			assert.NotContains(t, out, "pwned", "%q: %s: the OSC's text", args, name)
		}
		return stdout.String() + stderr.String()
	}

	out := cli(exitOK, "list", "--context-key", "key"+evil)
	assert.Contains(t, out, th.ID)
	assert.Contains(t, out, "name  EVIL")
	assert.Equal(t, 2, strings.Count(out, "\n"), "a header and one row: no fake line\n%s", out)

	srv.PushScript(threadstest.Script{Replies: []string{"hello" + evil, "bye" + evil}})
	out = cli(exitOK, "send", th.ID, "hi")
	assert.Contains(t, out, "hello\nEVIL")
	assert.Contains(t, out, "bye\nEVIL")

	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{{Name: "tool" + evil}}})
	cli(exitOK, "send", th.ID, "use the tool")

	out = cli(exitOK, "send", "--new", "hi"+evil) // the fake echoes the message
	assert.Contains(t, out, "[thread thr_")

	out = cli(exitOK, "get", th.ID)
	assert.Contains(t, out, "id           "+th.ID+"  EVIL")
	assert.Contains(t, out, "[calls tool tool  EVIL")
	assert.Contains(t, out, "assistant  EVIL: hello\nEVIL")

	cli(exitOK, "cancel", th.ID)
	cli(exitOK, "create", "--name", "x")

	out = cli(exitFailed, "get", "thr_problem")
	assert.Contains(t, out, "EVIL")
}
