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
// results, when the pause mixed r's tools and the caller's: RunTools
// leaves such a pause to the caller, whose next run must answer every
// call). Package proxy answers its server-side tools with it.
//
// A call is run as RunTools runs it, by the same code: the service's
// status arguments taken out, at most r.Concurrency calls at once, a
// tool's content parts sent as they are; a tool that returns an error or
// panics (logged with its stack on the client's logger, or the one of
// opts), a call of a tool that is not among r.Tools and arguments that
// do not fit the tool are answered with isError true and a short text, at
// most 4 KiB, without the API key or the end user's token. r.MaxRounds
// and r.MaxRepeats do not apply (one pause is answered).
//
// With no calls it only checks r. It fails for tools that RunTools refuses and for a Client that New
// could not link (without running any), and with ctx's error when ctx
// ends before every call has returned (the calls not started then are
// not run). It needs no end user: it sends nothing; the client's end
// user's token is redacted from the texts all the same.
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
