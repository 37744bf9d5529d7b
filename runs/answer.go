package runs

import (
	"context"
	"errors"
	"sync"

	threads "github.com/threadsapi/threads-go"
)

// AnswerTools runs calls with r's tools as [Client.RunTools] answers a
// pause, by the same code, and returns one tool_result per call, in
// order, for the caller to send in the run that continues the pause
// (package proxy answers its server-side tools with it). threadID and
// runID name the thread and the run that paused: r.Guards.Calls keys each
// call by them and its tool call id, as RunTools does, so a call runs
// once also across callers that share the record. A failing tool, an
// unknown tool or bad arguments get an isError result without secrets;
// r.MaxRounds and r.MaxRepeats do not apply.
//
// With no calls it only checks r. It fails, running none, for tools that
// RunTools refuses, calls given without threadID or runID, and a Client
// that New could not link; and with ctx's error when ctx ends first
// (calls not started are not run). It sends nothing.
func (c *Client) AnswerTools(ctx context.Context, threadID, runID string, r ToolRunner, calls []PendingToolCall, opts ...threads.RequestOption) ([]Content, error) {
	switch {
	case c == nil:
		return nil, errors.New("runs: AnswerTools: nil *Client")
	case c.err != nil:
		return nil, c.err
	case len(calls) > 0 && (threadID == "" || runID == ""):
		return nil, errors.New("runs: AnswerTools: the thread and run ids of the pause are required (they key each call's record)")
	}
	// A ToolStream without runs: its pause policy, redaction and logger.
	ts := &ToolStream{c: c, mu: new(sync.Mutex), logger: c.conn.Logger(opts), threadID: threadID, prevRun: runID}
	if err := ts.setup("runs: AnswerTools", &RunParams{}, r); err != nil {
		return nil, err
	}
	ts.ctx, ts.cancel = context.WithCancel(ctx)
	defer ts.cancel()
	answers := ts.policy.Run(ts.ctx, pauseCalls(calls))
	if err := ts.ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]Content, 0, len(calls))
	for _, a := range answers {
		out = append(out, toolRunResult(1, a).sent())
	}
	return out, nil
}
