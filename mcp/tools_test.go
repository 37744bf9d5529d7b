package threadsmcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	threadsmcp "github.com/threadsapi/threads-go/mcp"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// png is a tiny image's bytes, as a tool returns them.
var png = []byte("\x89PNG\r\n\x1a\nfake image")

type cityArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

// newServer is an in-process MCP server (the go-sdk's server side) with a
// text tool, a tool whose result is text, an image and an embedded
// resource, and a tool that fails.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "weather-server", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "weather", Description: "The weather in a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, a cityArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + a.City}}}, nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "chart", Description: "A chart of the weather", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "the chart"},
				&mcp.ImageContent{Data: png, MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///data.csv", MIMEType: "text/csv", Text: "day,temp\nmon,21"}},
			}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Always fails", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the weather station is down"}}}, nil
		})
	return s
}

// connect connects a Conn to s in process, and returns a function that
// cuts the server's end of the connection (the server going away). The
// Conn is closed at the end of the test, and the server's session has
// ended then.
func connect(t *testing.T, s *mcp.Server, opts *threadsmcp.Options) (*threadsmcp.Conn, func()) {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	server := &cuttable{Transport: st}
	ss, err := s.Connect(t.Context(), server, nil)
	require.NoError(t, err)
	conn, err := threadsmcp.Connect(t.Context(), ct, opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		conn.Close()
		ss.Wait() // the client's end closed: the server's session ends
	})
	// Not ServerSession.Close: with a subscriptions/listen request in
	// flight (protocol 2026-07-28) it can wait for that request forever
	// (go-sdk v1.8.0), where cutting the connection cannot.
	return conn, func() { server.conn.Close() }
}

// cuttable is a transport whose connection a test can cut.
type cuttable struct {
	mcp.Transport
	conn mcp.Connection
}

func (c *cuttable) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	c.conn = conn
	return conn, err
}

// The "what it must show" run on /v1: the model (threadstest) calls three
// tools of an in-process MCP server in one pause, through RunTools; the
// continuation carries the text result, the image as a resource part with
// its base64 blob and MIME type beside the embedded resource, and the
// tool error as an error result. The tools were declared with the
// server's input schemas as they are.
func TestRunToolsWithMCPServer(t *testing.T) {
	t.Parallel()
	conn, _ := connect(t, newServer(), nil)
	tools, err := conn.Tools(t.Context())
	require.NoError(t, err)
	require.Len(t, tools, 3)

	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{
		{ID: "call_w", Name: "weather", Arguments: map[string]any{"city": "Paris"}},
		{ID: "call_c", Name: "chart", Arguments: map[string]any{}},
		{ID: "call_f", Name: "fail", Arguments: map[string]any{}},
	}})
	srv.PushRunScript(threadstest.RunScript{Text: "Here is the weather."})
	c := runs.New(srv.Client()).ForUser("user-1")
	ts, err := c.CreateAndRunTools(t.Context(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("weather?")}}},
		runs.ToolRunner{Tools: tools})
	require.NoError(t, err)
	var results []runs.ToolRunResult
	for ev, err := range ts.All() {
		require.NoError(t, err)
		if r, ok := ev.(runs.ToolRunResult); ok {
			results = append(results, r)
		}
	}
	require.Len(t, results, 3)
	assert.False(t, results[0].IsError)
	assert.False(t, results[1].IsError)
	assert.True(t, results[2].IsError)
	var te *threadsmcp.ToolError
	require.ErrorAs(t, results[2].Err, &te)
	assert.Equal(t, "fail", te.ToolName)

	var reqs []*threadstest.RunRequest
	for _, r := range srv.Requests() {
		if rr, err := r.Run(); err == nil {
			reqs = append(reqs, rr)
		}
	}
	require.Len(t, reqs, 2)
	// Declared with the server's schemas, unchanged.
	listed, err := conn.Session().ListTools(t.Context(), nil)
	require.NoError(t, err)
	for i, tl := range listed.Tools {
		want, err := json.Marshal(tl.InputSchema)
		require.NoError(t, err)
		assert.Equal(t, tl.Name, reqs[0].Tools[i].Name)
		assert.JSONEq(t, string(want), string(reqs[0].Tools[i].InputSchema), tl.Name)
	}
	body, err := json.Marshal(reqs[1].Message.Content)
	require.NoError(t, err)
	assert.JSONEq(t, `[
		{"type":"tool_result","toolUseId":"call_w","content":[{"type":"text","text":"sunny in Paris"}]},
		{"type":"tool_result","toolUseId":"call_c","content":[
			{"type":"text","text":"the chart"},
			{"type":"resource","resource":{"mimeType":"image/png","blob":"`+base64.StdEncoding.EncodeToString(png)+`"}},
			{"type":"resource","resource":{"uri":"file:///data.csv","mimeType":"text/csv","text":"day,temp\nmon,21"}}]},
		{"type":"tool_result","toolUseId":"call_f","isError":true,"content":[{"type":"text","text":"the weather station is down"}]}]`, string(body))
}

// The same on the spec's routes, through RunStream: each tool message is
// the result's text (the image by its size, the resource inline), the
// tool error the message's error.
func TestRunStreamWithMCPServer(t *testing.T) {
	t.Parallel()
	conn, _ := connect(t, newServer(), nil)
	tools, err := conn.Tools(t.Context())
	require.NoError(t, err)

	srv := threadstest.NewServer(t)
	c := srv.Client()
	th, err := c.Threads.Create(t.Context(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "weather", Arguments: map[string]any{"city": "Paris"}},
		{Name: "chart", Arguments: map[string]any{}},
		{Name: "fail", Arguments: map[string]any{}},
	}})
	st, err := c.Threads.RunStream(t.Context(), th.ID, threads.AdvanceParams{Message: threads.UserMessage("weather?")}, tools)
	require.NoError(t, err)
	_, err = st.Collect()
	require.NoError(t, err)

	var adv []*threadstest.AdvanceRequest
	for _, r := range srv.Requests() {
		if strings.HasSuffix(r.Path, "/advancestream") {
			a, err := r.Advance()
			require.NoError(t, err)
			adv = append(adv, a)
		}
	}
	require.Len(t, adv, 4)
	params := adv[0].ClientTools[2].Parameters // weather, sorted by name: chart, fail, weather
	require.Equal(t, "weather", adv[0].ClientTools[2].Name)
	require.Len(t, params, 1)
	assert.Equal(t, "city", params[0].Name)
	assert.True(t, params[0].IsRequired)
	assert.Equal(t, "sunny in Paris", adv[1].MessageToAppend.Text())
	assert.Equal(t, "the chart\n"+`<resource mimeType="image/png" bytes="18"/>`+"\n"+
		`<resource uri="file:///data.csv" mimeType="text/csv">day,temp`+"\nmon,21</resource>", adv[2].MessageToAppend.Text())
	assert.Equal(t, "the weather station is down", adv[3].MessageToAppend.Error)
	assert.Equal(t, "Error: the weather station is down", adv[3].MessageToAppend.Text())
}

// A tool the server added later is listed once the server said its list
// changed; the names carry the prefix, and Filter keeps what it wants.
func TestConnToolsFollowTheServersList(t *testing.T) {
	t.Parallel()
	s := newServer()
	changed := make(chan struct{}, 1)
	conn, _ := connect(t, s, &threadsmcp.Options{
		Tools:        threadsmcp.ToolOptions{Prefix: "wx_", Filter: func(t *mcp.Tool) bool { return t.Name != "fail" }},
		ToolsChanged: func() { changed <- struct{}{} },
	})
	names := func() []string {
		tools, err := conn.Tools(t.Context())
		require.NoError(t, err)
		var out []string
		for _, tl := range tools {
			out = append(out, tl.Name)
		}
		return out
	}
	assert.Equal(t, []string{"wx_chart", "wx_weather"}, names())
	s.AddTool(&mcp.Tool{Name: "alerts", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "none"}}}, nil
		})
	<-changed
	assert.Equal(t, []string{"wx_alerts", "wx_chart", "wx_weather"}, names())

	tools, err := conn.Tools(t.Context())
	require.NoError(t, err)
	out, err := tools[0].Call(t.Context(), threads.ToolCall{Name: "wx_alerts"})
	require.NoError(t, err)
	assert.Equal(t, "none", out, "the server is called with the tool's own name")
}

// A call the server refuses (a tool it no longer has) is the tool's
// error, which the runners send as an error result.
func TestToolCallRefusedByServer(t *testing.T) {
	t.Parallel()
	s := newServer()
	conn, _ := connect(t, s, nil)
	tools, err := conn.Tools(t.Context())
	require.NoError(t, err)
	s.RemoveTools("weather")
	var weather threads.Tool
	for _, tl := range tools {
		if tl.Name == "weather" {
			weather = tl
		}
	}
	_, err = weather.CallParts(t.Context(), threads.ToolCall{Name: "weather", Arguments: map[string]any{"city": "Paris"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `calling tool "weather" on the MCP server`)
}

// A result is bounded: text past the budget is cut, a blob that does not
// fit is left out, parts past MaxResultParts too, and a last text part
// says how much; a result with only structured content is its JSON.
func TestResultPartsBounded(t *testing.T) {
	t.Parallel()
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: strings.Repeat("é", 60)}, // 120 bytes
		&mcp.ImageContent{Data: make([]byte, 300), MIMEType: "image/png"},
		&mcp.TextContent{Text: "more"},
	}}
	parts := threadsmcp.ResultParts(res, 100)
	require.Len(t, parts, 2)
	assert.Equal(t, strings.Repeat("é", 50), parts[0].Text)
	assert.Equal(t, "[the MCP tool's result is cut: 433 bytes and 2 parts left out (the limit is 100 bytes and 256 parts)]", parts[1].Text)

	many := &mcp.CallToolResult{}
	for range threadsmcp.MaxResultParts + 10 {
		many.Content = append(many.Content, &mcp.TextContent{Text: "x"})
	}
	parts = threadsmcp.ResultParts(many, 0)
	require.Len(t, parts, threadsmcp.MaxResultParts+1)
	assert.Contains(t, parts[threadsmcp.MaxResultParts].Text, "0 bytes and 10 parts left out")

	parts = threadsmcp.ResultParts(&mcp.CallToolResult{StructuredContent: map[string]any{"temp": 21}}, 0)
	assert.Equal(t, []threads.ContentPart{threads.TextPart(`{"temp":21}`)}, parts)
	assert.Empty(t, threadsmcp.ResultParts(nil, 0))
}

// A tool error's text goes to the model cut at 4 KiB by the runner, like
// every tool error.
func TestToolErrorBounded(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "loud", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 1<<20)}}}, nil
		})
	conn, _ := connect(t, s, nil)
	tools, err := conn.Tools(t.Context())
	require.NoError(t, err)
	srv := threadstest.NewServer(t)
	srv.PushRunScript(threadstest.RunScript{ToolCalls: []threadstest.RunToolCall{{Name: "loud", Arguments: map[string]any{}}}})
	srv.PushRunScript(threadstest.RunScript{Text: "ok"})
	ts, err := runs.New(srv.Client()).ForUser("u").CreateAndRunTools(t.Context(),
		runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("go")}}}, runs.ToolRunner{Tools: tools})
	require.NoError(t, err)
	var got runs.ToolRunResult
	for ev, err := range ts.All() {
		require.NoError(t, err)
		if r, ok := ev.(runs.ToolRunResult); ok {
			got = r
		}
	}
	assert.True(t, got.IsError)
	assert.LessOrEqual(t, len(got.Text), 4<<10)
	assert.True(t, strings.HasSuffix(got.Text, "…"))
}

// The status goes connecting, connected, failed (the server went away,
// with the reason), closed; OnStatus is told each.
func TestConnStatus(t *testing.T) {
	t.Parallel()
	statuses := make(chan threadsmcp.Status, 8)
	conn, cut := connect(t, newServer(), &threadsmcp.Options{OnStatus: func(s threadsmcp.Status) { statuses <- s }})
	assert.Equal(t, threadsmcp.StateConnecting, (<-statuses).State)
	st := <-statuses
	assert.Equal(t, threadsmcp.StateConnected, st.State)
	require.NotNil(t, st.Server)
	assert.Equal(t, "weather-server", st.Server.Name)

	cut()
	st = <-statuses
	assert.Equal(t, threadsmcp.StateFailed, st.State)
	assert.ErrorContains(t, st.Err, "threadsmcp: the MCP connection ended")
	assert.Equal(t, st, conn.Status())
	_, err := conn.Session().ListTools(t.Context(), nil)
	assert.Error(t, err)

	require.NoError(t, conn.Close())
	assert.Equal(t, threadsmcp.StateClosed, (<-statuses).State)
	assert.Equal(t, threadsmcp.StateClosed, conn.Status().State)
	require.NoError(t, conn.Close(), "idempotent")
	assert.Equal(t, "failed", threadsmcp.StateFailed.String())
}

// A handshake that fails is an error and a failed status.
func TestConnectFails(t *testing.T) {
	t.Parallel()
	ct, st := mcp.NewInMemoryTransports()
	sc, err := st.Connect(t.Context())
	require.NoError(t, err)
	require.NoError(t, sc.Close()) // nobody answers
	var last threadsmcp.Status
	_, err = threadsmcp.Connect(t.Context(), ct, &threadsmcp.Options{OnStatus: func(s threadsmcp.Status) { last = s }})
	require.Error(t, err)
	assert.ErrorContains(t, err, "threadsmcp: connecting to the MCP server")
	assert.Equal(t, threadsmcp.StateFailed, last.State)
	assert.True(t, errors.Is(last.Err, err) || last.Err.Error() == err.Error())
}
