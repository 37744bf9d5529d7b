package runs

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sseRun makes a run's body of events (JSON), ended by RUN_FINISHED.
func sseRun(events ...string) []byte {
	var b strings.Builder
	for _, e := range append(events, `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`) {
		b.WriteString("data: " + e + "\n\n")
	}
	return []byte(b.String())
}

const (
	thinkStart = `{"type":"THINKING_TEXT_MESSAGE_START"}`
	thinkEnd   = `{"type":"THINKING_TEXT_MESSAGE_END"}`
)

func think(delta string) string {
	return `{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"` + delta + `"}`
}

func textStart(id string) string {
	return `{"type":"TEXT_MESSAGE_START","messageId":"` + id + `","role":"assistant"}`
}

func textDelta(id, delta string) string {
	return `{"type":"TEXT_MESSAGE_CONTENT","messageId":"` + id + `","delta":"` + delta + `"}`
}

func textEnd(id string) string { return `{"type":"TEXT_MESSAGE_END","messageId":"` + id + `"}` }

func collectBody(t *testing.T, body []byte) *Result {
	t.Helper()
	_, err, _, s := fuzzRead(body, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s.result()
}

// Unnamed reasoning (THINKING_*) goes to the message being written when
// it comes, else to the next message the run starts, a component's
// included; reasoning no message follows has no message id; text that
// resumes under the same id gathers its reasoning in one entry; reasoning
// never joins a message's text.
func TestReasoningAttribution(t *testing.T) {
	t.Parallel()
	comp := `{"type":"CUSTOM","name":"tambo.component.start","value":{"messageId":"m3","componentId":"c1","componentName":"Card"}}`
	r := collectBody(t, sseRun(
		thinkStart, think("before m1"), thinkEnd,
		textStart("m1"), textDelta("m1", "one"),
		thinkStart, think("inside m1"), thinkEnd,
		textEnd("m1"),
		thinkStart, think("before m2"), thinkEnd,
		textStart("m2"), textDelta("m2", "two"), textEnd("m2"),
		thinkStart, think("before m1 again"), thinkEnd,
		textStart("m1"), textDelta("m1", " more"), textEnd("m1"),
		think("implicit block before m3"),
		comp,
		thinkStart, think("then only a tool"), thinkEnd,
		`{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}`,
	))
	want := []Reasoning{
		{MessageID: "m1", Parts: []string{"before m1", "inside m1", "before m1 again"}},
		{MessageID: "m2", Parts: []string{"before m2"}},
		{MessageID: "m3", Parts: []string{"implicit block before m3"}},
		{MessageID: "", Parts: []string{"then only a tool"}},
	}
	if !reflect.DeepEqual(r.Reasoning, want) {
		t.Errorf("reasoning\n%#v\nwant\n%#v", r.Reasoning, want)
	}
	texts := map[string]string{}
	for _, m := range r.Messages {
		texts[m.ID] = m.Text()
	}
	if want := map[string]string{"m1": "one more", "m2": "two", "m3": ""}; !reflect.DeepEqual(texts, want) {
		t.Errorf("texts %q, want %q", texts, want)
	}
}

// Named reasoning (REASONING_*) goes to its id; a chunk of another id
// starts a block, a chunk without an id continues the last chunk's, any
// other event ends a run of chunks (as AG-UI's client reads them), and
// content after a block's end opens a new one.
func TestReasoningNamedBlocks(t *testing.T) {
	t.Parallel()
	msg := func(typ, id, delta string) string {
		return fmt.Sprintf(`{"type":%q,"messageId":%q,"delta":%q}`, typ, id, delta)
	}
	r := collectBody(t, sseRun(
		msg(EventReasoningMessageStart, "a", ""), msg(EventReasoningMessageContent, "a", "a1"), msg(EventReasoningMessageEnd, "a", ""),
		msg(EventReasoningMessageChunk, "b", "b1"), msg(EventReasoningMessageChunk, "", "+"),
		msg(EventReasoningMessageChunk, "a", "a2"), msg(EventReasoningMessageChunk, "a", "+"),
		`{"type":"STEP_STARTED","stepName":"s"}`, msg(EventReasoningMessageChunk, "a", "a3"),
		msg(EventReasoningMessageChunk, "b", "b2"),
		msg(EventReasoningMessageEnd, "b", ""), msg(EventReasoningMessageContent, "b", "b3"),
		textStart("a"), textDelta("a", "reply"),
	))
	want := []Reasoning{
		{MessageID: "a", Parts: []string{"a1", "a2+", "a3"}},
		{MessageID: "b", Parts: []string{"b1+", "b2", "b3"}},
	}
	if !reflect.DeepEqual(r.Reasoning, want) {
		t.Errorf("reasoning\n%#v\nwant\n%#v", r.Reasoning, want)
	}
	if r.Messages[0].Text() != "reply" {
		t.Errorf("text %q", r.Messages[0].Text())
	}
}

// The reasoning kept is bounded like the rest: past maxItems blocks the
// Result says it is incomplete, and the events are still delivered.
func TestReasoningBounded(t *testing.T) {
	t.Parallel()
	var evs []string
	for range maxItems + 1 {
		evs = append(evs, thinkStart, think("x"), thinkEnd)
	}
	all, err, _, s := fuzzRead(sseRun(evs...), 0)
	if err != nil || len(all) != 3*(maxItems+1)+1 {
		t.Fatalf("%d events, %v", len(all), err)
	}
	r := s.result()
	if !r.Incomplete || len(r.Reasoning) != 1 || len(r.Reasoning[0].Parts) != maxItems {
		t.Errorf("incomplete %v, %d entries", r.Incomplete, len(r.Reasoning))
	}
}

// A parent event for a message not yet started makes it, as the
// service's client does; a repeat changes nothing; one without a message
// id is ignored.
func TestMessageParentBeforeStart(t *testing.T) {
	t.Parallel()
	parent := `{"type":"CUSTOM","name":"tambo.message.parent","value":{"messageId":"m","parentMessageId":"p"}}`
	r := collectBody(t, sseRun(parent, parent, `{"type":"CUSTOM","name":"tambo.message.parent","value":{"parentMessageId":"q"}}`,
		textStart("m"), textDelta("m", "hi"), parent))
	if len(r.Messages) != 1 || r.Messages[0].ParentMessageID != "p" || r.Messages[0].Text() != "hi" || r.Messages[0].Role != RoleAssistant {
		t.Errorf("messages %+v", r.Messages)
	}
}

// FuzzReasoning streams any mix of reasoning and text events: whatever
// the order, each message's text is its text deltas alone, and the
// reasoning kept is every reasoning delta, in order, and nothing else.
func FuzzReasoning(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{8, 9, 1, 10, 2, 11, 3, 12, 4})
	f.Add([]byte{3, 1, 1, 2, 3, 7, 5, 4, 0, 6})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var evs []string
		var reasoning strings.Builder
		text := map[string]string{}
		for i, op := range ops {
			id := []string{"m1", "m2", ""}[int(op>>4)%3]
			d := fmt.Sprintf("d%d.", i)
			switch op % 13 {
			case 0:
				evs = append(evs, thinkStart)
			case 1:
				evs = append(evs, think(d))
				reasoning.WriteString(d)
			case 2:
				evs = append(evs, thinkEnd)
			case 3, 4:
				if id != "" {
					evs = append(evs, textStart(id))
				}
			case 5:
				if id != "" {
					evs = append(evs, textDelta(id, d))
					text[id] += d
				}
			case 6:
				if id != "" {
					evs = append(evs, textEnd(id))
				}
			case 7, 8, 9, 10:
				typ := []string{EventReasoningMessageStart, EventReasoningMessageContent, EventReasoningMessageChunk, EventReasoningMessageEnd}[op%13-7]
				if typ == EventReasoningMessageStart || typ == EventReasoningMessageEnd {
					d = ""
				}
				evs = append(evs, fmt.Sprintf(`{"type":%q,"messageId":%q,"delta":%q}`, typ, id, d))
				reasoning.WriteString(d)
			case 11:
				evs = append(evs, `{"type":"CUSTOM","name":"tambo.component.start","value":{"messageId":"m2","componentId":"c","componentName":"N"}}`)
			case 12:
				evs = append(evs, `{"type":"REASONING_END","messageId":"m1"}`)
			}
		}
		_, err, _, s := fuzzRead(sseRun(evs...), 0)
		if err != nil {
			t.Fatal(err)
		}
		r := s.result()
		for _, m := range r.Messages {
			if m.Text() != text[m.ID] {
				t.Fatalf("message %s: text %q, deltas %q", m.ID, m.Text(), text[m.ID])
			}
		}
		// Every reasoning delta ("dN.", each one of a kind) is kept once,
		// and a block keeps its deltas in the order they came.
		var kept []string
		for _, rs := range r.Reasoning {
			for _, p := range rs.Parts {
				ds := strings.SplitAfter(p, ".")
				ds = ds[:len(ds)-1]
				if !slices.IsSortedFunc(ds, func(a, b string) int { return cmp.Compare(num(a), num(b)) }) {
					t.Fatalf("block %q out of order", p)
				}
				kept = append(kept, ds...)
			}
		}
		slices.SortFunc(kept, func(a, b string) int { return cmp.Compare(num(a), num(b)) })
		if strings.Join(kept, "") != reasoning.String() {
			t.Fatalf("reasoning kept %q, sent %q: %+v", kept, reasoning.String(), r.Reasoning)
		}
	})
}

// num is N of a delta "dN.".
func num(d string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(d, "d"), "."))
	return n
}

// A run sent as AG-UI's chunk events (TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK:
// each opened by the chunk naming it, continued by chunks naming it or
// nothing, closed by any other event or another chunk) gives the same
// Result as the run sent as start, content and end events, as AG-UI's own
// client assembles them.
func TestChunksAssembleAsStartContentEnd(t *testing.T) {
	t.Parallel()
	full := collectBody(t, sseRun(
		textStart("m1"), textDelta("m1", "Hello, "), textDelta("m1", "world."), textEnd("m1"),
		`{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","parentMessageId":"m1"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"go\"}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c1"}`,
		`{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"fetch"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c2","delta":"{}"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c2"}`,
		textStart("m2"), textDelta("m2", "Done."), textEnd("m2"),
	))
	chunked := collectBody(t, sseRun(
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","role":"assistant","delta":"Hello, "}`,
		`{"type":"TEXT_MESSAGE_CHUNK","delta":"world."}`,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"search","parentMessageId":"m1","delta":"{\"q\":"}`,
		`{"type":"RAW","event":{"provider":"x"}}`, // AG-UI lets RAW pass without closing the call
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","delta":"\"go\"}"}`,
		`{"type":"TOOL_CALL_CHUNK","toolCallId":"c2","toolCallName":"fetch"}`, // a new id closes c1
		`{"type":"TOOL_CALL_CHUNK","delta":"{}"}`,
		`{"type":"STEP_STARTED","stepName":"answer"}`,  // any other event closes c2
		`{"type":"TEXT_MESSAGE_CHUNK","delta":"lost"}`, // names nothing, opens nothing: AG-UI refuses it
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2"}`,
		`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"Done."}`,
	))
	for _, m := range full.Messages {
		if m.Text() == "" {
			t.Fatalf("the start/content/end run lost its text: %+v", full.Messages)
		}
	}
	for _, r := range []*Result{full, chunked} {
		for i := range r.Messages {
			r.Messages[i].CreatedAt = r.Messages[0].CreatedAt
		}
	}
	if !reflect.DeepEqual(chunked, full) {
		t.Errorf("chunked run\n%+v\nwant, as start/content/end\n%+v", chunked, full)
	}
}

// Usage on RUN_FINISHED and RUN_ERROR is summed per provider and model in
// Result.Usage, across the runs of one stream's events.
func TestUsageSummedPerModel(t *testing.T) {
	t.Parallel()
	r := collectBody(t, []byte("data: "+textStart("m")+"\n\n"+
		`data: {"type":"RUN_FINISHED","threadId":"t","runId":"r","usage":[`+
		`{"provider":"openai","model":"gpt-5","inputTokens":10,"outputTokens":5,"totalTokens":15},`+
		`{"provider":"anthropic","model":"claude","inputTokens":7,"cachedInputTokens":3,"cacheWriteInputTokens":2},`+
		`{"provider":"openai","model":"gpt-5","inputTokens":1,"outputTokens":2,"reasoningTokens":4}]}`+"\n\n"))
	want := []TokenUsage{
		{Provider: "openai", Model: "gpt-5", InputTokens: 11, OutputTokens: 7, TotalTokens: 15, ReasoningTokens: 4},
		{Provider: "anthropic", Model: "claude", InputTokens: 7, CachedInputTokens: 3, CacheWriteInputTokens: 2},
	}
	if !reflect.DeepEqual(r.Usage, want) {
		t.Errorf("usage %+v, want %+v", r.Usage, want)
	}
	evs, err, out, s := fuzzRead([]byte(`data: {"type":"RUN_ERROR","message":"boom","code":"X","usage":[{"model":"m","inputTokens":4}]}`+"\n\n"), 0)
	if out != OutcomeFailed || err == nil || len(evs) != 1 {
		t.Fatalf("RUN_ERROR: %v %v %d", out, err, len(evs))
	}
	if got := s.result().Usage; !reflect.DeepEqual(got, []TokenUsage{{Model: "m", InputTokens: 4}}) {
		t.Errorf("a failed run's usage %+v", got)
	}
}
