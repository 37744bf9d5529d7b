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
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/threadsapi/threads-go/internal/jsonscan"
)

// decodeFast decodes data with sc; ok is false when it gave up.
func decodeFast(sc *jsonscan.Scanner, data string) (ev Event, ok bool) {
	if ev, ok := decodeDelta(sc, data); ok {
		return ev, true
	}
	sc.Reset(data)
	var w wireEvent
	if !sc.Object(func(name string) bool {
		switch name {
		case "type":
			return sc.Once(0) && jsonscan.Str(sc, nil, &w.Type)
		case "threadId":
			return sc.Once(1) && jsonscan.Str(sc, nil, &w.ThreadID)
		case "runId":
			return sc.Once(2) && jsonscan.Str(sc, nil, &w.RunID)
		case "messageId":
			return sc.Once(3) && jsonscan.Str(sc, nil, &w.MessageID)
		case "role":
			return sc.Once(4) && jsonscan.Str(sc, nil, &w.Role)
		case "delta":
			return sc.Once(5) && jsonscan.Str(sc, nil, &w.Delta)
		case "toolCallId":
			return sc.Once(6) && jsonscan.Str(sc, nil, &w.ToolCallID)
		case "toolCallName":
			return sc.Once(7) && jsonscan.Str(sc, nil, &w.ToolCallName)
		case "parentMessageId":
			return sc.Once(8) && jsonscan.Str(sc, nil, &w.ParentMessageID)
		case "message":
			return sc.Once(9) && jsonscan.Str(sc, nil, &w.Message)
		case "code":
			return sc.Once(10) && jsonscan.Str(sc, nil, &w.Code)
		case "category":
			return sc.Once(11) && jsonscan.Str(sc, nil, &w.Category)
		case "name":
			return sc.Once(12) && jsonscan.Str(sc, nil, &w.Name)
		case "isRetryable":
			return sc.Once(13) && jsonscan.Boolean(sc, &w.IsRetryable)
		case "status":
			if !sc.Once(14) {
				return false
			}
			if sc.Null() {
				return true
			}
			lit, ok := sc.Number()
			n, err := strconv.ParseInt(lit, 10, strconv.IntSize)
			w.Status = int(n)
			return ok && err == nil // a fraction: jsonx's tolerance decides
		case "timestamp":
			return sc.Once(15) && jsonscan.Float64(sc, &w.Timestamp)
		case "value":
			if !sc.Once(16) {
				return false
			}
			raw, ok := sc.Skip() // checked by the jsonx decode of the CUSTOM value
			w.Value = jsontext.Value(bytesOf(raw))
			return ok
		case "title":
			return sc.Once(17) && jsonscan.Str(sc, nil, &w.Title)
		case "subtype":
			return sc.Once(18) && jsonscan.Str(sc, nil, &w.Subtype)
		case "entityId":
			return sc.Once(19) && jsonscan.Str(sc, nil, &w.EntityID)
		case "encryptedValue":
			return sc.Once(20) && jsonscan.Str(sc, nil, &w.EncryptedValue)
		}
		return false // RUN_FINISHED's outcome and result among them
	}) {
		return nil, false
	}
	if !sc.End() {
		return nil, false
	}
	typ, kind := knownType(w.Type)
	if kind != typeFlat {
		return nil, false // an unknown type is kept raw; a subagent's is decoded whole
	}
	w.Type = typ
	if w.Type == EventCustom {
		switch w.Name {
		case CustomAwaitingInput, CustomComponentStart, CustomPropsDelta, CustomComponentEnd, CustomMessageParent:
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

// deltaHead is how the service starts a text delta, the event a run sends
// most: its members always come in one order.
const deltaHead = `{"type":"TEXT_MESSAGE_CONTENT","messageId":`

// decodeDelta decodes a text delta sent as the service sends it,
// {"type":"TEXT_MESSAGE_CONTENT","messageId":…,"delta":…,"timestamp":…},
// without the member loop: the names are compared as one text. Any other
// spelling, order or member makes it give up, and decodeFast's loop decodes
// the event; each value is decoded as that loop decodes it.
func decodeDelta(sc *jsonscan.Scanner, data string) (Event, bool) {
	if !strings.HasPrefix(data, deltaHead) {
		return nil, false
	}
	sc.Reset(data)
	sc.Rewind(len(deltaHead))
	var e TextMessageContent
	var ts float64
	// lit consumes text, exactly, at the scanner's position.
	lit := func(text string) bool {
		pos := sc.Pos()
		if !strings.HasPrefix(data[pos:], text) {
			return false
		}
		sc.Rewind(pos + len(text))
		return true
	}
	if !jsonscan.Str(sc, nil, &e.MessageID) || !lit(`,"delta":`) || !jsonscan.Str(sc, nil, &e.Delta) ||
		!lit(`,"timestamp":`) || !jsonscan.Float64(sc, &ts) || !lit("}") || !sc.End() {
		return nil, false
	}
	e.Timestamp = millis(ts)
	return e, true
}
