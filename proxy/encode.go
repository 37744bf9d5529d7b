package proxy

import (
	"bytes"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/threadsapi/threads-go/runs"
)

// appendEvent appends ev as the service writes it on the wire: "data: ",
// its JSON with the members in the service's order, and a blank line.
// Strings are quoted as JSON.stringify quotes them (no HTML escaping), so
// an event read from the service is written back with the same bytes;
// only the inside of a component's props (a JSON object the stream keeps
// as a Go map) comes out with its keys sorted. ok is false for an event
// that has no wire form: the tool runner's own [runs.ToolRunStart] and
// [runs.ToolRunResult], which the service never sends.
func appendEvent(b []byte, ev runs.Event) (_ []byte, ok bool) {
	start := len(b)
	b = append(b, "data: "...)
	var err error
	switch ev := ev.(type) {
	case runs.RunStarted:
		b = head(b, runs.EventRunStarted)
		b = member(b, "threadId", ev.ThreadID)
		b = member(b, "runId", ev.RunID)
		b = stamp(b, ev.Timestamp)
	case runs.RunFinished:
		b = head(b, runs.EventRunFinished)
		b = member(b, "threadId", ev.ThreadID)
		b = member(b, "runId", ev.RunID)
		b = stamp(b, ev.Timestamp)
	case runs.RunErrorEvent:
		b = head(b, runs.EventRunError)
		b = member(b, "message", ev.Message)
		b = member(b, "code", ev.Code)
		// A cancel has neither category, isRetryable nor status; a
		// failure has all three (v1-api.md, captures 47 and 53).
		if ev.Category != "" || ev.Status != 0 || ev.Retryable {
			b = member(b, "category", ev.Category)
			b = append(b, `,"isRetryable":`...)
			b = strconv.AppendBool(b, ev.Retryable)
			b = append(b, `,"status":`...)
			b = strconv.AppendInt(b, int64(ev.Status), 10)
		}
		b = stamp(b, ev.Timestamp)
	case runs.TextMessageStart:
		b = head(b, runs.EventTextMessageStart)
		b = member(b, "messageId", ev.MessageID)
		b = member(b, "role", ev.Role)
		b = stamp(b, ev.Timestamp)
	case runs.TextMessageContent:
		b = head(b, runs.EventTextMessageContent)
		b = member(b, "messageId", ev.MessageID)
		b = member(b, "delta", ev.Delta)
		b = stamp(b, ev.Timestamp)
	case runs.TextMessageEnd:
		b = head(b, runs.EventTextMessageEnd)
		b = member(b, "messageId", ev.MessageID)
		b = stamp(b, ev.Timestamp)
	case runs.ToolCallStart:
		b = head(b, runs.EventToolCallStart)
		b = member(b, "toolCallId", ev.ToolCallID)
		b = member(b, "toolCallName", ev.ToolCallName)
		if ev.ParentMessageID != "" {
			b = member(b, "parentMessageId", ev.ParentMessageID)
		}
		b = stamp(b, ev.Timestamp)
	case runs.ToolCallArgs:
		b = head(b, runs.EventToolCallArgs)
		b = member(b, "toolCallId", ev.ToolCallID)
		b = member(b, "delta", ev.Delta)
		b = stamp(b, ev.Timestamp)
	case runs.ToolCallEnd:
		b = head(b, runs.EventToolCallEnd)
		b = member(b, "toolCallId", ev.ToolCallID)
		b = stamp(b, ev.Timestamp)
	case runs.AwaitingInput:
		b = custom(b, runs.CustomAwaitingInput)
		b = append(b, `{"pendingToolCalls":[`...)
		for i, p := range ev.PendingToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"toolCallId":`...)
			b = quote(b, p.ToolCallID)
			b = member(b, "toolName", p.ToolName)
			b = member(b, "arguments", p.Arguments)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
		b = stamp(b, ev.Timestamp)
	case runs.ComponentStart:
		b = custom(b, runs.CustomComponentStart)
		b = append(b, `{"messageId":`...)
		b = quote(b, ev.MessageID)
		b = member(b, "componentId", ev.ComponentID)
		b = member(b, "componentName", ev.ComponentName)
		b = append(b, '}')
		b = stamp(b, ev.Timestamp)
	case runs.ComponentPropsDelta:
		b = custom(b, runs.CustomPropsDelta)
		b = append(b, `{"componentId":`...)
		b = quote(b, ev.ComponentID)
		b = append(b, `,"operations":`...)
		if b, err = value(b, ev.Operations); err != nil {
			return b[:start], false
		}
		if ev.StreamingStatus != nil {
			b = append(b, `,"streamingStatus":`...)
			if b, err = value(b, ev.StreamingStatus); err != nil {
				return b[:start], false
			}
		}
		b = append(b, '}')
		b = stamp(b, ev.Timestamp)
	case runs.ComponentEnd:
		b = custom(b, runs.CustomComponentEnd)
		b = append(b, `{"componentId":`...)
		b = quote(b, ev.ComponentID)
		b = append(b, `,"finalProps":`...)
		if b, err = value(b, ev.FinalProps); err != nil {
			return b[:start], false
		}
		b = append(b, '}')
		b = stamp(b, ev.Timestamp)
	case runs.UnknownEvent:
		// Kept as sent (compact, one line: the stream decoded it from
		// one data: line or joined several with newlines, which JSON
		// allows between tokens but an SSE data: line does not).
		if len(ev.Raw) == 0 {
			return b[:start], false
		}
		if bytes.ContainsAny(ev.Raw, "\r\n") {
			v := jsontext.Value(bytes.Clone(ev.Raw))
			if v.Compact() != nil {
				return b[:start], false
			}
			b = append(b, v...)
		} else {
			b = append(b, ev.Raw...)
		}
		return append(b, '\n', '\n'), true
	default:
		return b[:start], false
	}
	return append(b, "}\n\n"...), true
}

// head opens an event object with its type.
func head(b []byte, typ string) []byte {
	b = append(b, `{"type":`...)
	return quote(b, typ)
}

// custom opens a CUSTOM event up to its value.
func custom(b []byte, name string) []byte {
	b = head(b, runs.EventCustom)
	b = member(b, "name", name)
	return append(b, `,"value":`...)
}

// member appends ,"name":"value".
func member(b []byte, name, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return quote(b, v)
}

// stamp appends the timestamp in Unix milliseconds, as the service sends
// it; none when the event had none.
func stamp(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	b = append(b, `,"timestamp":`...)
	return strconv.AppendInt(b, t.UnixMilli(), 10)
}

// quote appends s as a JSON string. The strings come from JSON the stream
// decoded, so they are valid UTF-8; anything else is replaced, not
// refused.
func quote(b []byte, s string) []byte {
	// On invalid UTF-8, AppendQuote still appends the whole string, each
	// bad byte as U+FFFD, and reports it: the text is well formed.
	out, _ := jsontext.AppendQuote(b, s)
	return out
}

// wireJSON is how a JSON value inside an event, or a JSON answer, is
// written: map keys sorted (a Go map has no order), no HTML escaping
// (JSON.stringify does none), nil slices as [] and times as the service
// writes them (UTC, milliseconds: 2026-06-16T10:00:00.000Z).
var wireJSON = json.JoinOptions(
	json.Deterministic(true),
	json.WithMarshalers(json.MarshalToFunc(func(enc *jsontext.Encoder, t time.Time) error {
		return enc.WriteToken(jsontext.String(t.UTC().Format("2006-01-02T15:04:05.000Z")))
	})),
)

// value appends v as JSON (see wireJSON).
func value(b []byte, v any) ([]byte, error) {
	out, err := json.Marshal(v, wireJSON)
	if err != nil {
		return b, err
	}
	return append(b, out...), nil
}
