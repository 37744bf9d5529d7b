package threads_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

type weatherArgs struct {
	City string `json:"city" description:"City name"`
}

type timeArgs struct {
	Zone string `json:"zone" description:"IANA time zone"`
}

func weatherTool() threads.Tool {
	return threads.NewTool("get_weather", "Get the weather for a city", func(_ context.Context, a weatherArgs) (string, error) {
		return fmt.Sprintf(`{"city":%q,"tempC":21}`, a.City), nil
	})
}

func timeTool() threads.Tool {
	return threads.NewTool("get_time", "The time in a zone", func(_ context.Context, a timeArgs) (string, error) {
		return a.Zone + " 14:05", nil
	})
}

// A NewTool tool never takes the service's status arguments for its own,
// even when a caller passes them in Arguments (answering a /v1 call by
// hand): they are neither checked nor decoded, and the caller's map is
// left as it was. Anything else unknown is still refused, and the refusal
// matches ErrToolArguments.
func TestNewToolIgnoresServiceStatusArguments(t *testing.T) {
	t.Parallel()
	var got weatherArgs
	tool := threads.NewTool("get_weather", "", func(_ context.Context, a weatherArgs) (string, error) { got = a; return "ok", nil })
	args := map[string]any{"city": "Paris", "_tambo_statusMessage": "Looking…", "_tambo_completionStatusMessage": "Done"}
	_, err := tool.Call(context.Background(), threads.ToolCall{Name: "get_weather", Arguments: args})
	require.NoError(t, err)
	assert.Equal(t, weatherArgs{City: "Paris"}, got)
	assert.Len(t, args, 3, "the caller's map is not changed")

	_, err = tool.Call(context.Background(), threads.ToolCall{Name: "get_weather", Arguments: map[string]any{"city": "Paris", "_tambo_other": "x"}})
	require.ErrorIs(t, err, threads.ErrToolArguments)
	assert.Contains(t, err.Error(), `there is no parameter "_tambo_other"`)
}

// ToolResultText's rule, part by part: text as it is, a text resource
// inline, a blob by its decoded size only, a URI alone; attributes
// escaped; a part no tool result carries refused, naming it.
func TestToolResultText(t *testing.T) {
	t.Parallel()
	got, err := threads.ToolResultText([]threads.ContentPart{
		threads.TextPart("a\nb"),
		threads.ResourcePart(threads.Resource{URI: `file:///"x"&<y>`, Text: "t"}),
		threads.BlobPart("", "image/png", make([]byte, 1000)),
		threads.ResourcePart(threads.Resource{URI: "https://example.com/doc"}),
	})
	require.NoError(t, err)
	assert.Equal(t, "a\nb\n"+`<resource uri="file:///&#34;x&#34;&amp;&lt;y&gt;">t</resource>`+"\n"+
		`<resource mimeType="image/png" bytes="1000"/>`+"\n"+`<resource uri="https://example.com/doc"/>`, got)

	got, err = threads.ToolResultText(nil)
	require.NoError(t, err)
	assert.Empty(t, got)
	_, err = threads.ToolResultText([]threads.ContentPart{{Type: threads.ContentPartTypeResource}})
	assert.EqualError(t, err, "part 1 of the tool's result is a resource part without a resource")
	_, err = threads.ToolResultText([]threads.ContentPart{threads.TextPart("x"), {Type: "video\x1b[2J"}})
	assert.ErrorContains(t, err, `part 2 of the tool's result is a "video" part`, "the escape sequence is left out")
}

// NewPartsTool checks and decodes its arguments as NewTool does, and is
// refused (not a panic) with an unusable Args or a nil function.
func TestNewPartsTool(t *testing.T) {
	t.Parallel()
	tool := threads.NewPartsTool("w", "", func(_ context.Context, a weatherArgs) ([]threads.ContentPart, error) {
		return []threads.ContentPart{threads.TextPart(a.City)}, nil
	})
	require.NoError(t, tool.Err())
	require.Len(t, tool.Parameters, 1)
	_, err := tool.CallParts(context.Background(), threads.ToolCall{Name: "w", Arguments: map[string]any{"town": "x"}})
	assert.ErrorIs(t, err, threads.ErrToolArguments)
	parts, err := tool.CallParts(context.Background(), threads.ToolCall{Name: "w", Arguments: map[string]any{"city": "Oslo"}})
	require.NoError(t, err)
	assert.Equal(t, []threads.ContentPart{threads.TextPart("Oslo")}, parts)

	bad := threads.NewPartsTool("b", "", func(context.Context, int) ([]threads.ContentPart, error) { return nil, nil })
	assert.ErrorContains(t, bad.Err(), "NewPartsTool: Args must be a struct")
	assert.ErrorContains(t, threads.NewPartsTool[weatherArgs]("n", "", nil).Err(), "NewPartsTool: nil function")
}

// perRound is what a round's request may add to the first request's size,
// whatever the server sent: the error text twice (the text and the error
// member, each JSON-escaped at worst 6 bytes a byte) and a call id.
const perRound = 2*6*(4<<10) + 6*(1<<10) + 1<<10

type priorityArgs struct {
	Priority string `json:"priority" description:"How urgent" enum:"low,high"`
}

// Whatever a call's name, argument names and values, the error NewTool's
// Call gives the model stays within a constant size.
func FuzzNewToolArgumentError(f *testing.F) {
	f.Add("prioritize", "priority", "urgent")
	f.Add(strings.Repeat("<", 300), strings.Repeat("‹", 300), strings.Repeat("\x1b[2J", 100))
	f.Add("", "", "\xff\xfe")
	tool := threads.NewTool("prioritize", "Set a priority", func(_ context.Context, a priorityArgs) (string, error) { return a.Priority, nil })
	f.Fuzz(func(t *testing.T, name, param, value string) {
		args := map[string]any{"priority": value, param: value, param + "2": []any{value}, param + "3": map[string]any{value: value}}
		_, err := tool.Call(context.Background(), threads.ToolCall{Name: name, Arguments: args})
		if err != nil && len(err.Error()) > 4<<10 {
			t.Fatalf("the error is %d bytes", len(err.Error()))
		}
	})
}

// A result that does not encode is the tool's failure, reported to the
// model; a nil function is refused before anything is sent.
func TestNewJSONToolErrors(t *testing.T) {
	t.Parallel()
	bad := threads.NewJSONTool("t", "", func(context.Context, weatherArgs) (func(), error) { return func() {}, nil })
	_, err := bad.Call(context.Background(), threads.ToolCall{Name: "t", Arguments: map[string]any{"city": "x"}})
	assert.ErrorContains(t, err, "does not encode as JSON")
	raw := threads.NewJSONTool("r", "", func(context.Context, weatherArgs) (json.RawMessage, error) { return json.RawMessage(`[1,2]`), nil })
	out, err := raw.Call(context.Background(), threads.ToolCall{Name: "r", Arguments: map[string]any{"city": "x"}})
	require.NoError(t, err)
	assert.Equal(t, `[1,2]`, out)
	s := threads.NewJSONTool("s", "", func(context.Context, weatherArgs) (string, error) { return "hi", nil })
	out, err = s.Call(context.Background(), threads.ToolCall{Name: "s", Arguments: map[string]any{"city": "x"}})
	require.NoError(t, err)
	assert.Equal(t, `"hi"`, out)
	nilFn := threads.NewJSONTool[weatherArgs, int]("n", "", nil)
	assert.Error(t, nilFn.Err())
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// tripArgs has a field of every kind NewTool maps.
type tripArgs struct {
	Destination string    `json:"destination" description:"Where to go"`
	Nights      int       `json:"nights" description:"How many nights"`
	Budget      float64   `json:"budget,omitempty" description:"Most to spend, in euros"`
	Pets        bool      `json:"pets" description:"Whether pets come along"`
	Class       string    `json:"class" description:"Travel class" enum:"economy,business,first"`
	Travelers   []string  `json:"travelers" description:"Names of the travelers"`
	Ratings     []float64 `json:"ratings,omitempty"`
	Start       time.Time `json:"start" description:"Departure time"`
	Return      *string   `json:"return" description:"Return date, if any"`
	Hotel       hotel     `json:"hotel" description:"The hotel"`
	Stops       []stop    `json:"stops,omitzero" description:"Stops on the way"`
	Notes       map[string]string
	Ignored     string `json:"-"`
	internal    string
	paging
}

type hotel struct {
	Name  string `json:"name" description:"Hotel name"`
	Stars *int   `json:"stars" description:"1 to 5" enum:"1,2,3,4,5"`
	Room  struct {
		Beds int  `json:"beds"`
		View bool `json:"view,omitempty"`
	} `json:"room"`
}

type stop struct {
	City string `json:"city"`
	Days int    `json:"days,omitempty"`
}

type paging struct {
	Page int `json:"page,omitempty" description:"Result page"`
}

// NewTool's parameter list for a struct with every kind of field, byte for
// byte (go test -run TestNewToolGolden -update rewrites it).
func TestNewToolGolden(t *testing.T) {
	t.Parallel()
	tool := threads.NewTool("plan_trip", "Plan a trip", func(context.Context, tripArgs) (string, error) { return "", nil })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(tool.Parameters))
	path := filepath.Join("testdata", "golden", "newtool-parameters.json")
	if *update {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), buf.String())
	_ = tripArgs{}.internal
}

// The arguments of a call decode into the struct, nested values included.
func TestNewToolDecodes(t *testing.T) {
	t.Parallel()
	var got tripArgs
	tool := threads.NewTool("plan_trip", "Plan a trip", func(_ context.Context, a tripArgs) (string, error) {
		got = a
		return "ok", nil
	})
	args := map[string]any{}
	require.NoError(t, json.Unmarshal([]byte(`{
		"destination":"Lisbon","nights":3,"pets":false,"class":"first","travelers":["Ana","Bo"],
		"start":"2026-12-01T08:00:00Z","return":null,"hotel":{"name":"Sol","stars":4,"room":{"beds":2}},
		"stops":[{"city":"Porto","days":1}],"Notes":{"a":"b"},"page":2}`), &args))
	out, err := tool.Call(context.Background(), threads.ToolCall{ID: "c", Name: "plan_trip", Arguments: args})
	require.NoError(t, err)
	assert.Equal(t, "ok", out)
	assert.Equal(t, "Lisbon", got.Destination)
	assert.Equal(t, 3, got.Nights)
	assert.Equal(t, []string{"Ana", "Bo"}, got.Travelers)
	assert.Equal(t, 4, *got.Hotel.Stars)
	assert.Equal(t, 2, got.Hotel.Room.Beds)
	assert.Equal(t, []stop{{"Porto", 1}}, got.Stops)
	assert.Equal(t, 2, got.Page)
	assert.Nil(t, got.Return)
	assert.True(t, got.Start.Equal(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)))

	// A pointer Args works too, and an unknown nested field is refused.
	ptr := threads.NewTool("p", "p", func(_ context.Context, a *stop) (string, error) { return a.City, nil })
	out, err = ptr.Call(context.Background(), threads.ToolCall{Name: "p", Arguments: map[string]any{"city": "Faro"}})
	require.NoError(t, err)
	assert.Equal(t, "Faro", out)
	args["hotel"] = map[string]any{"name": "Sol", "room": map[string]any{"beds": 1}, "pool": true}
	_, err = tool.Call(context.Background(), threads.ToolCall{Name: "plan_trip", Arguments: args})
	require.ErrorContains(t, err, `there is no field "pool"`)
}

// A value outside an enum tag's list is refused, naming the list.
func TestNewToolEnum(t *testing.T) {
	t.Parallel()
	type args struct {
		Class string `json:"class" enum:"economy, business"`
	}
	tool := threads.NewTool("book", "Book", func(_ context.Context, a args) (string, error) { return a.Class, nil })
	out, err := tool.Call(context.Background(), threads.ToolCall{Name: "book", Arguments: map[string]any{"class": "business"}})
	require.NoError(t, err)
	assert.Equal(t, "business", out)
	_, err = tool.Call(context.Background(), threads.ToolCall{Name: "book", Arguments: map[string]any{"class": "first"}})
	require.ErrorContains(t, err, `argument "class" is first, want one of: economy, business`)
}

// withoutSchemas returns the JSON request body with every clientTools
// parameter's "schema" removed, re-encoded.
func withoutSchemas(t *testing.T, body []byte) string {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(body, &v))
	tools, _ := v["clientTools"].([]any)
	for _, tool := range tools {
		params, _ := tool.(map[string]any)["parameters"].([]any)
		for _, p := range params {
			delete(p.(map[string]any), "schema")
		}
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

type ticketArgs struct {
	Title    string     `json:"title" description:"One line that says what is wrong"`
	Priority string     `json:"priority" description:"How urgent: p1 is the most" enum:"p1,p2,p3"`
	Severity int        `json:"severity,omitempty" description:"1 to 3" enum:"1,2,3"`
	Tags     []string   `json:"tags,omitempty" description:"Labels"`
	Due      *time.Time `json:"due" description:"When it must be fixed"`
	Extra    any        `json:"extra,omitempty" description:"Anything else"`
}

// golden compares got with testdata/golden/name (go test -update rewrites
// it).
func golden(t *testing.T, name string, got any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(got))
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), buf.String())
}

// The tool definitions as the fake recorded them, and the JSON Schema the
// service hands the model for each parameter (threadstest's ModelSchema):
// every parameter's type, enum values and description reach the model,
// for a NewTool tool, a hand-built Tool (Type "enum" and a plain string),
// and a ClientTool the caller answers itself. Before, the model saw
// "priority": {"type": "string"}, without the enum or the description
// (issue 21).
func TestToolDefinitionsReachTheModel(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	ticket := threads.NewTool("file_ticket", "File a ticket", func(_ context.Context, a ticketArgs) (string, error) { return "filed " + a.Priority, nil })
	handBuilt := threads.Tool{Name: "set_mood", Description: "Set the mood", Parameters: []threads.ToolParameter{
		{Name: "mood", Type: "enum", Description: "The mood", IsRequired: true, EnumValues: []string{"calm", "busy"}},
		{Name: "note", Type: "string", Description: "Why", IsRequired: false},
		{Name: "ids", Type: "array", Description: "Which ones", Items: &threads.ToolParameterItems{Type: "integer"}},
	}, Call: func(context.Context, threads.ToolCall) (string, error) { return "ok", nil }}
	external := threads.ClientTool{Name: "pick_color", Description: "Ask the user for a color", Parameters: []threads.ToolParameter{
		{Name: "palette", Type: "string", Description: "Which palette", IsRequired: true, EnumValues: []string{"warm", "cold"}},
	}}
	s, err := c.Threads.RunStream(context.Background(), th.ID, threads.AdvanceParams{
		Message:     threads.UserMessage("file a ticket"),
		ClientTools: []threads.ClientTool{external},
	}, []threads.Tool{ticket, handBuilt})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)

	var first *threadstest.AdvanceRequest
	for _, r := range srv.Requests() {
		if a, err := r.Advance(); err == nil {
			first = a
			break
		}
	}
	require.NotNil(t, first, "an advance request was recorded")
	golden(t, "tool-definitions-sent.json", first.ClientTools)

	type modelTool struct {
		Name       string                    `json:"name"`
		Properties map[string]map[string]any `json:"properties"`
	}
	var seen []modelTool
	for _, tool := range first.ClientTools {
		m := modelTool{Name: tool.Name, Properties: map[string]map[string]any{}}
		for _, p := range tool.Parameters {
			m.Properties[p.Name] = p.ModelSchema()
		}
		seen = append(seen, m)
	}
	golden(t, "tool-definitions-model.json", seen)

	// What the golden files show, said plainly.
	byName := map[string]map[string]map[string]any{}
	for _, m := range seen {
		byName[m.Name] = m.Properties
	}
	assert.Equal(t, map[string]any{"type": "string", "description": "How urgent: p1 is the most", "enum": []any{"p1", "p2", "p3"}}, byName["file_ticket"]["priority"])
	assert.Equal(t, []any{1.0, 2.0, 3.0}, byName["file_ticket"]["severity"]["enum"], "an integer enum is sent as numbers")
	assert.Equal(t, map[string]any{"type": "string", "description": "The mood", "enum": []any{"calm", "busy"}}, byName["set_mood"]["mood"])
	assert.Equal(t, map[string]any{"type": "array", "description": "Which ones", "items": map[string]any{"type": "integer"}}, byName["set_mood"]["ids"])
	assert.Equal(t, map[string]any{"type": "string", "description": "Which palette", "enum": []any{"warm", "cold"}}, byName["pick_color"]["palette"])
	assert.Equal(t, map[string]any{"description": "Anything else"}, byName["file_ticket"]["extra"])
}

// MarshalJSON adds the schema to the JSON only: the caller's ToolParameter
// and its Schema map are left as they were, and a schema the caller set
// keeps its members, gaining only a missing description and enum.
func TestToolParameterMarshalKeepsCallerSchema(t *testing.T) {
	t.Parallel()
	mine := map[string]any{"type": "string", "pattern": "^[a-z]+$"}
	p := threads.ToolParameter{Name: "slug", Type: "string", Description: "A slug", EnumValues: []string{"a", "b"}, Schema: mine}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	var got struct {
		Schema map[string]any `json:"schema"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, map[string]any{"type": "string", "pattern": "^[a-z]+$", "description": "A slug", "enum": []any{"a", "b"}}, got.Schema)
	assert.Equal(t, map[string]any{"type": "string", "pattern": "^[a-z]+$"}, mine, "the caller's map is not changed")

	b, err = json.Marshal(threads.ToolParameter{Name: "any"})
	require.NoError(t, err)
	assert.NotContains(t, string(b), "schema", "nothing to say: no schema")
}

// toolServer is a hand-scripted service for the tool runner's tests: each
// POST .../advancestream is answered by the next round of its script, in
// the live service's snapshot shapes (captures 45 and 46), and recorded.
type toolServer struct {
	*httptest.Server
	t *testing.T

	mu     sync.Mutex
	rounds []round
	reqs   []advanceRequest
	raw    [][]byte
}

// round answers one advance request with an SSE body.
type round func(req advanceRequest) string

// advanceRequest is an advance body as the server received it.
type advanceRequest struct {
	Path    string `json:"-"`
	Message struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		Error      string `json:"error"`
		Content    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"messageToAppend"`
	ClientTools     []threads.ClientTool `json:"clientTools"`
	ToolCallCounts  map[string]int       `json:"toolCallCounts"`
	ForceToolChoice string               `json:"forceToolChoice"`
	ContextKey      string               `json:"contextKey"`
}

func (r advanceRequest) text() string {
	var b strings.Builder
	for _, p := range r.Message.Content {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (r advanceRequest) toolNames() []string {
	var out []string
	for _, t := range r.ClientTools {
		out = append(out, t.Name)
	}
	return out
}

func newToolServer(t *testing.T, rounds ...round) *toolServer {
	t.Helper()
	s := &toolServer{t: t, rounds: rounds}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *toolServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req advanceRequest
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/advancestream") || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"statusCode":400,"message":"bad request","error":"Bad Request"}`, http.StatusBadRequest)
		return
	}
	req.Path = r.URL.EscapedPath()
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.raw = append(s.raw, body)
	var next round
	if len(s.rounds) > 0 {
		next, s.rounds = s.rounds[0], s.rounds[1:]
	}
	s.mu.Unlock()
	if next == nil {
		s.t.Errorf("toolServer: unexpected request %d: %s", len(s.reqs), body)
		http.Error(w, "no round left", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusCreated)
	// One chunk per event, as the live service writes them.
	for _, ev := range strings.SplitAfter(next(req), "\n\n") {
		if ev == "" {
			continue
		}
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

const testThread = "thr_gpEaoTNQ.ead732"

// snapshot renders one data: line in the live shape.
func snapshot(msgID, text, stage, status string, extra map[string]any, component map[string]any) string {
	comp := map[string]any{"message": text, "componentName": "", "props": nil, "componentState": nil, "role": "assistant"}
	for k, v := range component {
		comp[k] = v
	}
	msg := map[string]any{
		"id": msgID, "threadId": testThread, "isCancelled": false, "createdAt": "2026-11-21T23:59:45.607Z",
		"additionalContext": map[string]any{}, "componentState": map[string]any{},
		"content": []any{map[string]any{"type": "text", "text": text}}, "component": comp,
		"role": "assistant", "reasoning": []any{},
	}
	for k, v := range extra {
		msg[k] = v
	}
	b, err := json.Marshal(map[string]any{"responseMessageDto": msg, "generationStage": stage, "statusMessage": status})
	if err != nil {
		panic(err)
	}
	return "data: " + string(b) + "\n\n"
}

// textReply streams text as the live service does: the placeholder, growing
// snapshots, the full text repeated, COMPLETE, DONE.
func textReply(msgID, text string) string {
	var b strings.Builder
	b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil, nil))
	words := strings.SplitAfter(text, " ")
	for i := range words {
		b.WriteString(snapshot(msgID, strings.Join(words[:i+1], ""), "STREAMING_RESPONSE", "Streaming response...", nil, nil))
	}
	b.WriteString(snapshot(msgID, text, "STREAMING_RESPONSE", "Streaming response...", nil, nil))
	b.WriteString(snapshot(msgID, text, "COMPLETE", "Complete", nil, nil))
	b.WriteString("data: DONE\n\n")
	return b.String()
}

// toolCallReply streams a client tool call as capture 45 does: the
// placeholder, component.toolCallRequest with the arguments growing and an
// empty toolCallId, then the final FETCHING_CONTEXT snapshot with the
// top-level toolCallRequest and tool_call_id. args alternate name, value.
func toolCallReply(msgID, callID, tool string, args ...any) string {
	var b strings.Builder
	b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil, nil))
	params := []any{}
	req := func() map[string]any {
		return map[string]any{"toolName": tool, "parameters": append([]any{}, params...)}
	}
	b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil, map[string]any{"toolCallRequest": req(), "toolCallId": ""}))
	for i := 0; i+1 < len(args); i += 2 {
		if s, ok := args[i+1].(string); ok && len(s) > 1 {
			partial := append(params, map[string]any{"parameterName": args[i], "parameterValue": s[:len(s)/2]})
			b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil,
				map[string]any{"toolCallRequest": map[string]any{"toolName": tool, "parameters": partial}, "toolCallId": ""}))
		}
		params = append(params, map[string]any{"parameterName": args[i], "parameterValue": args[i+1]})
		b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil, map[string]any{"toolCallRequest": req(), "toolCallId": ""}))
	}
	b.WriteString(snapshot(msgID, " ", "STREAMING_RESPONSE", "Streaming response...", nil, map[string]any{"toolCallRequest": req(), "toolCallId": callID}))
	b.WriteString(snapshot(msgID, " ", "FETCHING_CONTEXT", "Fetching context...",
		map[string]any{"actionType": "tool_call", "toolCallRequest": req(), "tool_call_id": callID},
		map[string]any{"toolCallRequest": req(), "toolCallId": callID}))
	b.WriteString("data: DONE\n\n")
	return b.String()
}

// callTool is a round that asks for a tool call.
func callTool(msgID, callID, tool string, args ...any) round {
	return func(advanceRequest) string { return toolCallReply(msgID, callID, tool, args...) }
}

// quoteResult is a round that answers a tool message by quoting it, as
// the fake model does.
func quoteResult(msgID string) round {
	return func(req advanceRequest) string {
		if req.Message.Error != "" {
			return textReply(msgID, fmt.Sprintf("The tool failed: %s", req.text()))
		}
		return textReply(msgID, "The tool returned: "+req.text())
	}
}

// raw is a round that sends body as it is.
func raw(body string) round { return func(advanceRequest) string { return body } }
