package runs

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/threadsapi/threads-go/internal/jsonscan"
)

// eventDocs returns the data of every event of every capture and replay,
// then edge cases.
func eventDocs(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "captures", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	var docs []string
	for _, f := range files {
		num, _, _ := strings.Cut(filepath.Base(f), "-")
		body := loadCapture(t, num).respBody
		for _, line := range bytes.Split(body, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				docs = append(docs, string(d))
			}
		}
	}
	docs = append(docs, replayDocs(t)...)
	// AG-UI's draft fixtures, valid and invalid (events_agui_test.go).
	for _, f := range loadAGUIFixtures(t) {
		var b bytes.Buffer
		if strings.HasSuffix(f.def, "Event") && json.Compact(&b, f.data) == nil {
			docs = append(docs, b.String())
		}
	}
	return append(docs,
		`{"type":"THINKING_START","title":"Plan","timestamp":1}`, `{"type":"THINKING_END"}`, `{"type":"REASONING_END","messageId":"m"}`,
		`{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"a \"b\"","delta":"c"}`, `{"type":"REASONING_MESSAGE_CHUNK"}`,
		`{"type":"REASONING_MESSAGE_START","messageId":"m","role":"reasoning","Title":"x"}`, `{"type":"THINKING_TEXT_MESSAGE_START","title":1}`,
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"call_1","encryptedValue":"\u0041b"}`,
		`{"type":"REASONING_ENCRYPTED_VALUE","subtype":null,"entityId":"e","encryptedValue":"v","value":{"x":1}}`,
		`{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"d","outcome":{"type":"interrupt"}}`,
		`{"type":"RUN_FINISHED","threadId":"t","outcome":{"type":"success"}}`, `{"type":"RUN_FINISHED","result":[1]}`,
		`{"type":"SUBAGENT_STARTED","subagentRunId":"s","name":"n"}`, `{"type":"SUBAGENT_ERROR","message":"m","code":"C"}`,
		`{"type":"CUSTOM","name":"tambo.message.parent","value":{"messageId":"m","parentMessageId":"p"},"timestamp":2}`,
		`{"type":"CUSTOM","name":"tambo.message.parent","value":{"messageId":"m","parentMessageId":7}}`,
		`{"type":"CUSTOM","name":"tambo.message.parent"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a \"quoted\"\n line ✓","timestamp":1763769600000}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"`+"\xff"+`","timestamp":1}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":null,"delta":null,"timestamp":null}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":1.5e3} `,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":1,"name":"n"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":1}}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m", "delta":"x","timestamp":1}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":"1"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":1e400}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud83d\ude00 \u00e9","timestamp":1795498170118}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}`,
		`{"type":"TEXT_MESSAGE_CONTENT","delta":"a","delta":"b"}`, `{"type":"TEXT_MESSAGE_CONTENT","Delta":"a"}`,
		`{"TYPE":"TEXT_MESSAGE_CONTENT","delta":"a"}`, `{"type":"STATE_DELTA","delta":[1]}`,
		`{"type":"RUN_ERROR","message":"x","code":"C","isRetryable":true,"status":500.5}`,
		`{"type":"RUN_ERROR","status":null,"isRetryable":null,"timestamp":null}`,
		`{"type":"RUN_ERROR","status":1e2}`, `{"type":"RUN_ERROR","status":"500"}`, `{"type":"RUN_ERROR","isRetryable":"yes"}`,
		`{"type":"RUN_STARTED","timestamp":1e400}`, `{"type":"RUN_STARTED","timestamp":01}`, `{"type":"RUN_STARTED","timestamp":-0.5e-3}`,
		`{"type":"RUN_STARTED","timestamp":1.}`, `{"type":"RUN_STARTED","value":{"a":1}}`, `{"type":"RUN_STARTED","value":{"a":}}`,
		`{"type":"CUSTOM","name":"tambo.component.start","value":{"messageId":"m","componentId":"c","componentName":"N"}}`,
		`{"type":"CUSTOM","name":"tambo.component.start","value":null}`, `{"type":"CUSTOM","name":"tambo.component.start","value":"x"}`,
		`{"type":"CUSTOM","name":"tambo.component.end","value":{"componentId":"c","finalProps":{"a":[1,"}"]}}}`,
		`{"type":"CUSTOM","name":"tambo.component.props_delta","value":{"componentId":"c","operations":[{"op":"add","path":"/a","value":1}],"streamingStatus":{"a":"done"}}}`,
		`{"type":"CUSTOM","name":"tambo.run.awaiting_input","value":{"pendingToolCalls":[{"toolCallId":"t","toolName":"n","arguments":"{}"}]}}`,
		`{"type":"CUSTOM","name":"other","value":{"x":1}}`, `{"value":{"x":1},"name":"tambo.component.start","type":"CUSTOM"}`,
		` { "type" : "RUN_FINISHED" , "threadId" : "t" , "runId" : "r" } `, `{"type":"RUN_FINISHED"}x`, `{"type":"RUN_FINISHED",}`,
		`{"type":"RUN_FINISHED"`, `{"type":"RUN_FINISHED","threadId":nullx}`, `{}`, `null`, `[]`, ``, `{"type":null}`,
	)
}

// TestDecodeFastEquivalence requires decodeFast's event to be
// decodeEvent's whenever decodeFast decodes one, over every event of every
// capture (which it must all decode, but for the kinds it leaves to
// decodeEvent) and edge cases.
func TestDecodeFastEquivalence(t *testing.T) {
	t.Parallel()
	var sc jsonscan.Scanner
	docs := eventDocs(t)
	took := 0
	for _, doc := range docs {
		if checkFast(t, &sc, doc) {
			took++
		}
	}
	if took < len(docs)/2 {
		t.Errorf("decodeFast took only %d of %d events", took, len(docs))
	}
	t.Logf("decodeFast took %d of %d events", took, len(docs))
}

func checkFast(t testing.TB, sc *jsonscan.Scanner, doc string) bool {
	t.Helper()
	got, ok := decodeFast(sc, doc)
	if !ok {
		return false
	}
	want, err := decodeEvent([]byte(doc))
	if err != nil {
		t.Errorf("%.80q: decodeFast took what decodeEvent refuses (%v)", doc, err)
		return true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%.80q: events differ\ndecodeFast:  %#v\ndecodeEvent: %#v", doc, got, want)
	}
	return true
}

func FuzzDecodeFast(f *testing.F) {
	for _, d := range eventDocs(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var sc jsonscan.Scanner
		checkFast(t, &sc, doc)
	})
}

// The events the service sends per token of reasoning, and its parent
// events, take the fast path.
func TestDecodeFastTakesServiceReasoning(t *testing.T) {
	t.Parallel()
	var sc jsonscan.Scanner
	for _, name := range []string{"thinking-service.sse", "parent-service.sse", "reasoning-agui.sse"} {
		for _, line := range strings.Split(string(loadReplay(t, name)), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && !checkFast(t, &sc, d) {
				t.Errorf("%s: decodeFast gave up on %.60s", name, d)
			}
		}
	}
}
