package threads

import (
	"encoding/json"
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
