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
