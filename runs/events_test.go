package runs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// loadReplay reads testdata/replays/name: an event sequence of the
// service's (or AG-UI's) that no capture holds, built from their source;
// each file says from what.
func loadReplay(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "replays", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replayDocs returns the data of every event of every replay.
func replayDocs(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "replays", "*.sse"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no replays: %v", err)
	}
	var docs []string
	for _, f := range files {
		for _, line := range strings.Split(string(loadReplay(t, filepath.Base(f))), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				docs = append(docs, d)
			}
		}
	}
	return docs
}

func readReplay(t *testing.T, name string) ([]Event, *Result) {
	t.Helper()
	evs, err, out, s := fuzzRead(loadReplay(t, name), 0)
	if err != nil || out != OutcomeFinished {
		t.Fatalf("%s: %v, outcome %v", name, err, out)
	}
	return evs, s.result()
}

// The service's reasoning today (THINKING_TEXT_MESSAGE_*, no message id)
// decodes into the reasoning types, keeps its wire names, and stays out
// of the reply: Result's text is the reply alone, the reasoning is the
// reply message's, in its two blocks.
func TestReplayThinkingService(t *testing.T) {
	t.Parallel()
	evs, r := readReplay(t, "thinking-service.sse")
	var types []string
	for _, e := range evs {
		types = append(types, reflect.TypeOf(e).Name()+" "+e.EventType())
	}
	want := []string{
		"RunStarted RUN_STARTED",
		"ReasoningMessageStart THINKING_TEXT_MESSAGE_START",
		"ReasoningMessageContent THINKING_TEXT_MESSAGE_CONTENT",
		"ReasoningMessageContent THINKING_TEXT_MESSAGE_CONTENT",
		"ReasoningMessageEnd THINKING_TEXT_MESSAGE_END",
		"ReasoningMessageStart THINKING_TEXT_MESSAGE_START",
		"ReasoningMessageContent THINKING_TEXT_MESSAGE_CONTENT",
		"ReasoningMessageEnd THINKING_TEXT_MESSAGE_END",
		"TextMessageStart TEXT_MESSAGE_START",
		"TextMessageContent TEXT_MESSAGE_CONTENT",
		"TextMessageContent TEXT_MESSAGE_CONTENT",
		"TextMessageEnd TEXT_MESSAGE_END",
		"RunFinished RUN_FINISHED",
	}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(types, "\n"), strings.Join(want, "\n"))
	}
	if got, want := evs[2], (ReasoningMessageContent{Type: EventThinkingTextMessageContent, Delta: "The user greets me. ", Timestamp: time.UnixMilli(1795498300130)}); !reflect.DeepEqual(got, want) {
		t.Errorf("event 2 = %#v, want %#v", got, want)
	}
	checkReasoningResult(t, r)
}

func checkReasoningResult(t *testing.T, r *Result) {
	t.Helper()
	if len(r.Messages) != 1 || r.Messages[0].Text() != "Hello! How can I help?" {
		t.Fatalf("messages %+v, want one with the reply alone", r.Messages)
	}
	want := []Reasoning{{MessageID: "msg_R3as0nIn.0a0b0c", Parts: []string{"The user greets me. A short, friendly answer fits.", "No tool is needed."}}}
	if !reflect.DeepEqual(r.Reasoning, want) {
		t.Errorf("reasoning %#v, want %#v", r.Reasoning, want)
	}
	if got := r.Reasoning[0].Text(); got != "The user greets me. A short, friendly answer fits.\n\nNo tool is needed." {
		t.Errorf("Text() = %q", got)
	}
}

// AG-UI's names (REASONING_*, chunks and an encrypted value among them)
// give the same Go types and the same Result as the service's.
func TestReplayReasoningAGUI(t *testing.T) {
	t.Parallel()
	evs, r := readReplay(t, "reasoning-agui.sse")
	checkReasoningResult(t, r)
	wantTypes := map[string]string{
		EventReasoningStart:          "ReasoningStart",
		EventReasoningMessageStart:   "ReasoningMessageStart",
		EventReasoningMessageContent: "ReasoningMessageContent",
		EventReasoningMessageChunk:   "ReasoningMessageContent",
		EventReasoningMessageEnd:     "ReasoningMessageEnd",
		EventReasoningEncryptedValue: "ReasoningEncryptedValue",
		EventReasoningEnd:            "ReasoningEnd",
	}
	seen := 0
	for _, e := range evs {
		if want, ok := wantTypes[e.EventType()]; ok {
			seen++
			if got := reflect.TypeOf(e).Name(); got != want {
				t.Errorf("%s decodes as %s, want %s", e.EventType(), got, want)
			}
		}
	}
	if seen != 9 {
		t.Errorf("%d reasoning events, want 9", seen)
	}
	if got, want := evs[8], (ReasoningEncryptedValue{Subtype: "message", EntityID: "msg_R3as0nIn.0a0b0c", EncryptedValue: "gAAAAABn0pQ", Timestamp: time.UnixMilli(1795498300250)}); !reflect.DeepEqual(got, want) {
		t.Errorf("encrypted value %#v, want %#v", got, want)
	}
	if got, want := evs[1], (ReasoningStart{Type: EventReasoningStart, MessageID: "msg_R3as0nIn.0a0b0c", Timestamp: time.UnixMilli(1795498300100)}); !reflect.DeepEqual(got, want) {
		t.Errorf("start %#v, want %#v", got, want)
	}
}

// Each THINKING_* type and its REASONING_* twin decode into one Go type,
// which keeps the wire name; a zero value reads as the AG-UI 1.0 name.
func TestReasoningNamesOneTypePerMeaning(t *testing.T) {
	t.Parallel()
	for _, pair := range [][]string{
		{EventThinkingStart, EventReasoningStart},
		{EventThinkingEnd, EventReasoningEnd},
		{EventThinkingTextMessageStart, EventReasoningMessageStart},
		{EventThinkingTextMessageContent, EventReasoningMessageContent, EventReasoningMessageChunk},
		{EventThinkingTextMessageEnd, EventReasoningMessageEnd},
	} {
		var first reflect.Type
		for _, name := range pair {
			e, err := decodeEvent([]byte(`{"type":"` + name + `","title":"T","delta":"d"}`))
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = reflect.TypeOf(e)
			} else if reflect.TypeOf(e) != first {
				t.Errorf("%s decodes as %T, %s as %v", name, e, pair[0], first)
			}
			if e.EventType() != name {
				t.Errorf("%s: EventType() = %q", name, e.EventType())
			}
		}
		if zero := reflect.Zero(first).Interface().(Event); zero.EventType() != pair[1] {
			t.Errorf("zero %v: EventType() = %q, want %q", first, zero.EventType(), pair[1])
		}
	}
	e, _ := decodeEvent([]byte(`{"type":"THINKING_START","title":"Planning"}`))
	if e.(ReasoningStart).Title != "Planning" {
		t.Errorf("THINKING_START's title lost: %#v", e)
	}
}

// tambo.message.parent, repeated before each batch of the child's
// events, is typed and sets the message's parent in Result; the
// reasoning before the child's text is the child's.
func TestReplayMessageParent(t *testing.T) {
	t.Parallel()
	evs, r := readReplay(t, "parent-service.sse")
	want := MessageParent{MessageID: "msg_Ch1ld000.0a0b0c", ParentMessageID: "msg_Par3nt00.0d0e0f", Timestamp: time.UnixMilli(1795498400100)}
	if !reflect.DeepEqual(evs[1], want) || evs[1].EventType() != EventCustom {
		t.Errorf("event 1 = %#v, want %#v", evs[1], want)
	}
	if len(r.Messages) != 1 || r.Messages[0].ParentMessageID != want.ParentMessageID || r.Messages[0].ID != want.MessageID ||
		r.Messages[0].Text() != "The page is about Go." || r.Messages[0].Role != RoleAssistant {
		t.Errorf("messages %+v", r.Messages)
	}
	if len(r.Reasoning) != 1 || r.Reasoning[0].MessageID != want.MessageID || r.Reasoning[0].Text() != "Summarise the page." {
		t.Errorf("reasoning %+v", r.Reasoning)
	}
}

// AG-UI's subagent events are typed with every member; RUN_FINISHED's
// interrupt outcome and result are read; the run is still finished.
func TestReplaySubagentsAndInterrupt(t *testing.T) {
	t.Parallel()
	data := loadReplay(t, "subagent-interrupt-agui.sse")
	evs, r := readReplay(t, "subagent-interrupt-agui.sse")
	var subs []SubagentEvent
	for _, e := range evs {
		if s, ok := e.(SubagentEvent); ok {
			subs = append(subs, s)
			if !strings.Contains(string(data), "data: "+string(s.Raw)+"\n") {
				t.Errorf("Raw is not the event as sent: %s", s.Raw)
			}
			if s.EventType() != s.Type {
				t.Errorf("EventType() = %q, Type %q", s.EventType(), s.Type)
			}
		}
	}
	if len(subs) != 4 {
		t.Fatalf("%d subagent events, want 4: %#v", len(subs), evs)
	}
	got := []SubagentEvent{subs[0], subs[1], subs[2], subs[3]}
	for i := range got {
		got[i].Raw = nil
	}
	want := []SubagentEvent{
		{Type: EventSubagentStarted, SubagentRunID: "sar_1", Name: "researcher", Description: "Looks things up",
			ParentToolCallID: "call_7", ParentMessageID: "msg_Sub4gent.0a0b0c", Timestamp: time.UnixMilli(1795498500100)},
		{Type: EventSubagentFinished, SubagentRunID: "sar_1", Result: json.RawMessage(`{"pages":2}`),
			Outcome: &SubagentOutcome{Type: "suspended", InterruptIDs: []string{"int_1"}}, Timestamp: time.UnixMilli(1795498500140)},
		{Type: EventSubagentStarted, SubagentRunID: "sar_2", Name: "writer", Timestamp: time.UnixMilli(1795498500150)},
		{Type: EventSubagentError, SubagentRunID: "sar_2", Message: "model unavailable", Code: "UNAVAILABLE", Timestamp: time.UnixMilli(1795498500160)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("subagent events\n%#v\nwant\n%#v", got, want)
	}
	var fin struct {
		Outcome struct{ InterruptIDs []string } `json:"outcome"`
	}
	if err := json.Unmarshal(subs[1].Raw, &fin); err != nil || !reflect.DeepEqual(fin.Outcome.InterruptIDs, []string{"int_1"}) {
		t.Errorf("SUBAGENT_FINISHED's outcome from Raw: %+v, %v", fin, err)
	}
	end := evs[len(evs)-1].(RunFinished)
	wantInt := []Interrupt{{ID: "int_1", Reason: "tool_call", Message: "Send the email?", ToolCallID: "call_7",
		ResponseSchema: map[string]any{"type": "object", "properties": map[string]any{"approved": map[string]any{"type": "boolean"}}},
		ExpiresAt:      "2026-11-30T12:00:00Z", Metadata: map[string]any{"risk": "low"}}}
	if end.Ending == nil || !reflect.DeepEqual(end.Ending.Interrupts, wantInt) || string(end.Ending.Result) != `{"ok":false}` || end.RunID != "run_Sub4gent.d4e5f6" {
		t.Errorf("RUN_FINISHED %#v", end)
	}
	if r.Messages[0].Text() != "Found it." {
		t.Errorf("messages %+v", r.Messages)
	}
}

// Members of the wrong kind: a subagent event (a proposal) becomes an
// UnknownEvent, and a RUN_FINISHED outcome this version cannot read is
// left out, never a failure of the run that finished; a reasoning event
// of the wrong kind fails like any known event.
func TestDecodeLenientOnProposals(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{"type":"SUBAGENT_STARTED","subagentRunId":7}`,
		`{"type":"SUBAGENT_ERROR","message":{"a":1}}`,
	} {
		e, err := decodeEvent([]byte(doc))
		if u, ok := e.(UnknownEvent); err != nil || !ok || string(u.Raw) != doc {
			t.Errorf("%s: %#v, %v; want an UnknownEvent", doc, e, err)
		}
	}
	for _, doc := range []string{
		`{"type":"RUN_FINISHED","runId":"r","outcome":"interrupt","result":null}`,
		`{"type":"RUN_FINISHED","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":1}]}}`,
		`{"type":"RUN_FINISHED","runId":"r","outcome":null}`,
	} {
		e, err := decodeEvent([]byte(doc))
		if f, ok := e.(RunFinished); err != nil || !ok || f.RunID != "r" || f.Ending != nil {
			t.Errorf("%s: %#v, %v", doc, e, err)
		}
	}
	if _, err := decodeEvent([]byte(`{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":5}`)); err == nil {
		t.Error("a reasoning delta that is a number decoded")
	}
	e, err := decodeEvent([]byte(`{"type":"CUSTOM","name":"tambo.message.parent","value":{"messageId":1}}`))
	if err == nil {
		t.Errorf("a parent event whose value does not decode: %#v", e)
	}
}
