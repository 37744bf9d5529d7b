package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/threadstest"
)

// A --script file becomes one run script per element, every documented
// member carried over; a member the file format does not have, or a value
// it does not take, is refused with the file and script named.
func TestLoadFakeScripts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	hold := make(chan struct{})
	good := write("good.json", `[
		{"text": "Hello.", "usage": [{"provider": "openai", "model": "gpt-5", "inputTokens": 12}]},
		{"toolCalls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
		{"error": {"code": "LLM_CLIENT_ERROR", "status": 400}, "errorAfter": 1},
		{"text": "slow", "pace": "250ms", "hold": true, "holdAfter": 2, "cancelEnd": "RUN_FINISHED"},
		{"text": "ok", "reasoning": ["think"], "reasoningNames": "agui"},
		{"text": "May I?", "interrupts": [{"message": "Refund 50 euros?"}, {"id": "b2", "reason": "tool_call", "toolCallId": "call_1",
			"responseSchema": {"type": "object"}, "expiresAt": "2026-12-02T03:00:00Z", "metadata": {"k": "v"}}]}
	]`)
	scripts, err := loadFakeScripts(good, hold, func(string, string) {})
	require.NoError(t, err)
	require.Len(t, scripts, 6)
	assert.Equal(t, []threadstest.TokenUsage{{Provider: "openai", Model: "gpt-5", InputTokens: 12}}, scripts[0].Usage)
	assert.Equal(t, "get_weather", scripts[1].ToolCalls[0].Name)
	assert.Equal(t, map[string]any{"city": "Paris"}, scripts[1].ToolCalls[0].Arguments)
	assert.Equal(t, &threadstest.RunFailure{Code: "LLM_CLIENT_ERROR", Status: 400}, scripts[2].Error)
	assert.Equal(t, 1, scripts[2].ErrorAfter)
	assert.Equal(t, 250*time.Millisecond, scripts[3].Pace)
	assert.Equal(t, (<-chan struct{})(hold), scripts[3].Hold)
	assert.NotNil(t, scripts[3].OnHoldRun)
	assert.Equal(t, 2, scripts[3].HoldAfter)
	assert.Equal(t, "RUN_FINISHED", scripts[3].CancelEnd)
	assert.Nil(t, scripts[0].Hold, "only a script that says hold is held")
	assert.Equal(t, &threadstest.RunReasoning{Names: threadstest.ReasoningAGUI, Blocks: []string{"think"}}, scripts[4].Reasoning)
	assert.Equal(t, []threadstest.RunInterrupt{{Message: "Refund 50 euros?"}, {ID: "b2", Reason: "tool_call", ToolCallID: "call_1",
		ResponseSchema: map[string]any{"type": "object"}, ExpiresAt: "2026-12-02T03:00:00Z", Metadata: map[string]any{"k": "v"}}}, scripts[5].Interrupts)

	for text, want := range map[string]string{
		`[{"txt": "typo"}]`:                             "unknown field",
		`{"text": "not an array"}`:                      "not a JSON array",
		`[{"pace": "soon"}]`:                            "run script 1: pace",
		`[{}, {"cancelEnd": "DONE"}]`:                   "run script 2: cancelEnd",
		`[{"reasoning": ["x"], "reasoningNames": "x"}]`: "reasoningNames",
		`[{"toolCalls": [{"arguments": {}}]}]`:          "without a name",
		`[{"interrupts": [{"prompt": "x"}]}]`:           "unknown field",
	} {
		_, err := loadFakeScripts(write("bad.json", text), hold, nil)
		if assert.Error(t, err, text) {
			assert.Contains(t, err.Error(), want, text)
			assert.True(t, strings.Contains(err.Error(), "bad.json"), err.Error())
		}
	}
}
