package runs

import (
	"fmt"
	"iter"
	"slices"

	echolib "github.com/threadsapi/threads-go/internal/echo"
	"github.com/threadsapi/threads-go/internal/termtext"
)

// merge adds a run's result to the stream's. What the stream keeps of all
// its runs shares one budget, as one run's stream does: maxItems messages
// and as many tool calls, maxRetained bytes in all. Past it the rest is
// left out and Incomplete is set.
func (s *ToolStream) merge(r *Result) {
	a := &s.res
	if a.ThreadID == "" {
		a.ThreadID = r.ThreadID
	}
	a.RunID, a.Outcome, a.PendingToolCalls, a.Failure = r.RunID, r.Outcome, r.PendingToolCalls, r.Failure
	a.Incomplete = a.Incomplete || r.Incomplete
	var dropped bool
	a.Usage, dropped = sumUsage(a.Usage, r.Usage)
	a.Incomplete = a.Incomplete || dropped
	for _, m := range r.Messages {
		if len(a.Messages) >= maxItems || !s.keep(messageCost(m)) {
			a.Incomplete = true
			break
		}
		a.Messages = append(a.Messages, m)
	}
	for _, c := range r.ToolCalls {
		if len(a.ToolCalls) >= maxItems || !s.keep(int64(len(c.ToolCallID)+len(c.ToolName)+len(c.Arguments)+len(c.ParentMessageID)+64)) {
			a.Incomplete = true
			break
		}
		a.ToolCalls = append(a.ToolCalls, c)
	}
}

// keep spends n bytes of the stream's budget, if it has them.
func (s *ToolStream) keep(n int64) bool {
	if s.kept+n > maxRetained {
		return false
	}
	s.kept += n
	return true
}

// messageCost is what a run's message costs the budget: its text, its
// components' ids, names and props, and a constant per part.
func messageCost(m Message) int64 {
	n := int64(len(m.ID) + len(m.Role) + 64)
	for _, c := range m.Content {
		n += int64(len(c.Text)+len(c.ID)+len(c.Name)+64) + valueCost(c.Props)
	}
	return n
}

// Current returns the event the last successful Next read: a run's
// [Event], a [ToolRunStart] or a [ToolRunResult].
func (s *ToolStream) Current() Event {
	if s == nil {
		return nil
	}
	return s.event
}

// Err returns why the stream ended: nil when the last run finished (also
// when it paused for a tool the caller answers itself) or was cancelled,
// and after Close; a [*RunFailedError] when a run failed; a
// [*threads.ToolRoundsError] or [*ToolRepeatError] when a bound stopped the loop;
// a [*ToolArgumentsError] when the last run finished but every call
// answered had failed its tool's argument checks;
// the error of a continuation run that could not start (a
// *threads.Problem); the context's error; or a run stream's error (see
// [Stream.Err]).
func (s *ToolStream) Err() error {
	if s == nil || s.c == nil {
		return errZeroStream
	}
	if calls, last, ok := s.policy.ArgumentsOnly(); ok && s.err == nil && s.done && s.res.Outcome == OutcomeFinished {
		return &ToolArgumentsError{FailedCalls: calls, ThreadID: s.res.ThreadID, RunID: s.res.RunID,
			Last: termtext.OneLine(last, 4*echolib.MaxRunes), run: shownWith(s.redact, s.res.RunID)}
	}
	return s.err
}

// redact removes the API key and the end user's token from server text.
func (s *ToolStream) redact(t string, extra ...string) string {
	return s.c.conn.Redact(t, s.c.secrets(extra...)...)
}

// Close ends the stream: the context the tools see is cancelled, and a
// run that is streaming is closed (which cancels it on the service).
// Idempotent, safe from any goroutine, nil on a nil *ToolStream.
func (s *ToolStream) Close() error {
	if s == nil || s.c == nil {
		return nil
	}
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.cancel()
	s.st.Close()
	return nil
}

// ThreadID returns the thread the runs are on (for CreateAndRunTools, the
// one the first run created). Safe from any goroutine.
func (s *ToolStream) ThreadID() string {
	if s == nil || s.c == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.threadID
}

// RunID returns the run being read, or the last one. Safe from any
// goroutine.
func (s *ToolStream) RunID() string {
	if s == nil || s.c == nil {
		return ""
	}
	return s.st.RunID()
}

// Outcome returns how the run being read, or the last one, ended, as
// [Stream.Outcome] does for one run: [OutcomeUnknown] until the stream
// knows; [OutcomeCancelled] also for a run cancelled from elsewhere. A tool
// stream that ends at a pause the runner leaves unanswered (MaxRounds, a
// call it has no tool for) reports that run's [OutcomeAwaitingTools]. Safe
// from any goroutine.
func (s *ToolStream) Outcome() Outcome {
	if s == nil || s.c == nil {
		return OutcomeUnknown
	}
	return s.st.Outcome()
}

// Format prints "runs.ToolStream{rounds:N done:B}" whatever the verb, for
// the stream and its value alike: its fields hold the runs' events and
// results as the service sent them (which may echo the API key or an end
// user's token), which a plain %v, %+v or %#v would print.
func (s ToolStream) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "runs.ToolStream{rounds:%d done:%t}", s.policy.Rounds(), s.done || s.c == nil)
}

// Rounds returns how many pauses the stream has answered.
func (s *ToolStream) Rounds() int {
	if s == nil {
		return 0
	}
	return s.policy.Rounds()
}

// All returns an iterator over the events; a failure is yielded last with
// a nil Event. Breaking out closes the stream.
func (s *ToolStream) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		defer s.Close()
		for s.Next() {
			if !yield(s.Current(), nil) {
				return
			}
		}
		if err := s.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// Collect reads the stream to its end, closes it and returns what the
// runs produced: the messages and tool calls of every run in order; the
// thread; the last run's RunID, Outcome, PendingToolCalls (for a stream
// that stopped at a pause) and Failure. The Result is never nil.
func (s *ToolStream) Collect() (*Result, error) {
	if s == nil || s.c == nil {
		return &Result{}, errZeroStream
	}
	for s.Next() {
	}
	s.Close()
	r := s.res
	r.Messages = slices.Clone(r.Messages)
	r.ToolCalls = slices.Clone(r.ToolCalls)
	r.PendingToolCalls = slices.Clone(r.PendingToolCalls)
	return &r, s.Err()
}

// ComponentProps returns the props of component id: as the current run's
// events built them, else as an earlier run ended them.
func (s *ToolStream) ComponentProps(id string) (map[string]any, bool) {
	if s == nil {
		return nil, false
	}
	if st := s.current(); st != nil {
		if p, ok := st.ComponentProps(id); ok {
			return p, true
		}
	}
	for _, m := range s.res.Messages {
		for _, c := range m.Content {
			if c.Type == ContentComponent && c.ID == id {
				p, _ := cloneValue(c.Props).(map[string]any)
				if p == nil {
					p = map[string]any{}
				}
				return p, true
			}
		}
	}
	return nil, false
}

// componentName returns the name of component id, as ComponentStart gave it.
func (s *ToolStream) componentName(id string) (string, bool) {
	if st := s.current(); st != nil {
		if n, ok := st.componentName(id); ok {
			return n, true
		}
	}
	for _, m := range s.res.Messages {
		for _, c := range m.Content {
			if c.Type == ContentComponent && c.ID == id {
				return c.Name, true
			}
		}
	}
	return "", false
}

// shownID is an id the service sent (a run id) as an error shows it: one
// printable line, cut short, the key redacted.
func shownID(st *Stream, id string) string { return shownWith(st.redact, id) }

func shownWith(redact func(string, ...string) string, id string) string {
	return termtext.OneLine(redact(echolib.Cut(id, 4*echolib.MaxRunes)), echolib.MaxRunes)
}

// echo quotes server text for a message to the model (internal/echo).
func echo(s string) string { return echolib.Quote(s) }
