package aguischema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// schemaFile is AG-UI's draft schema, copied with its fixtures and licence
// into package runs' testdata.
var schemaFile = filepath.Join("..", "..", "runs", "testdata", "agui", "schema.json")

// preOneNames are the event types the fake writes that AG-UI 1.0 no longer
// has: the service sends its reasoning under these pre-1.0 names today
// (runs decodes them to the same types as their REASONING_* twins).
var preOneNames = []string{
	"THINKING_START", "THINKING_END",
	"THINKING_TEXT_MESSAGE_START", "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END",
}

// serviceMembers are members the service adds to AG-UI's events, which
// AG-UI's closed event objects do not allow: they are taken out before the
// rest of the event is validated.
var serviceMembers = map[string][]string{
	"RUN_ERROR": {"category", "isRetryable", "status"},
}

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("agui.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("agui.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validate(sch *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// The validator is the schema's: the fixtures' valid events pass and
// their invalid ones fail, so a pass below means something.
func TestSchemaTellsFixturesApart(t *testing.T) {
	t.Parallel()
	sch := compile(t)
	files, _ := filepath.Glob(filepath.Join("..", "..", "runs", "testdata", "agui", "fixtures", "*Event", "*", "*.json"))
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".expect.json") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n++
		err = validate(sch, data)
		if valid := filepath.Base(filepath.Dir(f)) == "valid"; valid != (err == nil) {
			t.Errorf("%s: %v", f, err)
		}
	}
	if n != 141 {
		t.Errorf("%d event fixtures, want 141", n)
	}
}

// Every event the fake writes, over scripts that make it write each kind
// (text, tool calls, a component, a message parent, reasoning under each
// naming, a failure, both cancel endings, usage, interrupts), validates
// against AG-UI's schema, but for the pre-1.0 names and the service's
// members listed above.
func TestFakeEventsValidate(t *testing.T) {
	t.Parallel()
	sch := compile(t)
	srv := threadstest.NewServer(t)
	u := runs.New(srv.Client()).ForUser("user-1")
	ctx := t.Context()
	weather := runs.ToolDefinition{Name: "get_weather", InputSchema: map[string]any{"type": "object",
		"properties": map[string]any{"city": map[string]any{"type": "string"}}}}
	card := runs.AvailableComponent{Name: "Card", Description: "A card", PropsSchema: map[string]any{"type": "object",
		"properties": map[string]any{"title": map[string]any{"type": "string"}}}}
	usage := []threadstest.TokenUsage{{Provider: "openai", Model: "gpt-5", InputTokens: 3, OutputTokens: 2, TotalTokens: 5}}
	scripts := []threadstest.RunScript{
		{Text: "Hello there.", Usage: usage},
		{ToolCalls: []threadstest.RunToolCall{{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}}}},
		{Component: &threadstest.RunComponent{Name: "Card", Props: map[string]any{"title": "Hi"}, FinalState: map[string]any{"open": true}}},
		{Text: "A child.", ParentMessageID: "msg_parent"},
		{Text: "Thought.", Reasoning: &threadstest.RunReasoning{Blocks: []string{"Let me think."}, Phase: true}},
		{Text: "Thought.", Reasoning: &threadstest.RunReasoning{Names: threadstest.ReasoningAGUI, Blocks: []string{"Let me think."}, Phase: true, EncryptedValue: "enc"}},
		{Text: "Thought.", Reasoning: &threadstest.RunReasoning{Names: threadstest.ReasoningChunks, Blocks: []string{"Let me think."}}},
		{Error: &threadstest.RunFailure{Code: "LLM_CLIENT_ERROR", Status: 400}, Usage: usage},
		{Text: "May I?", Interrupts: []threadstest.RunInterrupt{{Message: "Refund 50 euros?"},
			{ID: "approve", Reason: "tool_call", ToolCallID: "call_1", ResponseSchema: map[string]any{"type": "object"},
				ExpiresAt: "2026-12-02T03:00:00Z", Metadata: map[string]any{"k": "v"}}}},
	}
	seen := map[string]int{}
	excepted := map[string]int{}
	check := func(s *runs.Stream, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for s.Next() {
			data := bytes.Clone(s.EventJSON())
			var ev map[string]any
			if err := json.Unmarshal(data, &ev); err != nil {
				t.Fatal(err)
			}
			typ, _ := ev["type"].(string)
			if slices.Contains(preOneNames, typ) {
				excepted[typ]++
				continue
			}
			if drop := serviceMembers[typ]; drop != nil {
				for _, m := range drop {
					delete(ev, m)
				}
				data, _ = json.Marshal(ev)
			}
			seen[typ]++
			if err := validate(sch, data); err != nil {
				t.Errorf("the fake's %s does not validate: %v\n%s", typ, err, data)
			}
		}
	}
	for _, sc := range scripts {
		srv.PushRunScript(sc)
		check(u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")},
			ToolDefinitions: []runs.ToolDefinition{weather}, AvailableComponents: []runs.AvailableComponent{card}}}))
	}
	// Both of a cancel's endings: RUN_ERROR CANCELLED, and RUN_FINISHED
	// with the text message open.
	for _, end := range []string{"RUN_ERROR", "RUN_FINISHED"} {
		hold := make(chan struct{})
		held := make(chan struct{})
		srv.PushRunScript(threadstest.RunScript{Text: "one two three", Hold: hold, HoldAfter: 2, CancelEnd: end, OnHold: func() { close(held) }})
		s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
		if err != nil {
			t.Fatal(err)
		}
		<-held
		if err := u.Cancel(ctx, s.ThreadID(), s.RunID()); err != nil {
			t.Fatal(err)
		}
		close(hold)
		check(s, nil)
	}
	want := []string{"CUSTOM", "REASONING_ENCRYPTED_VALUE", "REASONING_END", "REASONING_MESSAGE_CHUNK",
		"REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END", "REASONING_MESSAGE_START", "REASONING_START",
		"RUN_ERROR", "RUN_FINISHED", "RUN_STARTED", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
		"TEXT_MESSAGE_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_START"}
	var got []string
	for typ := range seen {
		got = append(got, typ)
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("the fake wrote %v\nwant %v", got, want)
	}
	if len(excepted) != len(preOneNames) {
		t.Errorf("pre-1.0 names written: %v; want each of %v", excepted, preOneNames)
	}
	t.Logf("validated per type: %v; pre-1.0 names (exceptions): %v", seen, excepted)
}
