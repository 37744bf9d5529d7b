package runs

import (
	"context"
	"io"
)

// HeldBytes reports what a tool stream holds against its one budget: the
// bytes its Result keeps of the finished runs plus what the current run's
// assembly has reserved. For tests of that budget only.
func HeldBytes(ts *ToolStream) (held, budget int64) {
	return ts.kept + ts.st.acc.retained - ts.st.acc.base, maxRetained
}

// NewStreamOf returns a Stream that reads body as a run's events (events
// of at most 1 KiB), for tests of what a Stream does with its body.
func NewStreamOf(body io.ReadCloser) *Stream {
	return newStream(context.Background(), body, limits{maxEventSize: 1 << 10}, nil, "", "")
}
