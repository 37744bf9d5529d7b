package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// TestProxy runs "threads proxy" in-process in front of a fake: its stdout
// is one export line; a browser's request through it acts as the
// --user-key user whatever userKey it sends; CORS answers the allowed
// origin; SIGTERM stops it with status 0.
func TestProxy(t *testing.T) {
	fake := threadstest.NewServer(t)
	t.Setenv(threads.EnvBaseURL, fake.URL)
	t.Setenv(threads.EnvAPIKey, fake.APIKey)
	t.Setenv(threads.EnvAPIKeyHeader, "")
	t.Setenv(envUserKey, "")
	bobs, err := runs.New(fake.Client()).ForUser("bob").CreateThread(context.Background(), runs.CreateThreadParams{})
	require.NoError(t, err)

	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	interrupt := make(chan os.Signal, 1)
	status := make(chan int, 1)
	go func() {
		status <- run([]string{"proxy", "--user-key", "alice", "--allow-origin", "http://localhost:5173"},
			&env{stdin: strings.NewReader(""), stdout: outW, stderr: &stderr, interrupt: interrupt})
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	require.True(t, sc.Scan())
	line := sc.Text()
	require.Regexp(t, `^export THREADS_PROXY_URL=http://127\.0\.0\.1:\d+$`, line)
	base := strings.TrimPrefix(line, "export THREADS_PROXY_URL=")

	get := func(method, path, body string, hdr ...string) (*http.Response, string) {
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		require.NoError(t, err)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := get("POST", "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"thread":{"userKey":"bob"}}`,
		"X-Api-Key", "placeholder", "Origin", "http://localhost:5173", "Content-Type", "application/json")
	require.Equal(t, http.StatusCreated, resp.StatusCode, body)
	assert.Contains(t, body, `"delta":"hi"`)
	assert.Equal(t, "http://localhost:5173", resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "X-Run-Id")

	resp, body = get("GET", "/v1/threads?userKey=bob", "")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.NotContains(t, body, bobs.ID)
	assert.Contains(t, body, `"userKey":"alice"`)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), "no Origin, no CORS")

	resp, _ = get("OPTIONS", "/v1/threads", "", "Origin", "http://localhost:5173", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "content-type, x-api-key")
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, "content-type, x-api-key", resp.Header.Get("Access-Control-Allow-Headers"))
	resp, _ = get("OPTIONS", "/v1/threads", "", "Origin", "http://evil.example", "Access-Control-Request-Method", "POST")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "another origin gets no preflight")
	resp, _ = get("GET", "/projects", "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	interrupt <- syscall.SIGTERM
	assert.Equal(t, exitOK, <-status)
	rest, _ := io.ReadAll(outR)
	assert.Empty(t, rest, "only the export line goes to stdout")
	assert.Contains(t, stderr.String(), "as end user alice")
	assert.Contains(t, stderr.String(), "threads proxy: stopped")
	http.DefaultClient.CloseIdleConnections()
}

// TestProxyNeedsUser: without --user-key or $THREADS_USER_KEY the command
// is a usage error and listens nowhere.
func TestProxyNeedsUser(t *testing.T) {
	t.Setenv(envUserKey, "")
	var out, errOut bytes.Buffer
	code := run([]string{"proxy"}, &env{stdout: &out, stderr: &errOut, interrupt: make(chan os.Signal)})
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), "no end user")
}

// "threads proxy" serves /v1, where the key always travels in x-api-key:
// it offers no --api-key-header, which would do nothing there, as the
// v1-* commands do not.
func TestProxyHasNoKeyHeaderFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	status := run([]string{"proxy", "--help"}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
	assert.Equal(t, exitOK, status, stderr.String())
	assert.Contains(t, stdout.String(), "-user-key")
	assert.NotContains(t, stdout.String(), "api-key-header")
	// Refused as a usage error before anything starts (with the flag,
	// the command got as far as listening on the bad address).
	t.Setenv(threads.EnvBaseURL, "http://127.0.0.1:1")
	t.Setenv(threads.EnvAPIKey, "k")
	stdout.Reset()
	stderr.Reset()
	status = run([]string{"proxy", "--api-key-header", "x-api-key", "--user-key", "u", "--addr", "127.0.0.1:99999"},
		&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
	assert.Equal(t, exitUsage, status, stderr.String())
	assert.Contains(t, stderr.String(), "api-key-header")
}

// --allow-origin takes an origin and --allow-host host names: anything
// else (a path, a URL, a bare name as origin) is a usage error before it
// listens, not a rule that silently matches nothing.
func TestProxyRefusesBadAllowFlags(t *testing.T) {
	t.Setenv(threads.EnvBaseURL, "http://127.0.0.1:1")
	t.Setenv(threads.EnvAPIKey, "k")
	for _, args := range [][]string{
		{"--allow-origin", "http://localhost:5173/"},
		{"--allow-origin", "localhost:5173"},
		{"--allow-origin", "http://user@localhost:5173"},
		{"--allow-origin", "ftp://localhost"},
		{"--allow-host", "http://dev.example.test"},
		{"--allow-host", "dev.example.test/x"},
	} {
		var stdout, stderr bytes.Buffer
		status := run(append([]string{"proxy", "--user-key", "u"}, args...), &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
		assert.Equal(t, exitUsage, status, "%q: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), args[0])
		assert.Empty(t, stdout.String(), "%q: it did not listen", args)
	}
}
