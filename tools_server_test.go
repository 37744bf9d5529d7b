package threads_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

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

func (s *toolServer) requests() []advanceRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]advanceRequest(nil), s.reqs...)
}

func (s *toolServer) client(t *testing.T, opts ...threads.ClientOption) *threads.Client {
	t.Helper()
	base := []threads.ClientOption{
		threads.WithoutEnvironmentDefaults(),
		threads.WithBaseURL(s.URL),
		threads.WithAPIKey("test-key"),
		threads.WithMaxRetries(0),
	}
	c, err := threads.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c
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
