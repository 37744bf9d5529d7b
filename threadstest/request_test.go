package threadstest_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/threadstest"
)

// TestOfferedParameterSchema: a tool parameter's "schema" member is kept
// as sent, and the default reply picks the argument from it when the
// parameter has no type or enum values of its own.
func TestOfferedParameterSchema(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithAPIKeyHeader("x-api-key"))
	body := `{"messageToAppend":{"role":"user","content":[{"type":"text","text":"hi"}]},"clientTools":[{"name":"pick","description":"d","parameters":[` +
		`{"name":"n","description":"a count","isRequired":true,"schema":{"type":"integer","minimum":1}},` +
		`{"name":"unit","description":"","isRequired":false,"schema":{"type":["string","null"],"enum":["C","F"]}}]}]}`
	status, _, stream := rawCall(t, srv, "POST", "/threads/advancestream", body)
	require.Equal(t, 201, status)
	assert.Contains(t, stream, `"toolCallRequest":{"toolName":"pick","parameters":[{"parameterName":"n","parameterValue":1},{"parameterName":"unit","parameterValue":"C"}]}`)

	a, err := srv.Requests()[0].Advance()
	require.NoError(t, err)
	require.Len(t, a.ClientTools, 1)
	ps := a.ClientTools[0].Parameters
	require.Len(t, ps, 2)
	assert.JSONEq(t, `{"type":"integer","minimum":1}`, string(ps[0].Schema))
	assert.Equal(t, "", ps[0].Type)
	assert.JSONEq(t, `{"type":["string","null"],"enum":["C","F"]}`, string(ps[1].Schema))
}

// The request log (issue 31): a request refused for its key is logged
// without its body, and the log keeps at most 64 MiB of bodies, headers
// and paths and at most 10,000 requests, forgetting the oldest. Before,
// every body was kept whole and forever: 16 refused 8 MiB POSTs held
// 128 MiB.
func TestRequestLogBounded(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithAPIKeyHeader("x-api-key"))
	c := srv.HTTPClient()
	post := func(key string, body []byte) int {
		req, err := http.NewRequest("POST", srv.URL+"/threads", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("x-api-key", key)
		resp, err := c.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	big := bytes.Repeat([]byte("x"), 8<<20)
	for range 16 {
		require.Equal(t, 403, post("wrong", big))
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 16)
	for _, r := range reqs {
		assert.Nil(t, r.Body, "a refused request's body is not kept")
		assert.Equal(t, "wrong", r.Header.Get("x-api-key"), "its headers are")
	}
	for range 9 {
		require.Equal(t, 400, post(srv.APIKey, big))
	}
	reqs = srv.Requests()
	kept := 0
	for _, r := range reqs {
		kept += len(r.Body)
	}
	assert.LessOrEqual(t, kept, 64<<20)
	assert.Len(t, reqs[len(reqs)-1].Body, 8<<20, "the newest is whole")
	assert.Equal(t, 7, srv.Count("POST", "/threads")-countWrong(reqs), "the two oldest keyed POSTs are forgotten")

	for range 10_000 {
		resp, err := c.Get(srv.URL + "/projects")
		require.NoError(t, err)
		resp.Body.Close()
	}
	assert.Len(t, srv.Requests(), 10_000)
	assert.Equal(t, 0, srv.Count("POST", "/threads"), "the oldest are forgotten first")
}

func countWrong(reqs []threadstest.Request) int {
	n := 0
	for _, r := range reqs {
		if r.Header.Get("x-api-key") == "wrong" {
			n++
		}
	}
	return n
}
