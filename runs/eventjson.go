package runs

import "github.com/go-json-experiment/json/jsontext"

// EventJSON returns the JSON of the current event (the one Current
// returns) as the service sent it: the text of its data: lines, joined
// with "\n" when the service split it over several, every member kept,
// with every spelling of the client's API key and of the end user's token
// replaced by "[REDACTED]" (as in errors). It is for passing the event on
// unchanged, members this SDK version does not model included (package
// proxy's Relay does).
//
// Unlike an answer's [Raw.RawJSON], it is not a copy: the bytes are only
// valid until the next call of Next, and must not be modified; copy them
// to keep them. EventJSON returns nil before the first event and after
// the end, except after an event the stream refused (Next returned false
// and Err matches threads.ErrStreamFailed: a known event whose members are
// not of the kinds AG-UI gives them), whose JSON it then returns, for a
// log; and it returns nil for data that is not JSON, and in the rare case
// where the redaction would leave the event not valid JSON (a secret that spells JSON punctuation or a number): the
// event is then not to be passed on.
func (s *Stream) EventJSON() []byte {
	if s == nil || (s.cur == nil && !s.refused) {
		return nil
	}
	out := s.redact(s.raw)
	if (out != s.raw || s.cur == nil) && !jsontext.Value(out).IsValid() {
		return nil
	}
	return bytesOf(out)
}

// EventJSON returns the JSON of the current event as [Stream.EventJSON]
// does, for the events of the runs; nil for the runner's own
// [ToolRunStart] and [ToolRunResult], which the service does not send.
// Valid until the next call of Next; must not be modified.
func (s *ToolStream) EventJSON() []byte {
	if s == nil || s.event == nil {
		return nil
	}
	return s.current().EventJSON()
}
