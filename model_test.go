package threads

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bodies as the live service sent them (spec captures 31 and 45), plus a
// fractional reasoningDurationMS and values no enum lists.
func TestModelDecodesLiveBodies(t *testing.T) {
	t.Parallel()
	var p Project
	require.NoError(t, json.Unmarshal([]byte(`{"id":"p_DSr8JxVP.57a223","name":"Live Capture Project","userId":"3abc4ccf-139a-476d-bcc4-95d0c1cb6237","defaultLlmProviderName":"openai-compatible","customLlmModelName":"fake-model","customLlmBaseURL":"http://127.0.0.1:18555/v1","allowSystemPromptOverride":false,"isTokenRequired":false,"providerType":"llm","agentProviderType":"ag-ui"}`), &p))
	assert.Equal(t, Project{ID: "p_DSr8JxVP.57a223", Name: "Live Capture Project", UserID: "3abc4ccf-139a-476d-bcc4-95d0c1cb6237",
		DefaultLLMProviderName: "openai-compatible", CustomLLMModelName: "fake-model", CustomLLMBaseURL: "http://127.0.0.1:18555/v1",
		ProviderType: "llm", AgentProviderType: "ag-ui"}, p)

	var r AdvanceResponse
	require.NoError(t, json.Unmarshal([]byte(`{"responseMessageDto":{"id":"msg_XPa1dsLK.67dae4","threadId":"thr_gpEaoTNQ.ead732","isCancelled":false,"createdAt":"2026-11-21T23:59:45.607Z","additionalContext":{},"actionType":"tool_call","componentState":{},"content":[{"type":"text","text":" "}],"component":{"message":" ","componentName":"","props":null,"componentState":null,"toolCallId":"call_fake_1","role":"assistant","toolCallRequest":{"toolName":"get_weather","parameters":[{"parameterName":"city","parameterValue":"Paris"}]}},"role":"assistant","reasoning":[],"reasoningDurationMS":12.5,"toolCallRequest":{"toolName":"get_weather","parameters":[{"parameterName":"city","parameterValue":"Paris"}]},"tool_call_id":"call_fake_1"},"generationStage":"FETCHING_CONTEXT","statusMessage":"Fetching context..."}`), &r))
	m := r.Message
	assert.Equal(t, GenerationStageFetchingContext, r.GenerationStage)
	assert.Equal(t, "call_fake_1", m.ToolCallID)
	assert.Equal(t, ActionTypeToolCall, m.ActionType)
	assert.InDelta(t, 12.5, m.ReasoningDurationMS, 0)
	require.NotNil(t, m.ToolCallRequest)
	assert.Equal(t, []ToolCallParameter{{ParameterName: "city", ParameterValue: "Paris"}}, m.ToolCallRequest.Parameters)
	require.NotNil(t, m.Component)
	assert.Equal(t, RoleAssistant, m.Component.Role)
	assert.Equal(t, "call_fake_1", m.Component.ToolCallID)
	assert.Nil(t, m.Component.Props)
	assert.Equal(t, " ", m.Text())
	assert.True(t, r.MCPAccessToken.IsZero())

	var open Thread
	require.NoError(t, json.Unmarshal([]byte(`{"id":"thr_1.a","projectId":"p_1.b","generationStage":"SOMETHING_NEW","createdAt":"2026-11-21T23:59:45.554Z","updatedAt":"2026-11-21T23:59:45.554Z"}`), &open))
	assert.Equal(t, GenerationStage("SOMETHING_NEW"), open.GenerationStage)
	assert.False(t, open.GenerationStage.Valid())
}

const testToken = "eyJhbGciOiJIUzI1NiJ9.mcp-secret-token.sig"

func tokenSnapshot() AdvanceResponse {
	return AdvanceResponse{
		Message:         Message{ID: "msg_1.a", ThreadID: "thr_1.b", Role: RoleAssistant, Content: []ContentPart{{Type: ContentPartTypeText, Text: "hi"}}},
		GenerationStage: GenerationStageComplete,
		StatusMessage:   "Complete",
		MCPAccessToken:  NewToken(testToken),
	}
}

func TestTokenNeverPrinted(t *testing.T) {
	t.Parallel()
	r := tokenSnapshot()
	ev := StreamEvent{AdvanceResponse: r, TextDelta: "hi"}
	values := []any{r.MCPAccessToken, &r.MCPAccessToken, r, &r, ev, &ev, []StreamEvent{ev}, map[string]any{"r": r}}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T", "%10s", "%-8v", "% x", "%08q", "%t", "%p"}
	for _, v := range values {
		for _, verb := range verbs {
			s := fmt.Sprintf(verb, v)
			assert.NotContains(t, s, testToken, "%s of %T", verb, v)
			assert.NotContains(t, s, "mcp-secret", "%s of %T", verb, v)
		}
		for _, s := range []string{fmt.Sprint(v), fmt.Sprintln(v)} {
			assert.NotContains(t, s, testToken)
		}
	}
	assert.Equal(t, "[REDACTED]", fmt.Sprint(r.MCPAccessToken))
	assert.Equal(t, `"[REDACTED]"`, fmt.Sprintf("%q", r.MCPAccessToken))
	assert.Equal(t, `"[REDACTED]"`, fmt.Sprintf("%#v", r.MCPAccessToken))
	assert.Contains(t, fmt.Sprintf("%+v", r), "MCPAccessToken:[REDACTED]")
	assert.Equal(t, "", fmt.Sprint(Token{}))
	assert.Equal(t, testToken, r.MCPAccessToken.Reveal())
}

func TestTokenNeverLogged(t *testing.T) {
	t.Parallel()
	r := tokenSnapshot()
	ev := StreamEvent{AdvanceResponse: r, TextDelta: "hi"}
	for name, newHandler := range map[string]func(*bytes.Buffer) slog.Handler{
		"json": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		"text": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
	} {
		var buf bytes.Buffer
		l := slog.New(newHandler(&buf))
		l.Info("snapshot", "token", r.MCPAccessToken, "resp", r, "respPtr", &r, "event", ev, "eventPtr", &ev)
		l.Info("attrs", slog.Any("resp", r), slog.Any("event", ev), slog.Group("g", "t", r.MCPAccessToken))
		out := buf.String()
		assert.NotContains(t, out, testToken, name)
		assert.NotContains(t, out, "mcp-secret", name)
		assert.Contains(t, out, "[REDACTED]", name)
		assert.Contains(t, out, "msg_1.a", name) // the rest of the snapshot is still logged
	}
}

func TestTokenJSONRoundTrip(t *testing.T) {
	t.Parallel()
	data := []byte(`{"responseMessageDto":{"id":"m","threadId":"t","role":"assistant","content":[],"createdAt":"2026-01-01T00:00:00.000Z"},"generationStage":"COMPLETE","mcpAccessToken":"` + testToken + `"}`)
	var r AdvanceResponse
	require.NoError(t, json.Unmarshal(data, &r))
	assert.Equal(t, testToken, r.MCPAccessToken.Reveal())
	out, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"mcpAccessToken":"`+testToken+`"`)

	var none AdvanceResponse
	require.NoError(t, json.Unmarshal([]byte(`{"responseMessageDto":{"id":"m","threadId":"t","role":"user","content":[],"createdAt":"2026-01-01T00:00:00Z"},"generationStage":"IDLE"}`), &none))
	out, err = json.Marshal(none)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "mcpAccessToken")
}
