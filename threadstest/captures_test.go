package threadstest_test

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/threadstest"
)

// capture is one recorded exchange with the live service, as the files in
// testdata/captures-routes hold it (copied from the spec's captures).
type capture struct {
	method, path, reqBody string
	status                int
	contentType           string // the media type, without parameters
	body                  string
}

func readCapture(t *testing.T, name string) capture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "captures-routes", name+".txt"))
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	find := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i
			}
		}
		t.Fatalf("%s: no %q line", name, prefix)
		return 0
	}
	var c capture
	req := find("===== REQUEST")
	f := strings.Fields(lines[req+1])
	c.method, c.path = f[0], f[1]
	head := find("===== RESPONSE HEAD")
	i := req + 2
	for i < head && lines[i] != "" { // the request's headers
		i++
	}
	c.reqBody = strings.TrimSpace(strings.Join(lines[i:head], "\n"))
	c.status, err = strconv.Atoi(strings.Fields(lines[head+1])[1])
	require.NoError(t, err)
	for _, l := range lines[head+1 : find("===== RESPONSE BODY")] {
		if v, ok := strings.CutPrefix(l, "Content-Type: "); ok {
			c.contentType, _, err = mime.ParseMediaType(v)
			require.NoError(t, err)
		}
	}
	body := find("===== RESPONSE BODY")
	c.body = strings.Join(lines[body+1:find("===== END BODY")], "\n")
	return c
}

// replay sends the capture's request to srv, with the capture's ids
// replaced by the fake's (ids maps one to the other), and returns the
// fake's status, media type and body; the capture's body gets the same
// replacement, so the two compare as JSON.
func replay(t *testing.T, srv *threadstest.Server, c capture, ids map[string]string) (status int, contentType, body, want string) {
	t.Helper()
	swap := func(s string) string {
		for from, to := range ids {
			s = strings.ReplaceAll(s, from, to)
		}
		return s
	}
	req, err := http.NewRequestWithContext(t.Context(), c.method, srv.URL+swap(c.path), strings.NewReader(swap(c.reqBody)))
	require.NoError(t, err)
	req.Header.Set("x-api-key", srv.APIKey)
	if c.reqBody != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	contentType, _, err = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	require.NoError(t, err)
	return resp.StatusCode, contentType, string(b), swap(c.body)
}

// captureSetup makes a fake like the live deployment, a thread and (unless
// bare) one message on it, and maps the capture's ids to the fake's.
func captureSetup(t *testing.T, captureThread, captureMessage string, bare bool) (*threadstest.Server, map[string]string) {
	t.Helper()
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithLiveHabits())
	status, _, body := rawCall(t, srv, "POST", "/threads", `{"projectId":"`+srv.ProjectID+`"}`)
	require.Equal(t, 201, status, body)
	var th struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &th))
	ids := map[string]string{captureThread: th.ID, "p_0MDTL6rs.2f6789": srv.ProjectID}
	if !bare {
		status, _, body = rawCall(t, srv, "POST", "/threads/"+th.ID+"/messages", `{"role":"assistant","content":[{"type":"text","text":"hi"}]}`)
		require.Equal(t, 201, status, body)
		var m struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(body), &m))
		ids[captureMessage] = m.ID
	}
	return srv, ids
}

// The rows of issue 21 where the fake disagreed with the live service: each
// replays the capture's request and expects the capture's status, media type
// and body.
func TestCapturedErrorAnswers(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"07-get-suggestions-none-yet",             // 404 SUGGESTION_NOT_FOUND (was 200 [])
		"10-get-suggestions-unknown-message",      // 400 INVALID_SUGGESTION_REQUEST (was 404)
		"11-generate-suggestions-unknown-message", // 500 SUGGESTION_GENERATION_FAILED (was 404)
		"13-put-component-state-unknown-message",  // 500 (was 404)
		"15-generate-name-no-messages",            // 404 (was 201 "New conversation")
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := readCapture(t, name)
			captureThread := strings.Split(c.path, "/")[2]
			srv, ids := captureSetup(t, captureThread, "msg_BOuCO3Ka.93f81a", strings.Contains(name, "no-messages"))
			status, ct, body, want := replay(t, srv, c, ids)
			assert.Equal(t, c.status, status)
			assert.Equal(t, c.contentType, ct)
			assert.JSONEq(t, want, body)
		})
	}
}

// Capture 03: PUT /threads/{id} with a contextKey answers 200 and does not
// store it: the answer's contextKey is null, and the thread still lists
// under no contextKey.
func TestCapturedUpdateIgnoresContextKey(t *testing.T) {
	t.Parallel()
	c := readCapture(t, "03-update-thread-contextkey-ignored")
	require.Contains(t, c.reqBody, `"contextKey":"user-upd"`)
	srv, ids := captureSetup(t, "thr_xOQw1LE.a14146", "", true)
	status, ct, body, want := replay(t, srv, c, ids)
	assert.Equal(t, c.status, status)
	assert.Equal(t, c.contentType, ct)
	var got, live map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.NoError(t, json.Unmarshal([]byte(want), &live))
	for _, k := range []string{"id", "projectId", "contextKey", "runStatus", "currentRunId", "sdkVersion"} {
		assert.Contains(t, got, k)
		assert.Equal(t, live[k], got[k], k)
	}

	_, _, list := rawCall(t, srv, "GET", "/threads/project/"+srv.ProjectID, "")
	assert.Contains(t, list, ids["thr_xOQw1LE.a14146"], "still a thread without a contextKey")
	_, _, keyed := rawCall(t, srv, "GET", "/threads/project/"+srv.ProjectID+"?contextKey=user-upd", "")
	assert.NotContains(t, keyed, ids["thr_xOQw1LE.a14146"])
}
