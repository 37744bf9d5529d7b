package proxy

import (
	"bytes"
	"context"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

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
	// recorded are the run's server-side calls so far, each answered
	// with an error result (whyLeft), as kept in the pending store; paused
	// is set once the run paused.
	recorded []runs.Content
	paused   bool
	// parked are the pause's calls that wait for approval, for the
	// run's RUN_FINISHED.
	parked []PendingApproval
	// alone is the run whose pause parked calls and had no browser call:
	// its decision continues it.
	alone string
	// extra are events the stream adds after the current one (holding):
	// the CUSTOM event that names a mixed pause's parked calls.
	extra [][]byte
}

func (p *pauses) filter(ev runs.Event, raw []byte) ([]byte, bool) {
	switch e := ev.(type) {
	case runs.RunStarted:
		// A run that follows a paused one in the same response: the tool
		// runner answered the pause, and the service took its results.
		p.forget()
		p.threadID, p.runID, p.paused, p.parked = e.ThreadID, e.RunID, false, nil
	case runs.ToolCallStart:
		if p.q.h.server[e.ToolCallName] {
			p.record(e.ToolCallID)
		}
	case runs.RunFinished, runs.RunErrorEvent:
		if !p.paused {
			p.forget() // no pause: nothing for anyone to answer
		}
		if _, fin := ev.(runs.RunFinished); fin && len(p.parked) > 0 {
			// AG-UI's tool-approval interrupt names the parked calls.
			out, ok := withOutcome(raw, interruptOutcome(p.parked))
			p.parked = nil
			if ok {
				return out, true
			}
		}
	case runs.AwaitingInput:
		p.paused = true
		var theirs, ours, parked []runs.PendingToolCall
		for _, c := range e.PendingToolCalls {
			switch {
			case p.browser[c.ToolName]:
				theirs = append(theirs, c)
			case p.q.h.approvals != nil && p.q.h.approvals.needsApproval(c):
				parked = append(parked, c)
			default:
				ours = append(ours, c)
			}
		}
		if len(parked) > 0 {
			return p.park(raw, theirs, ours, parked)
		}
		switch {
		case len(ours) == 0:
			return raw, true
		case len(theirs) == 0:
			return nil, false
		}
		h := p.q.h
		limits, ok := budget(ours)
		if !ok {
			// Its results could not be kept within MaxPendingResults: the
			// service's pause is not one the handler answers, and the
			// browser's answer alone would be refused.
			h.log.ErrorContext(p.ctx, "proxy: a pause has too many server-side calls, or call ids too long, to keep their results; the browser does not get it",
				"calls", len(ours))
			return nil, false
		}
		h.keepPending(p.ctx, p.q.user, p.threadID, p.runID, p.q.callTools(p.ctx, p.threadID, p.runID, ours, limits))
		out, ok := onlyCalls(raw, p.browser)
		if !ok {
			h.log.ErrorContext(p.ctx, "proxy: a pause's event is not the JSON it was decoded from; the browser does not get it")
		}
		return out, ok
	}
	return raw, true
}

// park serves a pause with calls that need approval: the server's other
// calls run now (their results wait in the store), the calls that need
// approval are parked, and the browser gets the pause with only its
// calls, or, when it has none, the CUSTOM event that names the parked
// calls (ApprovalEventName); RUN_FINISHED then carries the interrupt.
func (p *pauses) park(raw []byte, theirs, ours, parked []runs.PendingToolCall) ([]byte, bool) {
	h := p.q.h
	// Parked first: until then, the parked calls' stand-ins (record)
	// take a browser's result for them out of a continuation.
	var kept bool
	p.parked, kept = h.park(p.ctx, p.q.user, p.threadID, p.runID, parked, len(theirs) > 0, raw)
	var standIns []runs.PendingToolCall
	if !kept {
		// Not parked: the calls stay the server's, answered with an
		// error result, so that the browser's result for one is taken out.
		standIns = parked
	}
	switch all := append(slices.Clip(ours), standIns...); {
	case len(all) == 0:
		// The parked calls' stand-in results (record) go: each gets its
		// decision's result.
		p.forget()
	default:
		limits, ok := budget(all)
		if !ok {
			h.log.ErrorContext(p.ctx, "proxy: a pause has too many server-side calls, or call ids too long, to keep their results", "calls", len(all))
			break
		}
		var results []runs.Content
		if len(ours) > 0 {
			results = p.q.callTools(p.ctx, p.threadID, p.runID, ours, limits[:len(ours)])
		}
		h.keepPending(p.ctx, p.q.user, p.threadID, p.runID, append(results, notRunBecause(standIns, whyNotParked)...))
	}
	if len(theirs) == 0 {
		p.alone = p.runID
		return approvalEvent(p.parked), true
	}
	p.extra = append(p.extra, approvalEvent(p.parked))
	out, ok := onlyCalls(raw, p.browser)
	if !ok {
		h.log.ErrorContext(p.ctx, "proxy: a pause's event is not the JSON it was decoded from; the browser does not get it")
	}
	return out, ok
}

// record keeps a server-side call in the pending store before the
// browser learns its id (the event that names it is written after the
// filter returns), answered with an error result until its tool has run:
// a continuation from a browser that left before then gets that answer
// for it, and a result the browser sends for it is taken out (see
// request.withoutForged). The calls of one run beyond the pause's bound
// are not kept; the pause's own check (budget) refuses them.
func (p *pauses) record(callID string) {
	if p.threadID == "" || p.runID == "" || len(p.recorded) >= maxPauseCalls {
		return
	}
	calls := make([]runs.PendingToolCall, len(p.recorded)+1)
	for i, r := range p.recorded {
		calls[i].ToolCallID = r.ToolUseID
	}
	calls[len(p.recorded)].ToolCallID = callID
	if _, ok := budget(calls); !ok {
		return
	}
	p.recorded = append(p.recorded, notRunBecause(calls[len(p.recorded):], whyLeft)...)
	p.q.h.keepPending(p.ctx, p.q.user, p.threadID, p.runID, p.recorded)
}

// forget deletes the run's recorded calls, if any, from the store.
func (p *pauses) forget() {
	if len(p.recorded) == 0 {
		return
	}
	p.recorded = nil
	if err := p.q.h.cfg.store.Delete(context.WithoutCancel(p.ctx), p.q.h.pendingKey(p.q.user, p.threadID, p.runID)); err != nil {
		p.q.h.log.WarnContext(p.ctx, "proxy: cannot delete server-side tool results from the store", "error", err)
	}
}

// whyNotParked answers a call that needed approval when the store could
// not park it.
const whyNotParked = "not run: it needs approval, and its approval could not be recorded; ask again"

// maxPauseCalls bounds the server-side calls of a mixed pause that the
// handler runs, as runs.ToolStream bounds a pause's calls.
const maxPauseCalls = 1024

// budget returns the most bytes of JSON each call's result may take so
// that the pause's results, stored as one JSON array, fit in
// MaxPendingResults: each result with an empty text, plus an equal share
// of what is left for the texts. false when there are more calls than
// maxPauseCalls, or when their ids alone leave no room for a short text.
func budget(calls []runs.PendingToolCall) ([]int, bool) {
	if len(calls) > maxPauseCalls {
		return nil, false
	}
	const minText = 64
	fixed := make([]int, len(calls))
	left := MaxPendingResults - 2 // the array's brackets
	for i, c := range calls {
		empty := runs.ToolResult(c.ToolCallID, "")
		empty.IsError = true
		b, err := json.Marshal(empty, ownJSON)
		if err != nil {
			return nil, false
		}
		fixed[i] = len(b)
		left -= len(b) + 1 + minText // and its comma
		if left < 0 {
			return nil, false
		}
	}
	share := minText + left/max(len(calls), 1)
	for i := range fixed {
		fixed[i] += share
	}
	return fixed, true
}

// callTools runs the server-side calls of a mixed pause of run runID
// (several at once, by the tool runner's own code: runs.Client.AnswerTools)
// and returns one tool_result per call, in order, each within its limit
// (budget). Each call is recorded as the run's runner records it (keyed
// by thread, run and tool call id): a pause delivered again, or answered
// on another instance, gets the recorded result, and a store that cannot
// record a call refuses it (an error result). A request that ended before
// every call returned answers each call with an error result, so that the
// browser's continuation can still go on.
func (q *request) callTools(ctx context.Context, threadID, runID string, calls []runs.PendingToolCall, limits []int) []runs.Content {
	h := q.h
	out, err := q.c.AnswerTools(ctx, threadID, runID, h.runner(q.user), calls, h.cfg.callOpts...)
	if err != nil {
		out = notRun(calls, err)
	}
	for i, r := range out {
		out[i] = fit(r, limits[i])
	}
	return out
}

// fit returns tool_result r if its JSON is at most n bytes; else its text
// parts' text, cut so that its JSON is at most n bytes (n leaves room for
// a short text: see budget), with the isError it had.
func fit(r runs.Content, n int) runs.Content {
	if b, err := json.Marshal(r, ownJSON); err == nil && len(b) <= n {
		return r
	}
	var text []byte
	for _, c := range r.Content {
		if c.Type == runs.ContentText {
			text = append(text, c.Text...)
		}
		if len(text) > n {
			break
		}
	}
	for k := n; ; {
		out := runs.ToolResult(r.ToolUseID, cut(string(text), k))
		out.IsError = r.IsError
		b, err := json.Marshal(out, ownJSON)
		if err != nil || len(b) <= n || k == 0 {
			return out
		}
		// Each byte of text cut takes at least one byte of JSON away.
		k = max(k-(len(b)-n)-len("…"), 0)
	}
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
