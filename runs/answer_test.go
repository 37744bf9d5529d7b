package runs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	threads "github.com/threadsapi/threads-go"
)

// AnswerTools answers a pause as RunTools does: the status arguments
// out, content parts as they are, an error (without the key or the end
// user's token), a panic and an unknown tool each an error result, in
// the order of the calls.
func TestAnswerTools(t *testing.T) {
	t.Parallel()
	type args struct {
		Q string `json:"q"`
	}
	var got []string
	tools := []threads.Tool{
		threads.NewTool("echo", "Echoes", func(_ context.Context, a args) (string, error) {
			got = append(got, a.Q)
			return "said " + a.Q, nil
		}),
		threads.NewPartsTool("image", "An image", func(context.Context, args) ([]threads.ContentPart, error) {
			return []threads.ContentPart{{Type: threads.ContentPartTypeText, Text: "a dot"},
				{Type: threads.ContentPartTypeResource, Resource: &threads.Resource{URI: "mem:dot", MIMEType: "image/png", Blob: "iVBO"}}}, nil
		}),
		{Name: "fails", Description: "Fails", Call: func(context.Context, threads.ToolCall) (string, error) {
			return "", errors.New("upstream refused key " + testKey + " for token tok-secret")
		}},
		{Name: "panics", Description: "Panics", Call: func(context.Context, threads.ToolCall) (string, error) { panic("boom") }},
	}
	c := newTestClient(t, "http://127.0.0.1:1").ForToken(threads.NewToken("tok-secret"))
	res, err := c.AnswerTools(context.Background(), "thr_1", "run_1", ToolRunner{Tools: tools, Concurrency: 1}, []PendingToolCall{
		{ToolCallID: "c1", ToolName: "echo", Arguments: `{"q":"hi","_tambo_statusMessage":"Echoing"}`},
		{ToolCallID: "c2", ToolName: "image", Arguments: `{"q":""}`},
		{ToolCallID: "c3", ToolName: "fails"},
		{ToolCallID: "c4", ToolName: "panics"},
		{ToolCallID: "c5", ToolName: "nobody"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 5 {
		t.Fatalf("%d results", len(res))
	}
	for i, r := range res {
		if r.Type != ContentToolResult || r.ToolUseID != "c"+string(rune('1'+i)) {
			t.Fatalf("result %d: %+v", i, r)
		}
	}
	if len(got) != 1 || got[0] != "hi" || res[0].IsError || res[0].Content[0].Text != "said hi" {
		t.Errorf("echo: %q %+v", got, res[0])
	}
	if c := res[1].Content; len(c) != 2 || c[0].Text != "a dot" || c[1].Resource == nil || c[1].Resource.Blob != "iVBO" || c[1].Resource.MIMEType != "image/png" {
		t.Errorf("parts: %+v", c)
	}
	text := res[2].Content[0].Text
	if !res[2].IsError || strings.Contains(text, testKey) || strings.Contains(text, "tok-secret") || !strings.Contains(text, "upstream refused key [REDACTED]") {
		t.Errorf("error: %q", text)
	}
	if !res[3].IsError || !strings.Contains(res[3].Content[0].Text, `tool "panics" failed: panic: boom`) {
		t.Errorf("panic: %+v", res[3])
	}
	if !res[4].IsError || !strings.HasPrefix(res[4].Content[0].Text, `there is no tool named "nobody"; the tools are: echo, fails, image, panics`) {
		t.Errorf("unknown: %+v", res[4])
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.AnswerTools(ctx, "thr_1", "run_1", ToolRunner{Tools: tools}, []PendingToolCall{{ToolCallID: "c1", ToolName: "echo"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("ended context: %v", err)
	}
	if _, err := c.AnswerTools(context.Background(), "", "", ToolRunner{Tools: append(tools, tools[0])}, nil); err == nil {
		t.Error("a tool declared twice is accepted")
	}
	if _, err := New(nil).AnswerTools(context.Background(), "", "", ToolRunner{Tools: tools}, nil); err == nil {
		t.Error("an unlinked Client answers")
	}
}

// A call is recorded by its thread, the run that paused and its tool call
// id, as RunTools records it: the same pause answered twice (a second
// instance sharing the record, a continuation sent again) runs the tool
// once and gets the recorded result; the same tool call id in another
// thread is another call. Calls without the pause's ids are refused.
func TestAnswerToolsRunsACallOncePerPause(t *testing.T) {
	t.Parallel()
	var ran []string
	var mu sync.Mutex
	tools := []threads.Tool{{Name: "refund", Description: "Refunds", Call: func(_ context.Context, c threads.ToolCall) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, c.ID)
		return fmt.Sprintf("refund %d", len(ran)), nil
	}}}
	shared := threads.NewMemoryToolCallRecord()
	r := ToolRunner{Tools: tools, Guards: threads.ToolGuards{Calls: shared}}
	c := newTestClient(t, "http://127.0.0.1:1").ForUser("alice")
	call := []PendingToolCall{{ToolCallID: "call_1", ToolName: "refund"}}
	text := func(threadID, runID string) string {
		t.Helper()
		res, err := c.AnswerTools(context.Background(), threadID, runID, r, call)
		if err != nil || len(res) != 1 {
			t.Fatalf("AnswerTools: %v %v", res, err)
		}
		return res[0].Content[0].Text
	}
	if got := text("thr_a", "run_1"); got != "refund 1" {
		t.Errorf("first: %q", got)
	}
	if got := text("thr_a", "run_1"); got != "refund 1" {
		t.Errorf("the same pause again: %q, want the recorded result", got)
	}
	if got := text("thr_b", "run_1"); got != "refund 2" {
		t.Errorf("the same call id in another thread: %q", got)
	}
	if len(ran) != 2 {
		t.Errorf("the tool ran %d times, want 2", len(ran))
	}
	if _, err := c.AnswerTools(context.Background(), "", "run_1", r, call); err == nil || !strings.Contains(err.Error(), "thread and run ids") {
		t.Errorf("no thread id: %v", err)
	}
}
