package threads_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestProblemShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, contentType string
		status            int
		sentinel          error
		want              threads.Problem
	}{
		{"live/problem-403-forbidden.json", "application/json; charset=utf-8", 403, threads.ErrForbidden,
			threads.Problem{Type: "about:blank", Title: "Forbidden", Detail: "Forbidden resource"}},
		{"live/problem-401-invalid-bearer.json", "application/json; charset=utf-8", 401, threads.ErrUnauthorized,
			threads.Problem{Type: "about:blank", Title: "Unauthorized", Detail: "Invalid bearer token"}},
		{"live/problem-404-cannot-get.json", "application/json; charset=utf-8", 404, threads.ErrNotFound,
			threads.Problem{Type: "about:blank", Title: "Not Found", Detail: "Cannot GET /threads"}},
		{"live/problem-400-list-message.json", "application/json; charset=utf-8", 400, threads.ErrBadRequest,
			threads.Problem{Type: "about:blank", Title: "Bad Request", Detail: "projectId must be a string"}},
		{"live/problem-400-string-message.json", "application/json; charset=utf-8", 400, threads.ErrBadRequest,
			threads.Problem{Type: "about:blank", Title: "Bad Request", Detail: "includeInternal is deprecated, if passed, it can only be `true`"}},
		// No "error" member: the title comes from the status.
		{"live/problem-500-internal.json", "application/json; charset=utf-8", 500, threads.ErrServer,
			threads.Problem{Type: "about:blank", Title: "Internal Server Error", Detail: "Internal server error"}},
		{"live/problem-404-not-found.problem.json", "application/problem+json; charset=utf-8", 404, threads.ErrNotFound,
			threads.Problem{Type: "https://docs.tambo.co/reference/problems/not-found", Title: "Not Found", Detail: "Thread not found",
				Instance: "/threads/thr_iSp004Xf.f4a5d7?contextKey=someone-else"}},
		// The 410 arrives as plain application/json: decided by the body, not the media type.
		{"live/problem-410-advance-by-id.json", "application/json; charset=utf-8", 410, threads.ErrEndpointDeprecated,
			threads.Problem{Type: "https://docs.tambo.co/reference/problems/endpoint-deprecated", Title: "Endpoint Deprecated",
				Detail:   "The non-streaming /:id/advance endpoint has been deprecated. Please use /:id/advancestream instead.",
				Code:     "ENDPOINT_DEPRECATED",
				Instance: "/threads/thr_iSp004Xf.f4a5d7/advance",
				Details:  map[string]any{"migrateToEndpoint": "POST /:id/advancestream"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			body := fixture(t, tt.file)
			srv := serveCanned(t, tt.status, tt.contentType, body)
			c := cannedClient(t, srv, threads.WithoutAutoMigrate())
			_, err := c.Threads.Get(context.Background(), "thr_iSp004Xf.f4a5d7")
			var p *threads.Problem
			require.ErrorAs(t, err, &p)
			assert.ErrorIs(t, err, tt.sentinel)
			assert.Equal(t, tt.status, p.Status)
			assert.Equal(t, tt.want.Type, p.Type)
			assert.Equal(t, tt.want.Title, p.Title)
			assert.Equal(t, tt.want.Detail, p.Detail)
			assert.Equal(t, tt.want.Code, p.Code)
			assert.Equal(t, tt.want.Instance, p.Instance)
			if tt.want.Details != nil {
				assert.Equal(t, tt.want.Details, p.Details)
			}
			assert.Equal(t, body, p.Body)
			assert.Equal(t, http.MethodGet, p.Method)
			assert.Equal(t, "/threads/thr_iSp004Xf.f4a5d7", p.Path)
			// The message names the call, the status and the detail.
			assert.Contains(t, err.Error(), "GET /threads/thr_iSp004Xf.f4a5d7")
			assert.Contains(t, err.Error(), tt.want.Detail)
		})
	}
}

func TestProblemFrameworkExtensions(t *testing.T) {
	t.Parallel()
	p := problemFrom(400, fixture(t, "live/problem-400-list-message.json"), "")
	assert.JSONEq(t, `["projectId must be a string"]`, string(p.Extensions["message"]))
	assert.JSONEq(t, `400`, string(p.Extensions["statusCode"]))
	assert.NotContains(t, p.Extensions, "type")
}

func TestProblemListJoined(t *testing.T) {
	t.Parallel()
	p := problemFrom(400, []byte(`{"statusCode":400,"message":["a must be set","b must be a string"],"error":"Bad Request"}`), "")
	assert.Equal(t, "a must be set; b must be a string", p.Detail)
}

func TestProblemNonJSON(t *testing.T) {
	t.Parallel()
	html := []byte("<html>\n<body><h1>502 Bad Gateway</h1>\n</body></html>")
	p := problemFrom(502, html, "")
	assert.Equal(t, "Bad Gateway", p.Title)
	assert.Equal(t, "about:blank", p.Type)
	assert.Equal(t, "<html> <body><h1>502 Bad Gateway</h1> </body></html>", p.Detail)
	assert.ErrorIs(t, p, threads.ErrServer)

	ctl := problemFrom(500, []byte("\x00\x00bad\x1b[31m gateway\r\n"), "")
	assert.Equal(t, "bad [31m gateway", ctl.Detail)

	long := problemFrom(503, []byte(strings.Repeat("é", 300)), "")
	assert.LessOrEqual(t, len(long.Detail), 204)
	assert.True(t, strings.HasSuffix(long.Detail, "…"))
	assert.NotContains(t, long.Detail, "\uFFFD")
}

func TestProblemURNTypeAndUnknownShape(t *testing.T) {
	t.Parallel()
	p := problemFrom(409, []byte(`{"type":"urn:tambo:error:concurrent_run","title":"Conflict","status":409,"code":"CONCURRENT_RUN","runId":"r1"}`), "")
	assert.Equal(t, "urn:tambo:error:concurrent_run", p.Type)
	assert.ErrorIs(t, p, threads.ErrConflict)
	assert.JSONEq(t, `"r1"`, string(p.Extensions["runId"]))

	for _, body := range []string{"", "null", "[]", `{"title":5}`, "{", `"text"`} {
		p := problemFrom(429, []byte(body), "")
		assert.Equal(t, "Too Many Requests", p.Title, body)
		assert.ErrorIs(t, p, threads.ErrRateLimited)
	}
}

func TestProblemNilAndSentinels(t *testing.T) {
	t.Parallel()
	var p *threads.Problem
	assert.Equal(t, "threads: <nil problem>", p.Error())
	assert.False(t, errors.Is(p, threads.ErrNotFound))
	_, ok := p.Deprecation()
	assert.False(t, ok)

	for status, sentinel := range map[int]error{400: threads.ErrBadRequest, 401: threads.ErrUnauthorized, 402: threads.ErrPaymentRequired,
		403: threads.ErrForbidden, 404: threads.ErrNotFound, 409: threads.ErrConflict, 429: threads.ErrRateLimited, 500: threads.ErrServer, 599: threads.ErrServer} {
		p := &threads.Problem{Status: status}
		assert.ErrorIs(t, p, sentinel, status)
		assert.NotErrorIs(t, p, threads.ErrEndpointDeprecated, status)
	}
	assert.NotErrorIs(t, &threads.Problem{Status: 501}, threads.ErrNotFound)
	assert.ErrorIs(t, &threads.Problem{Status: 410, Code: "ENDPOINT_DEPRECATED"}, threads.ErrEndpointDeprecated)
}

func TestProblemRedactsKey(t *testing.T) {
	t.Parallel()
	body := []byte(`{"statusCode":401,"message":"key ` + testKey + ` is not valid","error":"Unauthorized","echo":"` + testKey + `"}`)
	srv := serveCanned(t, 401, "application/json", body)
	c := cannedClient(t, srv)
	_, err := c.Threads.Get(context.Background(), "thr_1.a")
	require.Error(t, err)
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.NotContains(t, err.Error(), testKey)
	assert.NotContains(t, string(p.Body), testKey)
	assert.NotContains(t, string(p.Extensions["echo"]), testKey)
	assert.Contains(t, p.Detail, "[REDACTED]")
}

func TestProblemRequestIDAndCap(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 3*threads.MaxProblemBody)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_42")
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(500)
		io.WriteString(w, big)
	}))
	defer srv.Close()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL), threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Threads.Get(context.Background(), "thr_1.a")
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Len(t, p.Body, threads.MaxProblemBody)
	assert.Equal(t, "req_42", p.RequestID)
	assert.Equal(t, "about:blank", p.Type)
}

// TestProblemErrorIsOneCleanLine: CR, LF, ANSI escapes, other control and
// format characters from a JSON error never reach Error(), which is one
// line with each part capped; the fields keep what was sent.
func TestProblemErrorIsOneCleanLine(t *testing.T) {
	t.Parallel()
	title := "Bad\r\nInjected: yes\x1b[31mRED\x1b[0m\x1b]0;title\x07\x00\u202e\u2028x"
	detail := strings.Repeat("long detail \t", 4_000)
	body, _ := json.Marshal(map[string]any{"title": title, "detail": detail, "code": "C\nODE\u009b2J"})
	c := cannedResponseClient(t, hardKey, 400, http.Header{"Content-Type": {"application/json"}}, body)
	_, err := c.Threads.Get(context.Background(), "thr_1")
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	require.Equal(t, title, p.Title)
	msg := p.Error()
	t.Logf("%.200s", msg)
	for _, r := range msg {
		require.False(t, unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028', "%U in %q", r, msg)
	}
	require.NotContains(t, msg, "[31m")
	require.NotContains(t, msg, "title")
	require.Contains(t, msg, "Bad Injected: yes RED x")
	require.Less(t, utf8.RuneCountInString(msg), 1600)
	require.Equal(t, msg, fmt.Sprintf("%v", err))
}

func TestProblemErrorShowsRequestID(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	srv.Inject(threadstestFault(http.StatusBadRequest, "req_abc123"))
	_, err := c.Projects.Current(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(request id req_abc123)")
}

func threadstestFault(status int, reqID string) threadstest.Fault {
	return threadstest.Fault{Status: status, Header: http.Header{"X-Request-Id": {reqID}, "Content-Type": {"application/json"}},
		Body: `{"message":"bad","error":"Bad Request","statusCode":400}`}
}

// A Problem names the route that failed by its template, whatever its ids
// and the base URL's path, so that a caller (the command line's hint on a
// 403) tells a thread's route from the list without parsing paths.
func TestProblemNamesItsRoute(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	_, err := c.Threads.Get(context.Background(), "thr_unknown.v1")
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "/threads/{id}", p.Route)
	assert.Equal(t, "/threads/thr_unknown.v1", p.Path)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	c2, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL+"/api/v1/threads"), threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c2.Threads.Get(context.Background(), "runs")
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "/threads/{id}", p.Route, "a base URL path and an id that look like another route")
	assert.Equal(t, "/threads/runs", p.Path)
}
