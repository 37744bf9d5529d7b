package threadstest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/threadstest"
)

// rawCall sends one request with the live key header and returns the
// status, content type and body.
func rawCall(t *testing.T, srv *threadstest.Server, method, path, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("x-api-key", srv.APIKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// The new routes' wire formats, as the official client sees them.
func TestThreadAndMessageRoutesWire(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithLiveHabits())
	status, _, body := rawCall(t, srv, "POST", "/threads", `{"projectId":"`+srv.ProjectID+`"}`)
	require.Equal(t, 201, status)
	var th struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &th))
	base := "/threads/" + th.ID

	status, _, body = rawCall(t, srv, "PUT", base, `{"projectId":"`+srv.ProjectID+`","name":"n"}`)
	assert.Equal(t, 200, status)
	assert.Contains(t, body, `"contextKey":null`)
	assert.Contains(t, body, `"runStatus":"idle"`)
	status, _, body = rawCall(t, srv, "PUT", base, `{"name":"n"}`)
	assert.Equal(t, 400, status)
	assert.JSONEq(t, `{"message":["projectId must be a string"],"error":"Bad Request","statusCode":400}`, body)

	status, _, body = rawCall(t, srv, "POST", base+"/messages", `{"role":"user","content":[{"type":"text","text":"Hi there"}]}`)
	require.Equal(t, 201, status)
	var m struct {
		ID             string
		ComponentState map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(body), &m))
	assert.NotNil(t, m.ComponentState)
	status, _, body = rawCall(t, srv, "POST", base+"/messages", `{"role":"bot"}`)
	assert.Equal(t, 400, status)
	assert.Contains(t, body, "content must be an array")
	status, _, _ = rawCall(t, srv, "POST", base+"/messages", `{"role":"tool","content":[]}`)
	assert.Equal(t, 500, status)

	status, _, body = rawCall(t, srv, "GET", base+"/messages", "")
	assert.Equal(t, 200, status)
	assert.True(t, strings.HasPrefix(body, "["), body)
	status, _, _ = rawCall(t, srv, "GET", base+"/messages?includeInternal=false", "")
	assert.Equal(t, 400, status)

	status, _, body = rawCall(t, srv, "POST", base+"/generate-name", "")
	assert.Equal(t, 201, status)
	assert.Contains(t, body, `"name":"Hi there"`)

	status, _, body = rawCall(t, srv, "POST", base+"/messages/"+m.ID+"/suggestions", `{"maxSuggestions":11}`)
	assert.Equal(t, 400, status)
	assert.Contains(t, body, "maxSuggestions must not be greater than 10")
	status, _, body = rawCall(t, srv, "POST", base+"/messages/"+m.ID+"/suggestions", `{}`)
	assert.Equal(t, 201, status)
	var sug []map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &sug))
	assert.Len(t, sug, 3)
	status, ct, body := rawCall(t, srv, "GET", base+"/messages/msg_nope.000000/suggestions", "")
	assert.Equal(t, 400, status)
	assert.Equal(t, "application/json; charset=utf-8", ct)
	assert.Contains(t, body, `"code":"INVALID_SUGGESTION_REQUEST"`)

	status, _, body = rawCall(t, srv, "PUT", base+"/messages/"+m.ID+"/component-state", `{"state":{"a":1}}`)
	assert.Equal(t, 200, status)
	assert.Contains(t, body, `"componentState":{"a":1}`)
	status, _, _ = rawCall(t, srv, "PUT", base+"/messages/"+m.ID+"/component-state", `{"state":3}`)
	assert.Equal(t, 400, status)

	status, _, body = rawCall(t, srv, "DELETE", base+"/messages/"+m.ID, "")
	assert.Equal(t, 200, status)
	assert.Empty(t, body)
	status, _, body = rawCall(t, srv, "DELETE", base, "")
	assert.Equal(t, 200, status)
	assert.Empty(t, body)

	// Gone, or never there: the thread guard's 403 on every route.
	for _, r := range [][2]string{{"PUT", base}, {"DELETE", base}, {"POST", base + "/generate-name"}, {"GET", base + "/messages"},
		{"POST", base + "/messages"}, {"DELETE", base + "/messages/x"}, {"GET", base + "/messages/x/suggestions"},
		{"POST", base + "/messages/x/suggestions"}, {"PUT", base + "/messages/x/component-state"}} {
		status, _, body = rawCall(t, srv, r[0], r[1], `{}`)
		assert.Equal(t, 403, status, r)
		assert.JSONEq(t, `{"message":"Forbidden resource","error":"Forbidden","statusCode":403}`, body, r)
	}
}
