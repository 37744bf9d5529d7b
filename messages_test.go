package threads_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// newThreadWithReply creates a thread on the fake and streams one reply, so
// it holds a user message and an assistant message.
func newThreadWithReply(t *testing.T, c *threads.Client, srv *threadstest.Server, text string) (*threads.Thread, []threads.Message) {
	t.Helper()
	ctx := context.Background()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	s, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage(text)})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)
	msgs, err := c.Messages.List(ctx, th.ID)
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	return th, msgs
}

func TestUpdateThread(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "before", Metadata: map[string]any{"a": "1"}})
	require.NoError(t, err)

	got, err := c.Threads.Update(ctx, th.ID, threads.UpdateThreadParams{ProjectID: srv.ProjectID, Name: "after"})
	require.NoError(t, err)
	assert.Equal(t, th.ID, got.ID)
	assert.Equal(t, "after", got.Name)
	assert.Equal(t, map[string]any{"a": "1"}, got.Metadata, "a field left out keeps its value")
	assert.False(t, got.UpdatedAt.Before(th.UpdatedAt))

	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	assert.Equal(t, http.MethodPut, last.Method)
	assert.Equal(t, "/threads/"+th.ID, last.Path)
	assert.JSONEq(t, `{"projectId":"`+srv.ProjectID+`","name":"after"}`, string(last.Body))
	assert.Equal(t, "application/json", last.Header.Get("Content-Type"))

	read, err := c.Threads.Get(ctx, th.ID)
	require.NoError(t, err)
	assert.Equal(t, "after", read.Name)
}

// The live PUT answer spreads the database row: contextKey null, the v1
// columns with nulls. It decodes.
func TestUpdateDecodesTheRawRow(t *testing.T) {
	t.Parallel()
	body := `{"id":"thr_iSp004Xf.f4a5d7","projectId":"p_DSr8JxVP.57a223","name":"renamed","contextKey":null,` +
		`"metadata":null,"generationStage":"COMPLETE","statusMessage":"Complete","runStatus":"idle","currentRunId":null,` +
		`"lastRunCancelled":null,"lastRunError":null,"pendingToolCallIds":null,"lastCompletedRunId":null,"sdkVersion":null,` +
		`"createdAt":"2026-11-21T23:57:40.061Z","updatedAt":"2026-11-21T23:58:01.500Z"}`
	srv := serveCanned(t, 200, "application/json; charset=utf-8", []byte(body))
	c := cannedClient(t, srv)
	got, err := c.Threads.Update(context.Background(), "thr_iSp004Xf.f4a5d7", threads.UpdateThreadParams{ProjectID: "p_DSr8JxVP.57a223", Name: "renamed"})
	require.NoError(t, err)
	assert.Equal(t, "renamed", got.Name)
	assert.Equal(t, "", got.ContextKey)
	assert.Nil(t, got.Metadata)
	assert.Equal(t, threads.GenerationStageComplete, got.GenerationStage)
	assert.Equal(t, "/threads/thr_iSp004Xf.f4a5d7", srv.requests()[0].Path)
}

func TestDeleteThread(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	th, _ := newThreadWithReply(t, c, srv, "bye")
	require.NoError(t, c.Threads.Delete(ctx, th.ID))
	assert.Equal(t, 0, len(srv.ThreadIDs()))

	// Gone: the thread guard refuses the id, as for any unknown thread.
	err := c.Threads.Delete(ctx, th.ID)
	assert.ErrorIs(t, err, threads.ErrForbidden)
	_, err = c.Threads.Get(ctx, th.ID)
	assert.ErrorIs(t, err, threads.ErrForbidden)
}

// A DELETE answered 200 with a JSON body (the deleted row) or with nothing
// both succeed: the body is not read.
func TestDeleteIgnoresTheBody(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", fixtureString(t, "live/create.json"), "not json"} {
		srv := serveCanned(t, 200, "application/json; charset=utf-8", []byte(body))
		c := cannedClient(t, srv)
		require.NoError(t, c.Threads.Delete(context.Background(), "thr_1.a"))
		require.NoError(t, c.Messages.Delete(context.Background(), "thr_1.a", "msg_2.b"))
		reqs := srv.requests()
		assert.Equal(t, http.MethodDelete, reqs[0].Method)
		assert.Equal(t, "/threads/thr_1.a", reqs[0].Path)
		assert.Equal(t, "/threads/thr_1.a/messages/msg_2.b", reqs[1].Path)
		assert.Empty(t, reqs[0].Body)
	}
}

func fixtureString(t *testing.T, name string) string { return string(fixture(t, name)) }

func TestGenerateName(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	th, _ := newThreadWithReply(t, c, srv, "Plan a trip to Lisbon in the spring with two kids")
	got, err := c.Threads.GenerateName(ctx, th.ID)
	require.NoError(t, err)
	assert.Equal(t, "Plan a trip to Lisbon in the spring wit…", got.Name)

	// The context key goes in the query; a mismatch is the service's 404.
	_, err = c.Threads.GenerateName(ctx, th.ID, threads.WithQuery("contextKey", "someone-else"))
	assert.ErrorIs(t, err, threads.ErrNotFound)
	reqs := srv.Requests()
	assert.Equal(t, "someone-else", reqs[len(reqs)-1].Query.Get("contextKey"))
	assert.Equal(t, "/threads/"+th.ID+"/generate-name", reqs[len(reqs)-1].Path)
	assert.Empty(t, reqs[len(reqs)-1].Body)

	// A thread without messages: the live 404 (capture 15).
	empty, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	_, err = c.Threads.GenerateName(ctx, empty.ID)
	assert.ErrorIs(t, err, threads.ErrNotFound)
}

// The recorded thread (capture 06) decodes as a generate-name answer.
func TestGenerateNameRecorded(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 201, "application/json; charset=utf-8", fixture(t, "live/create-name-metadata.json"))
	c := cannedClient(t, srv)
	got, err := c.Threads.GenerateName(context.Background(), "thr_131ejL.936f4e")
	require.NoError(t, err)
	assert.Equal(t, "second", got.Name)
	assert.Equal(t, "p_DSr8JxVP.57a223", got.ProjectID)
	assert.Equal(t, http.MethodPost, srv.requests()[0].Method)
}

func TestMessagesListAndCreate(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	th, msgs := newThreadWithReply(t, c, srv, "hi")
	assert.Equal(t, threads.RoleUser, msgs[0].Role)
	assert.Equal(t, "hi", msgs[0].Text())
	assert.Equal(t, threads.RoleAssistant, msgs[1].Role)
	assert.Equal(t, "You said: hi", msgs[1].Text())

	m, err := c.Messages.Create(ctx, th.ID, threads.MessageRequest{
		Role: threads.RoleUser, Content: []threads.ContentPart{{Type: threads.ContentPartTypeText, Text: "noted"}},
		Metadata: map[string]any{"source": "test"},
	})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(m.ID, "msg_"), m.ID)
	assert.Equal(t, th.ID, m.ThreadID)
	assert.Equal(t, "noted", m.Text())
	assert.Equal(t, map[string]any{"source": "test"}, m.Metadata)
	assert.False(t, m.CreatedAt.IsZero())

	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	assert.Equal(t, "/threads/"+th.ID+"/messages", last.Path)
	assert.JSONEq(t, `{"role":"user","content":[{"type":"text","text":"noted"}],"metadata":{"source":"test"}}`, string(last.Body))

	all, err := c.Messages.List(ctx, th.ID)
	require.NoError(t, err)
	require.Len(t, all, 3)
	assert.Equal(t, m.ID, all[2].ID)

	// A message with no content sends content:[] (the field is required).
	_, err = c.Messages.Create(ctx, th.ID, threads.MessageRequest{Role: threads.RoleUser})
	require.NoError(t, err)
	reqs = srv.Requests()
	assert.JSONEq(t, `{"role":"user","content":[]}`, string(reqs[len(reqs)-1].Body))
}

// The recorded messages of capture 16 decode as a messages list.
func TestMessagesListRecorded(t *testing.T) {
	t.Parallel()
	var thread struct {
		Messages json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(fixture(t, "live/get-with-messages.json"), &thread))
	srv := serveCanned(t, 200, "application/json; charset=utf-8", thread.Messages)
	c := cannedClient(t, srv)
	msgs, err := c.Messages.List(context.Background(), "thr_iSp004Xf.f4a5d7")
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	assert.Equal(t, "msg_eP3dsaSj.f8330a", msgs[0].ID)
	assert.Equal(t, threads.RoleUser, msgs[0].Role)
	assert.Equal(t, "Hello from the fake model.", msgs[1].Text())
	require.NotNil(t, msgs[1].Component)
	r := srv.requests()[0]
	assert.Equal(t, "/threads/thr_iSp004Xf.f4a5d7/messages", r.Path)
	assert.Empty(t, r.RawQuery)
}

func TestMessagesCreateChecksBeforeSending(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	_, err := c.Messages.Create(ctx, "thr_1.a", threads.MessageRequest{})
	assert.ErrorContains(t, err, "Role is empty")
	_, err = c.Messages.Create(ctx, "thr_1.a", threads.MessageRequest{Role: threads.RoleTool})
	assert.ErrorContains(t, err, "ToolCallID")
	assert.Empty(t, srv.Requests())
}

func TestMessagesDelete(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	th, msgs := newThreadWithReply(t, c, srv, "hi")
	require.NoError(t, c.Messages.Delete(ctx, th.ID, msgs[0].ID))
	left, err := c.Messages.List(ctx, th.ID)
	require.NoError(t, err)
	require.Len(t, left, 1)
	assert.Equal(t, msgs[1].ID, left[0].ID)
}

func TestSuggestions(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	th, msgs := newThreadWithReply(t, c, srv, "hi")
	reply := msgs[1]

	// None generated yet: the live 404 SUGGESTION_NOT_FOUND (capture 07).
	_, err := c.Messages.Suggestions(ctx, th.ID, reply.ID)
	var p *threads.Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "SUGGESTION_NOT_FOUND", p.Code)
	assert.ErrorIs(t, err, threads.ErrNotFound)

	got, err := c.Messages.GenerateSuggestions(ctx, th.ID, reply.ID, threads.GenerateSuggestionsParams{MaxSuggestions: 2})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "Tell me more", got[0].Title)
	assert.Equal(t, "Tell me more (re: You said: hi)", got[0].DetailedSuggestion)
	assert.Equal(t, got[0].DetailedSuggestion, got[0].Description)
	assert.Equal(t, reply.ID, got[0].MessageID)
	assert.Equal(t, "Give an example", got[1].Title)
	reqs := srv.Requests()
	assert.JSONEq(t, `{"maxSuggestions":2}`, string(reqs[len(reqs)-1].Body))

	// The zero params send {} and get the service's default of 3.
	more, err := c.Messages.GenerateSuggestions(ctx, th.ID, reply.ID, threads.GenerateSuggestionsParams{})
	require.NoError(t, err)
	assert.Len(t, more, 3)
	reqs = srv.Requests()
	assert.JSONEq(t, `{}`, string(reqs[len(reqs)-1].Body))

	stored, err := c.Messages.Suggestions(ctx, th.ID, reply.ID)
	require.NoError(t, err)
	assert.Len(t, stored, 5)

	// An unknown message: 400 INVALID_SUGGESTION_REQUEST to read (capture
	// 10), 500 SUGGESTION_GENERATION_FAILED to generate (capture 11).
	_, err = c.Messages.Suggestions(ctx, th.ID, "msg_nope.000000")
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "INVALID_SUGGESTION_REQUEST", p.Code)
	assert.ErrorIs(t, err, threads.ErrBadRequest)
	_, err = c.Messages.GenerateSuggestions(ctx, th.ID, "msg_nope.000000", threads.GenerateSuggestionsParams{})
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "SUGGESTION_GENERATION_FAILED", p.Code)
	assert.ErrorIs(t, err, threads.ErrServer)

	_, err = c.Messages.GenerateSuggestions(ctx, th.ID, reply.ID, threads.GenerateSuggestionsParams{MaxSuggestions: 11})
	assert.ErrorContains(t, err, "MaxSuggestions")
}

func TestUpdateComponentState(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	th, msgs := newThreadWithReply(t, c, srv, "hi")
	m, err := c.Messages.UpdateComponentState(ctx, th.ID, msgs[1].ID, threads.UpdateComponentStateParams{State: map[string]any{"count": 2.0}})
	require.NoError(t, err)
	assert.Equal(t, msgs[1].ID, m.ID)
	assert.Equal(t, map[string]any{"count": 2.0}, m.ComponentState)
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	assert.Equal(t, http.MethodPut, last.Method)
	assert.Equal(t, "/threads/"+th.ID+"/messages/"+msgs[1].ID+"/component-state", last.Path)
	assert.JSONEq(t, `{"state":{"count":2}}`, string(last.Body))

	read, err := c.Threads.Get(ctx, th.ID)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"count": 2.0}, read.Messages[1].ComponentState)

	// nil sends an empty state, not null.
	_, err = c.Messages.UpdateComponentState(ctx, th.ID, msgs[1].ID, threads.UpdateComponentStateParams{})
	require.NoError(t, err)
	reqs = srv.Requests()
	assert.JSONEq(t, `{"state":{}}`, string(reqs[len(reqs)-1].Body))

	// An unknown message: the live 500 (capture 13).
	_, err = c.Messages.UpdateComponentState(ctx, th.ID, "msg_nope.000000", threads.UpdateComponentStateParams{})
	assert.ErrorIs(t, err, threads.ErrServer)
}

// op is one new call, made on a thread and message of the fake.
type op struct {
	name   string
	method string
	path   func(thread, msg string) string
	call   func(c *threads.Client, thread, msg string) error
}

func newOps() []op {
	ctx := context.Background()
	threadPath := func(suffix string) func(string, string) string {
		return func(th, _ string) string { return "/threads/" + th + suffix }
	}
	msgPath := func(suffix string) func(string, string) string {
		return func(th, m string) string { return "/threads/" + th + "/messages/" + m + suffix }
	}
	return []op{
		{"Threads.Update", http.MethodPut, threadPath(""), func(c *threads.Client, th, _ string) error {
			_, err := c.Threads.Update(ctx, th, threads.UpdateThreadParams{ProjectID: "p_FakeProj.c0ffee", Name: "x"})
			return err
		}},
		{"Threads.GenerateName", http.MethodPost, threadPath("/generate-name"), func(c *threads.Client, th, _ string) error {
			_, err := c.Threads.GenerateName(ctx, th)
			return err
		}},
		{"Messages.List", http.MethodGet, threadPath("/messages"), func(c *threads.Client, th, _ string) error {
			_, err := c.Messages.List(ctx, th)
			return err
		}},
		{"Messages.Create", http.MethodPost, threadPath("/messages"), func(c *threads.Client, th, _ string) error {
			_, err := c.Messages.Create(ctx, th, threads.UserMessage("more"))
			return err
		}},
		{"Messages.Suggestions", http.MethodGet, msgPath("/suggestions"), func(c *threads.Client, th, m string) error {
			_, err := c.Messages.Suggestions(ctx, th, m)
			return err
		}},
		{"Messages.GenerateSuggestions", http.MethodPost, msgPath("/suggestions"), func(c *threads.Client, th, m string) error {
			_, err := c.Messages.GenerateSuggestions(ctx, th, m, threads.GenerateSuggestionsParams{})
			return err
		}},
		{"Messages.UpdateComponentState", http.MethodPut, msgPath("/component-state"), func(c *threads.Client, th, m string) error {
			_, err := c.Messages.UpdateComponentState(ctx, th, m, threads.UpdateComponentStateParams{State: map[string]any{"k": "v"}})
			return err
		}},
		{"Messages.Delete", http.MethodDelete, msgPath(""), func(c *threads.Client, th, m string) error {
			return c.Messages.Delete(ctx, th, m)
		}},
		{"Threads.Delete", http.MethodDelete, threadPath(""), func(c *threads.Client, th, _ string) error {
			return c.Threads.Delete(ctx, th)
		}},
	}
}

// Every new call on a thread outside the project (or unknown) is the
// guard's 403, read as a *Problem in the framework shape. The client got
// through once before, so the 403 is about the thread and the key is not
// sent again in x-api-key (auth_fallback_test.go covers a first call).
func TestNewCallsUnknownThreadForbidden(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	_, err := c.Projects.Current(context.Background())
	require.NoError(t, err)
	for _, o := range newOps() {
		err := o.call(c, "thr_Unknown1.abcdef", "msg_Unknown1.abcdef")
		var p *threads.Problem
		require.ErrorAs(t, err, &p, o.name)
		assert.Equal(t, 403, p.Status, o.name)
		assert.Equal(t, "Forbidden resource", p.Detail, o.name)
		assert.ErrorIs(t, err, threads.ErrForbidden, o.name)
		assert.Equal(t, 1, srv.Count(o.method, o.path("thr_Unknown1.abcdef", "msg_Unknown1.abcdef")), "%s: a 403 is not retried", o.name)
	}
}

// The recorded 403 body (capture 14) on a canned server, for every new call.
func TestNewCallsRecordedForbidden(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 403, "application/json; charset=utf-8", fixture(t, "live/problem-403-forbidden.json"))
	c := cannedClient(t, srv, threads.WithAPIKeyHeader("x-api-key"))
	for _, o := range newOps() {
		err := o.call(c, "thr_iSp004Xf.f4a5d7", "msg_eP3dsaSj.f8330a")
		assert.ErrorIs(t, err, threads.ErrForbidden, o.name)
		var p *threads.Problem
		require.ErrorAs(t, err, &p)
		assert.Equal(t, "Forbidden", p.Title)
	}
	reqs := srv.requests()
	require.Len(t, reqs, len(newOps()))
	for i, o := range newOps() {
		assert.Equal(t, o.method, reqs[i].Method, o.name)
		assert.Equal(t, o.path("thr_iSp004Xf.f4a5d7", "msg_eP3dsaSj.f8330a"), reqs[i].Path, o.name)
		assert.Equal(t, testKey, reqs[i].Header.Get("x-api-key"), o.name)
	}
}

// Retries by method: a 503 is retried by every call (the service did not
// act); a 500 only by the GETs, since a PUT, POST or DELETE that failed
// with 500 may have acted.
func TestNewCallsRetries(t *testing.T) {
	t.Parallel()
	for _, o := range newOps() {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			c, srv := setup(t)
			th, msgs := newThreadWithReply(t, c, srv, "hi")
			path := o.path(th.ID, msgs[1].ID)
			if o.name == "Messages.Suggestions" {
				// Reading suggestions before any were generated is the
				// service's 404 (capture 07).
				_, err := c.Messages.GenerateSuggestions(context.Background(), th.ID, msgs[1].ID, threads.GenerateSuggestionsParams{})
				require.NoError(t, err)
			}

			before := srv.Count(o.method, path)
			srv.Inject(threadstest.Fault{Method: o.method, Path: path, Status: 503, Body: "busy"})
			require.NoError(t, o.call(c, th.ID, msgs[1].ID))
			assert.Equal(t, before+2, srv.Count(o.method, path), "503 retried")

			if o.method == http.MethodDelete {
				// Nothing left to act on; the 500 case needs a fresh thread.
				th, msgs = newThreadWithReply(t, c, srv, "again")
				path = o.path(th.ID, msgs[1].ID)
			}
			before = srv.Count(o.method, path)
			srv.Inject(threadstest.Fault{Method: o.method, Path: path, Status: 500, Body: `{"statusCode":500,"message":"Internal server error"}`,
				Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}})
			err := o.call(c, th.ID, msgs[1].ID)
			if o.method == http.MethodGet {
				require.NoError(t, err)
				assert.Equal(t, before+2, srv.Count(o.method, path), "a GET retries 500")
				return
			}
			assert.ErrorIs(t, err, threads.ErrServer)
			assert.Equal(t, before+1, srv.Count(o.method, path), "not retried: it may have acted")
		})
	}
}

// A connection reset after the request acted is never retried by a call
// that is not a GET: the message is stored once.
func TestMessagesCreateNotRepeated(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	th, _ := newThreadWithReply(t, c, srv, "hi")
	srv.Inject(threadstest.Fault{Method: http.MethodPost, Path: "/threads/" + th.ID + "/messages", ActThenReset: true})
	_, err := c.Messages.Create(context.Background(), th.ID, threads.UserMessage("once"))
	require.Error(t, err)
	msgs, err := c.Messages.List(context.Background(), th.ID)
	require.NoError(t, err)
	assert.Len(t, msgs, 3, "stored once, not retried")
}

func TestNewCallsRefuseEmptyIDs(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	for _, o := range newOps() {
		for _, ids := range [][2]string{{"", "msg_1.a"}, {"  ", "msg_1.a"}} {
			err := o.call(c, ids[0], ids[1])
			require.Error(t, err, o.name)
			assert.Regexp(t, `empty thread id|thread id .* is only white space`, err.Error(), o.name)
		}
		if strings.Contains(o.path("t", "MSG"), "MSG") {
			err := o.call(c, "thr_1.a", "\t")
			assert.ErrorContains(t, err, "is only white space", o.name)
			err = o.call(c, "thr_1.a", "")
			assert.ErrorContains(t, err, "empty message id", o.name)
		}
	}
	assert.Empty(t, srv.Requests())
}

// Ids are one escaped path segment each; a dot-segment id is refused
// before sending.
func TestNewCallsEscapeIDs(t *testing.T) {
	t.Parallel()
	srv := serveCanned(t, 403, "application/json", fixture(t, "live/problem-403-forbidden.json"))
	c := cannedClient(t, srv)
	err := c.Messages.Delete(context.Background(), "a/../b", "msg.1")
	assert.True(t, errors.Is(err, threads.ErrForbidden))
	assert.Equal(t, "/threads/a%2F..%2Fb/messages/msg.1", srv.requests()[0].Path)
	sent := len(srv.requests()) // the refused Bearer key and its x-api-key try
	err = c.Messages.Delete(context.Background(), "thr_1.a", "..")
	assert.ErrorContains(t, err, "message id \"..\" is a dot segment")
	assert.Len(t, srv.requests(), sent, "nothing sent")
}
