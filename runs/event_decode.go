package runs

// decodeFast decodes the AG-UI events the service sends by hand: one flat
// object of strings, a number and a CUSTOM "value", read in one pass with
// internal/jsonscan (strings without escapes are substrings of the
// event's data, which internal/sse allocated for this event alone). A
// CUSTOM value is decoded by jsonx on its own, not a second time with the
// whole event. Anything it is not sure of (an unknown type or member, a
// case-folded or repeated name, a value of another kind, a CUSTOM name
// this version does not know, invalid JSON) makes it give up, and
// decodeEvent decodes the event as before; when it does decode an event,
// the result is decodeEvent's (TestDecodeFastEquivalence over every
// capture, FuzzDecodeFast).

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/threadsapi/threads-go/internal/jsonscan"
)

// decodeFast decodes data with sc; ok is false when it gave up.
func decodeFast(sc *jsonscan.Scanner, data string) (ev Event, ok bool) {
	sc.Reset(data)
	if !sc.OpenObject() {
		return nil, false
	}
	var w wireEvent
	var seen uint32
	for first := true; ; first = false {
		name, done, ok := sc.Member(first)
		if !ok {
			return nil, false
		}
		if done {
			break
		}
		switch name {
		case "type":
			ok = once(&seen, 0) && str(sc, &w.Type)
		case "threadId":
			ok = once(&seen, 1) && str(sc, &w.ThreadID)
		case "runId":
			ok = once(&seen, 2) && str(sc, &w.RunID)
		case "messageId":
			ok = once(&seen, 3) && str(sc, &w.MessageID)
		case "role":
			ok = once(&seen, 4) && str(sc, &w.Role)
		case "delta":
			ok = once(&seen, 5) && str(sc, &w.Delta)
		case "toolCallId":
			ok = once(&seen, 6) && str(sc, &w.ToolCallID)
		case "toolCallName":
			ok = once(&seen, 7) && str(sc, &w.ToolCallName)
		case "parentMessageId":
			ok = once(&seen, 8) && str(sc, &w.ParentMessageID)
		case "message":
			ok = once(&seen, 9) && str(sc, &w.Message)
		case "code":
			ok = once(&seen, 10) && str(sc, &w.Code)
		case "category":
			ok = once(&seen, 11) && str(sc, &w.Category)
		case "name":
			ok = once(&seen, 12) && str(sc, &w.Name)
		case "isRetryable":
			ok = once(&seen, 13)
			if ok && !sc.Null() {
				w.IsRetryable, ok = sc.Bool()
			}
		case "status":
			ok = once(&seen, 14)
			if ok && !sc.Null() {
				var lit string
				lit, ok = sc.Number()
				n, err := strconv.ParseInt(lit, 10, strconv.IntSize)
				ok = ok && err == nil // a fraction: jsonx's tolerance decides
				w.Status = int(n)
			}
		case "timestamp":
			ok = once(&seen, 15)
			if ok && !sc.Null() {
				w.Timestamp, ok = sc.Float()
			}
		case "value":
			ok = once(&seen, 16)
			if ok {
				var raw string
				raw, ok = sc.Skip() // checked by the jsonx decode of the CUSTOM value
				w.Value = jsontext.Value(bytesOf(raw))
			}
		default:
			return nil, false
		}
		if !ok {
			return nil, false
		}
	}
	if !sc.End() {
		return nil, false
	}
	switch w.Type {
	case EventRunStarted, EventRunFinished, EventRunError, EventTextMessageStart, EventTextMessageContent,
		EventTextMessageEnd, EventToolCallStart, EventToolCallArgs, EventToolCallEnd, EventCustom:
	default:
		return nil, false // an unknown type is kept raw
	}
	if w.Type == EventCustom {
		switch w.Name {
		case CustomAwaitingInput, CustomComponentStart, CustomPropsDelta, CustomComponentEnd:
		default:
			return nil, false // kept raw, after the whole event is checked
		}
	} else if w.Value != nil {
		return nil, false // an unchecked value the whole-event decode checks
	}
	ev, err := typed(w, bytesOf(data))
	if err != nil {
		return nil, false // decodeEvent words the error
	}
	if _, unknown := ev.(UnknownEvent); unknown {
		return nil, false
	}
	return ev, true
}

func once(seen *uint32, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		return false // a repeated name: jsonx's rules apply
	}
	*seen |= 1 << bit
	return true
}

// str decodes a string, or null as the zero value.
func str(sc *jsonscan.Scanner, p *string) bool {
	if sc.Null() {
		return true
	}
	s, ok := sc.String()
	*p = s
	return ok
}
