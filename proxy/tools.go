package proxy

import (
	"bytes"
	"context"
	encjson "encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
)

// pauses decides, for one relayed run with server-side tools, what the
// browser sees of each pause (tambo.run.awaiting_input):
//   - only the browser's calls: the event as sent;
//   - only the server's (or calls of tools neither side has): nothing, the
//     tool runner answers them and the next run's events follow;
//   - both: the server's calls run now, their results wait in the pending
//     store for the browser's continuation, and the event lists the
//     browser's calls only (the rest of it as sent).
//
// It runs in the relay's reading goroutine, one event at a time.
type pauses struct {
	q       *request
	ctx     context.Context
	browser map[string]bool // the tools the browser offered on this run

	threadID, runID string // the run being read
}

func (p *pauses) filter(ev runs.Event, raw []byte) ([]byte, bool) {
	switch e := ev.(type) {
	case runs.RunStarted:
		p.threadID, p.runID = e.ThreadID, e.RunID
	case runs.AwaitingInput:
		var theirs, ours []runs.PendingToolCall
		for _, c := range e.PendingToolCalls {
			if p.browser[c.ToolName] {
				theirs = append(theirs, c)
			} else {
				ours = append(ours, c)
			}
		}
		switch {
		case len(ours) == 0:
			return raw, true
		case len(theirs) == 0:
			return nil, false
		}
		h := p.q.h
		h.keepPending(p.ctx, pendingKey(p.q.user, p.threadID, p.runID), h.callTools(p.ctx, ours))
		out, ok := onlyCalls(raw, p.browser)
		if !ok {
			h.log.ErrorContext(p.ctx, "proxy: a pause's event is not the JSON it was decoded from; the browser does not get it")
		}
		return out, ok
	}
	return raw, true
}

// onlyCalls returns awaiting_input event raw (its JSON) with only the
// pending calls of the tools in keep, every other byte as it was; false
// when raw is not such an event.
func onlyCalls(raw []byte, keep map[string]bool) ([]byte, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if !enter(dec, '{') || !seek(dec, "value") || !enter(dec, '{') || !seek(dec, "pendingToolCalls") || !enter(dec, '[') {
		return nil, false
	}
	start := dec.InputOffset() - 1
	out := append(bytes.Clone(raw[:start]), '[')
	n := 0
	for !enter(dec, ']') {
		v, err := dec.ReadValue()
		var c struct {
			ToolName string `json:"toolName"`
		}
		if err != nil || json.Unmarshal(v, &c) != nil {
			return nil, false
		}
		if keep[c.ToolName] {
			if n > 0 {
				out = append(out, ',')
			}
			out = append(out, v...)
			n++
		}
	}
	out = append(out, ']')
	return append(out, raw[dec.InputOffset():]...), true
}

// seek reads the members of the object dec is in up to the name of the
// one called name; false when there is none.
func seek(dec *jsontext.Decoder, name string) bool {
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if tok.String() == name {
			return true
		}
		if dec.SkipValue() != nil {
			return false
		}
	}
	return false
}

// enter reads the next token if it is the delimiter kind.
func enter(dec *jsontext.Decoder, kind jsontext.Kind) bool {
	if dec.PeekKind() != kind {
		return false
	}
	_, err := dec.ReadToken()
	return err == nil
}

// toolConcurrency bounds how many calls of one pause run at once, as
// runs.ToolRunner's default does.
const toolConcurrency = 4

// maxErrorText bounds an error result's text, as package runs does.
const maxErrorText = 4 << 10

// callTools runs the server-side calls of a mixed pause, several at once,
// and returns one tool_result per call, in order.
func (h *Handler) callTools(ctx context.Context, calls []runs.PendingToolCall) []runs.Content {
	out := make([]runs.Content, len(calls))
	// Each result's share of what the store keeps for the pause.
	share := max(MaxPendingResults/(2*len(calls))-256, 1024)
	sem := make(chan struct{}, toolConcurrency)
	var wg sync.WaitGroup
	for i, c := range calls {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			text, isErr := h.callTool(ctx, c)
			out[i] = runs.ToolResult(c.ToolCallID, cut(text, share), isErr)
		})
	}
	wg.Wait()
	return out
}

// statusArgs are the members the service adds to every tool's schema and
// call: the call's status lines, never the tool's arguments (design.md,
// "The service's own tool arguments").
var statusArgs = []string{"_tambo_statusMessage", "_tambo_completionStatusMessage"}

// callTool runs one call: an unknown tool, arguments that are not a JSON
// object, an error and a panic are each answered as an error result.
func (h *Handler) callTool(ctx context.Context, c runs.PendingToolCall) (text string, isErr bool) {
	var tool *threads.Tool
	for i := range h.cfg.tools {
		if h.cfg.tools[i].Name == c.ToolName {
			tool = &h.cfg.tools[i]
		}
	}
	if tool == nil {
		return fmt.Sprintf("there is no tool named %q", cut(c.ToolName, 64)), true
	}
	args := map[string]any{}
	if strings.TrimSpace(c.Arguments) != "" {
		if err := encjson.Unmarshal([]byte(c.Arguments), &args); err != nil || args == nil {
			return fmt.Sprintf("the arguments of tool %q are not a JSON object", tool.Name), true
		}
	}
	for _, k := range statusArgs {
		delete(args, k)
	}
	defer func() {
		if v := recover(); v != nil {
			text, isErr = cut(fmt.Sprintf("tool %q failed: panic: %v", tool.Name, v), maxErrorText), true
		}
	}()
	out, err := tool.Call(ctx, threads.ToolCall{ID: c.ToolCallID, Name: c.ToolName, Arguments: args})
	if err != nil {
		return cut(err.Error(), maxErrorText), true
	}
	return out, false
}
