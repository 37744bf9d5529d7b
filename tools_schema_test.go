package threads_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

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
