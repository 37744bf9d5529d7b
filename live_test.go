package threads_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
)

// EnvLiveTest turns on the live tests: with THREADS_LIVE_TEST=1 and
// THREADS_BASE_URL and THREADS_API_KEY set, the tests below run against
// that deployment; otherwise they are skipped, so the suite stays offline.
// THREADS_API_KEY_HEADER is optional: unset, the client starts with Bearer
// and keeps x-api-key after the live service refused Bearer.
const EnvLiveTest = "THREADS_LIVE_TEST"

// liveClient returns a client for the deployment named by the environment,
// or skips the test.
func liveClient(t *testing.T) (*threads.Client, context.Context) {
	t.Helper()
	if os.Getenv(EnvLiveTest) != "1" {
		t.Skipf("live test: set %s=1 and %s, %s to run it", EnvLiveTest, threads.EnvBaseURL, threads.EnvAPIKey)
	}
	for _, name := range []string{threads.EnvBaseURL, threads.EnvAPIKey} {
		if os.Getenv(name) == "" {
			t.Skipf("live test: %s is not set", name)
		}
	}
	// Its own transport, so the idle connections can be closed when the test
	// ends (goleak would count their goroutines).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	c, err := threads.NewClient(threads.WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c, ctx
}

// liveThread creates a thread for one test and cancels whatever it still
// runs when the test ends.
func liveThread(t *testing.T, c *threads.Client, ctx context.Context) *threads.Thread {
	t.Helper()
	proj, err := c.Projects.Current(ctx)
	require.NoError(t, err)
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: proj.ID, Name: "threads-go live test " + t.Name()})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// The live service answers 500 to a cancel of an idle thread with
		// no messages, and cancels it all the same.
		_, _ = c.Threads.Cancel(ctx, th.ID)
	})
	return th
}

func TestLiveCreateGetList(t *testing.T) {
	c, ctx := liveClient(t)
	th := liveThread(t, c, ctx)
	got, err := c.Threads.Get(ctx, th.ID)
	require.NoError(t, err)
	assert.Equal(t, th.ID, got.ID)

	found := false
	for item, err := range c.Threads.All(ctx, &threads.ListParams{Limit: 50}) {
		require.NoError(t, err)
		if item.ID == th.ID {
			found = true
			break
		}
	}
	assert.True(t, found, "the new thread is listed")

	_, err = c.Threads.Get(ctx, "thr_doesnotexist.000000")
	assert.Error(t, err)
}

func TestLiveStream(t *testing.T) {
	c, ctx := liveClient(t)
	th := liveThread(t, c, ctx)
	s, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("Say hello in three words.")})
	require.NoError(t, err)
	var text strings.Builder
	for ev, err := range s.All() {
		require.NoError(t, err)
		if ev.TextReset {
			text.Reset()
		}
		text.WriteString(ev.TextDelta)
	}
	msgs := s.Messages()
	require.NotEmpty(t, msgs)
	assert.Equal(t, msgs[len(msgs)-1].Text(), text.String(), "joined deltas equal the final snapshot")

	stored, err := c.Threads.Get(ctx, th.ID)
	require.NoError(t, err)
	require.NotEmpty(t, stored.Messages)
}

func TestLiveToolRoundTrip(t *testing.T) {
	c, ctx := liveClient(t)
	th := liveThread(t, c, ctx)
	tools := []threads.ClientTool{{
		Name:        "get_weather",
		Description: "Returns the weather for a city.",
		Parameters:  []threads.ToolParameter{{Name: "city", Type: "string", Description: "The city", IsRequired: true}},
	}}
	s, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{
		Message:         threads.UserMessage("What is the weather in Paris? Use the tool."),
		ClientTools:     tools,
		ForceToolChoice: "get_weather",
	})
	require.NoError(t, err)
	msgs, err := s.Collect()
	require.NoError(t, err)
	require.NotEmpty(t, msgs)
	last := msgs[len(msgs)-1]
	if last.ToolCallRequest == nil {
		t.Skip("the model answered without calling the tool")
	}
	s, err = c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{
		Message:        threads.ToolResult(last.ToolCallID, "sunny, 21 °C"),
		ClientTools:    tools,
		ToolCallCounts: map[string]int{"get_weather": 1},
	})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)
}

func TestLiveMigration(t *testing.T) {
	c, ctx := liveClient(t)
	th := liveThread(t, c, ctx)
	res, err := c.Threads.Advance(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("Say hi.")})
	require.NoError(t, err)
	assert.NotEmpty(t, strings.TrimSpace(res.Message.Text()))

	_, err = c.Threads.Advance(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("Say hi.")}, threads.WithoutAutoMigrate())
	assert.True(t, errors.Is(err, threads.ErrEndpointDeprecated), "%v", err)
}

func TestLiveCancel(t *testing.T) {
	c, ctx := liveClient(t)
	th := liveThread(t, c, ctx)
	s, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("Count slowly from one to two hundred.")})
	require.NoError(t, err)
	defer s.Close()
	require.True(t, s.Next(), "first snapshot: %v", s.Err())
	got, err := c.Threads.Cancel(ctx, th.ID)
	require.NoError(t, err)
	assert.Equal(t, threads.GenerationStageCancelled, got.GenerationStage)
}

// liveDeleted creates a thread with liveThread and deletes it when the test
// ends (after cancelling whatever it still runs); the test may delete it
// first.
func liveDeleted(t *testing.T, c *threads.Client, ctx context.Context) *threads.Thread {
	t.Helper()
	th := liveThread(t, c, ctx)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = c.Threads.Cancel(ctx, th.ID)
		if err := c.Threads.Delete(ctx, th.ID); err != nil && !errors.Is(err, threads.ErrForbidden) {
			t.Errorf("cleanup: deleting %s: %v", th.ID, err)
		}
	})
	return th
}

func TestLiveUpdateGenerateNameDelete(t *testing.T) {
	c, ctx := liveClient(t)
	th := liveDeleted(t, c, ctx)

	up, err := c.Threads.Update(ctx, th.ID, threads.UpdateThreadParams{ProjectID: th.ProjectID, Name: "renamed by threads-go", Metadata: map[string]any{"live": "yes"}})
	require.NoError(t, err)
	assert.Equal(t, "renamed by threads-go", up.Name)
	got, err := c.Threads.Get(ctx, th.ID)
	require.NoError(t, err)
	assert.Equal(t, "renamed by threads-go", got.Name)
	assert.Equal(t, map[string]any{"live": "yes"}, got.Metadata)

	_, err = c.Messages.Create(ctx, th.ID, threads.UserMessage("Plan a weekend trip to Lisbon."))
	require.NoError(t, err)
	named, err := c.Threads.GenerateName(ctx, th.ID)
	require.NoError(t, err)
	assert.Equal(t, th.ID, named.ID)
	assert.NotEmpty(t, named.Name)

	require.NoError(t, c.Threads.Delete(ctx, th.ID))
	_, err = c.Threads.Get(ctx, th.ID)
	assert.ErrorIs(t, err, threads.ErrForbidden, "a deleted thread is refused like an unknown one")
}

func TestLiveMessages(t *testing.T) {
	c, ctx := liveClient(t)
	th := liveDeleted(t, c, ctx)

	user, err := c.Messages.Create(ctx, th.ID, threads.UserMessage("Suggest a name for a cat."))
	require.NoError(t, err)
	assert.Equal(t, th.ID, user.ThreadID)
	s, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("Answer in five words.")})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)

	msgs, err := c.Messages.List(ctx, th.ID)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(msgs), 3)
	assert.Equal(t, user.ID, msgs[0].ID)
	reply := msgs[len(msgs)-1]
	assert.Equal(t, threads.RoleAssistant, reply.Role)

	m, err := c.Messages.UpdateComponentState(ctx, th.ID, reply.ID, threads.UpdateComponentStateParams{State: map[string]any{"seen": true}})
	require.NoError(t, err)
	assert.Equal(t, true, m.ComponentState["seen"])

	gen, err := c.Messages.GenerateSuggestions(ctx, th.ID, reply.ID, threads.GenerateSuggestionsParams{MaxSuggestions: 2})
	require.NoError(t, err)
	assert.NotEmpty(t, gen)
	assert.LessOrEqual(t, len(gen), 2)
	stored, err := c.Messages.Suggestions(ctx, th.ID, reply.ID)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(stored), len(gen))

	require.NoError(t, c.Messages.Delete(ctx, th.ID, user.ID))
	left, err := c.Messages.List(ctx, th.ID)
	require.NoError(t, err)
	for _, m := range left {
		assert.NotEqual(t, user.ID, m.ID, "the deleted message is gone")
	}
}

// The routes of issue 25 against a live deployment (skipped unless
// THREADS_LIVE_TEST=1, see liveClient). Read-only: nothing is deleted.

func TestLiveProjectGetAndKeys(t *testing.T) {
	c, ctx := liveClient(t)
	cur, err := c.Projects.Current(ctx)
	require.NoError(t, err)
	p, err := c.Projects.Get(ctx, cur.ID)
	require.NoError(t, err)
	assert.Equal(t, cur.ID, p.ID)
	keys, err := c.Projects.APIKeys(ctx, cur.ID)
	require.NoError(t, err)
	for _, k := range keys {
		assert.NotEmpty(t, k.ID)
	}
	_, err = c.Projects.ProviderKeys(ctx, cur.ID)
	require.NoError(t, err)
}

func TestLiveMCPAccessToken(t *testing.T) {
	c, ctx := liveClient(t)
	// The service refuses a sessionless token without a context key (400)
	// for a project with MCP servers.
	tok, err := c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ContextKey: "threads-go-live"})
	if errors.Is(err, threads.ErrNoMCPServers) {
		t.Skip("the live project has no MCP servers")
	}
	require.NoError(t, err)
	assert.False(t, tok.Token.IsZero())
	th := liveThread(t, c, ctx)
	_, err = c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ThreadID: th.ID})
	require.NoError(t, err)
}

func TestLiveUpload(t *testing.T) {
	c, ctx := liveClient(t)
	uri, err := c.Storage.Upload(ctx, strings.NewReader("hello"), "text/plain", 5)
	var p *threads.Problem
	if errors.As(err, &p) && p.Status == 503 {
		t.Skip("the deployment has no storage configured")
	}
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(uri, "attachment://"))
}

func TestLiveRegistryUnknown(t *testing.T) {
	c, ctx := liveClient(t)
	_, err := c.Registry.Get(ctx, "threads-go-no-such-component")
	require.Error(t, err)
}

type liveTicketArgs struct {
	Title    string `json:"title" description:"A short title for the ticket"`
	Priority string `json:"priority" description:"The ticket's urgency. prio-1-top is the most urgent, prio-3-low the least." enum:"prio-3-low,prio-2-mid,prio-1-top"`
}

// Against the live service (see live_test.go): a tool with an enum
// parameter is called with one of its enum values, which the model can
// only know if the enum reached it (a made-up name like "prio-1-top" is
// not guessed from "priority": {"type": "string"}); the tool's arguments
// decode, so the tool runs and the run completes.
func TestLiveToolEnum(t *testing.T) {
	c, ctx := liveClient(t)
	th := liveThread(t, c, ctx)
	var got []any // each call's priority argument, before NewTool checks it
	tool := threads.NewTool("file_ticket", "Files a support ticket.", func(_ context.Context, a liveTicketArgs) (string, error) {
		return "ticket T-1 filed", nil
	})
	decode := tool.Call
	tool.Call = func(ctx context.Context, call threads.ToolCall) (string, error) {
		got = append(got, call.Arguments["priority"])
		return decode(ctx, call)
	}
	s, err := c.Threads.RunStream(ctx, th.ID, threads.AdvanceParams{
		Message:         threads.UserMessage("The production database is down. File a ticket with the most urgent priority. Use the tool."),
		ForceToolChoice: "file_ticket",
	}, []threads.Tool{tool}, threads.WithMaxToolRounds(2))
	require.NoError(t, err)
	msgs, err := s.Collect()
	require.NoError(t, err)
	require.NotEmpty(t, msgs)
	if len(got) == 0 {
		t.Skip("the model answered without calling the tool")
	}
	assert.True(t, slices.Contains([]any{"prio-3-low", "prio-2-mid", "prio-1-top"}, got[0]), "the model passed %#v, not one of the enum's values", got[0])
	if os.Getenv("THREADS_FAKE") == "1" {
		// threads fake says so: its scripted model takes an enum's first
		// value; which value fits the description is a real model's call.
		t.Skip("needs a real model's judgement (THREADS_FAKE=1: the fake's scripted model answered)")
	}
	assert.Equal(t, "prio-1-top", got[0], "the model read the description")
}
