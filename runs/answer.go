package runs

import (
	"context"
	"errors"
	"sync"

	threads "github.com/threadsapi/threads-go"
)

// AnswerTools runs calls with r's tools as [Client.RunTools] answers a
// pause, and returns one tool_result per call, in the order of calls, for
// the caller to send in the run that continues the pause (with its own
// results, when the pause mixed r's tools and the caller's). Package proxy
// answers its server-side tools with it. A call is run by RunTools' own
// code, so a failing tool, an unknown tool or bad arguments are answered
// with isError true and a short text without secrets (the package doc's
// "Tools and components"); r.MaxRounds and r.MaxRepeats do not apply.
//
// With no calls it only checks r. It fails for tools that RunTools refuses
// and for a Client that New could not link (without running any), and
// with ctx's error when ctx ends before every call has returned (the calls
// not started then are not run). It needs no end user: it sends nothing.
func (c *Client) AnswerTools(ctx context.Context, r ToolRunner, calls []PendingToolCall, opts ...threads.RequestOption) ([]Content, error) {
	switch {
	case c == nil:
		return nil, errors.New("runs: AnswerTools: nil *Client")
	case c.err != nil:
		return nil, c.err
	}
	// A ToolStream without runs: its pause policy, redaction and logger.
	ts := &ToolStream{c: c, mu: new(sync.Mutex), logger: c.conn.Logger(opts)}
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
