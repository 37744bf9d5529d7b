package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// v1-run shows the model's reasoning only with --reasoning: on stderr,
// or as "reasoning" lines with --json; stdout's reply never holds it.
func TestV1RunReasoning(t *testing.T) {
	srv := threadstest.Start()
	t.Cleanup(srv.Close)
	t.Setenv(threads.EnvBaseURL, srv.URL)
	t.Setenv(threads.EnvAPIKey, srv.APIKey)
	t.Setenv(threads.EnvAPIKeyHeader, "")
	v1Run := func(args ...string) (string, string) {
		t.Helper()
		srv.PushRunScript(threadstest.RunScript{Text: "Hello!", Reasoning: &threadstest.RunReasoning{Blocks: []string{"Greet back.", "Keep it short."}}})
		var stdout, stderr bytes.Buffer
		status := run(append([]string{"v1-run", "--user-key", "u"}, args...), &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, interrupt: make(chan os.Signal)})
		assert.Equal(t, exitOK, status, stderr.String())
		return stdout.String(), stderr.String()
	}

	out, errOut := v1Run("--new", "hi")
	assert.Equal(t, "Hello!\n", out)
	assert.NotContains(t, errOut, "Greet")

	out, errOut = v1Run("--new", "--reasoning", "hi")
	assert.Equal(t, "Hello!\n", out)
	assert.Regexp(t, `^thread thr_\S+ run run_\S+\nGreet back\.\nKeep it short\.\n$`, errOut)

	out, _ = v1Run("--new", "--json", "hi")
	assert.NotContains(t, out, `"reasoning"`)
	out, _ = v1Run("--new", "--json", "--reasoning", "hi")
	assert.Contains(t, out, `{"kind":"reasoning","delta":"Greet "}`+"\n")
	assert.Equal(t, 5, strings.Count(out, `"kind":"reasoning"`)) // one per word
	assert.Equal(t, 1, strings.Count(out, `"kind":"text"`))
}

// A 403 on a thread's route hints that the thread may be unknown or
// another end user's, whatever the thread's id: the route comes from the
// error, so an id that spells another route ("runs": GET
// /v1/threads/runs) is still a thread's.
func TestV1ForbiddenThreadHint(t *testing.T) {
	srv := threadstest.Start()
	t.Cleanup(srv.Close)
	t.Setenv(threads.EnvBaseURL, srv.URL)
	t.Setenv(threads.EnvAPIKey, srv.APIKey)
	t.Setenv(threads.EnvAPIKeyHeader, "")
	for _, id := range []string{"thr_unknown.1", "runs"} {
		var stdout, stderr bytes.Buffer
		status := run([]string{"v1-get", "--user-key", "u", id}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, interrupt: make(chan os.Signal)})
		assert.NotEqual(t, exitOK, status)
		assert.Contains(t, stderr.String(), "the thread may not exist or may belong to another end user", id)
	}
}

// A run that ends RUN_ERROR INTERNAL_ERROR while the thread says it was
// cancelled (a cancel from elsewhere that met its end, as live) is
// reported cancelled, exit 3; without that evidence it stays a failure,
// exit 1. Before, both were failures.
func TestV1RunReadsTheStoredCancel(t *testing.T) {
	srv := threadstest.Start()
	t.Cleanup(srv.Close)
	var storedCancelled atomic.Bool
	// The service's store after the race: the fake's thread, said
	// cancelled when the test wants it.
	up, _ := url.Parse(srv.URL)
	rp := httputil.NewSingleHostReverseProxy(up)
	rp.ModifyResponse = func(r *http.Response) error {
		if r.Request.Method != "GET" || !storedCancelled.Load() || strings.Count(strings.TrimPrefix(r.Request.URL.Path, "/v1/threads/"), "/") > 0 ||
			!strings.HasPrefix(r.Request.URL.Path, "/v1/threads/") {
			return nil
		}
		var th map[string]any
		if err := json.NewDecoder(r.Body).Decode(&th); err != nil {
			return err
		}
		r.Body.Close()
		th["lastRunCancelled"] = true
		b, _ := json.Marshal(th)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		r.Header.Del("Content-Length")
		return nil
	}
	front := httptest.NewServer(wholeBody(rp))
	t.Cleanup(front.Close)
	t.Setenv(threads.EnvBaseURL, front.URL)
	t.Setenv(threads.EnvAPIKey, srv.APIKey)
	t.Setenv(threads.EnvAPIKeyHeader, "")
	v1Run := func() (int, string) {
		srv.PushRunScript(threadstest.RunScript{Text: "a b", Error: &threadstest.RunFailure{Code: runs.CodeInternalError}, ErrorAfter: 3})
		var stdout, stderr bytes.Buffer
		status := run([]string{"v1-run", "--user-key", "u", "--new", "hi"}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, interrupt: make(chan os.Signal)})
		return status, stderr.String()
	}
	status, errOut := v1Run()
	assert.Equal(t, exitFailed, status, errOut)

	storedCancelled.Store(true)
	status, errOut = v1Run()
	assert.Equal(t, exitCancelled, status, errOut)
	assert.Contains(t, errOut, "was cancelled")
}

// wholeBody reads a request's body whole before h, an
// httputil.ReverseProxy, sends it on. Given the live body, the proxy's
// transport reads once more after the last byte to see EOF; when the
// upstream has answered first and the proxy has written the answer's
// head, net/http has drained and closed that body, the read fails, and the
// transport closes the connection the answer is streaming on (the proxy
// logs "read error during body copy: use of closed network connection";
// the client reads "unexpected EOF").
func wholeBody(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(w, r)
	})
}

// A run that ends with AG-UI's interrupt outcome is paused for a person's
// input, as one awaiting tools is: v1-run prints one line per interrupt
// (its id, reason and message; the tool call an approval is about), its
// --json end line says "interrupt" and carries them, and it exits 0.
// Before, it read as a plain finished run.
func TestV1RunShowsInterrupts(t *testing.T) {
	srv := threadstest.Start()
	t.Cleanup(srv.Close)
	t.Setenv(threads.EnvBaseURL, srv.URL)
	t.Setenv(threads.EnvAPIKey, srv.APIKey)
	t.Setenv(threads.EnvAPIKeyHeader, "")
	approval := runs.ApprovalInterrupt(threads.ApprovalRequest{Call: threads.ToolCall{ID: "call_7", Name: "refund", Arguments: map[string]any{"amount": 50}}}, time.Time{})
	v1Run := func(args ...string) (string, string) {
		t.Helper()
		srv.PushRunScript(threadstest.RunScript{Text: "I need to ask.", Interrupts: []threadstest.RunInterrupt{
			{Message: "Which account?\nSay it."},
			{ID: approval.ID, Reason: approval.Reason, Message: approval.Message, ToolCallID: approval.ToolCallID,
				ResponseSchema: approval.ResponseSchema, Metadata: approval.Metadata},
		}})
		var stdout, stderr bytes.Buffer
		status := run(append([]string{"v1-run", "--user-key", "u"}, args...), &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, interrupt: make(chan os.Signal)})
		assert.Equal(t, exitOK, status, stderr.String())
		return stdout.String(), stderr.String()
	}

	out, errOut := v1Run("--new", "refund me")
	assert.Equal(t, "I need to ask.\n"+
		"interrupt: int_1 input_required: Which account? Say it.\n"+
		`interrupt: approval:call_7 tool_call (tool call call_7 refund {"amount":50}): Approve the call of refund?`+"\n", out)
	assert.NotRegexp(t, `cancelled|failed`, errOut)

	out, _ = v1Run("--new", "--json", "refund me")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var end struct {
		Kind       string
		Outcome    string
		Interrupts []map[string]any
	}
	if assert.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &end)) {
		assert.Equal(t, "end", end.Kind)
		assert.Equal(t, "interrupt", end.Outcome)
		assert.Equal(t, []map[string]any{
			{"id": "int_1", "reason": "input_required", "message": "Which account?\nSay it."},
			{"id": "approval:call_7", "reason": "tool_call", "message": "Approve the call of refund?", "toolCallId": "call_7",
				"responseSchema": approval.ResponseSchema, "metadata": map[string]any{"tool": "refund", "arguments": map[string]any{"amount": float64(50)}}},
		}, end.Interrupts)
	}
	assert.NotContains(t, out, `"kind":"interrupt"`)
}
