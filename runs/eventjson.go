package runs

import "github.com/go-json-experiment/json/jsontext"

// EventJSON returns the JSON of the current event (the one Current
// returns) as the service sent it: the text of its data: lines, joined
// with "\n" when the service split it over several, every member kept,
// with every spelling of the client's API key and of the end user's token
// replaced by "[REDACTED]" (as in errors). It is for passing the event on
// unchanged, members this SDK version does not model included (package
// proxy's Relay does). Unlike an answer's [Raw.RawJSON], it is not a copy,
// valid only until the next Next; when it returns nil: the package doc's
// "Streams".
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
