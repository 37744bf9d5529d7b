package threads

// A hand-written decoder for the one JSON shape a Stream decodes thousands
// of times: the service's snapshot (AdvanceResponse). Every snapshot
// repeats the whole message so far, so a reply of n snapshots is O(n²)
// bytes of JSON; JSON v2's reflection over it was 62% of the stream's CPU.
// This decoder does less per snapshot, on internal/jsonscan's scanner (the
// one JSON reader of the hand-written decoders):
//
//   - A string without escapes is not copied: it is a substring of the
//     event's data, which go-sse allocated for this event alone and never
//     touches again (internal/sse). The message's strings then keep that
//     event's data alive, which decodedCost already counts in full.
//   - The text a snapshot repeats is compared, not re-read, and an escaped
//     string that extends the last one is unescaped only in its new part
//     (jsonscan.Hints): the previous snapshot's text, or the same text a
//     moment ago in content[0].text before component.message, costs only
//     what it adds.
//
// It decodes only what it is sure of: the members the service sends, with
// the JSON kinds it sends, each name once and spelled exactly. Anything
// else (an unknown or case-folded or repeated name, a value of another
// kind, a syntax error, invalid UTF-8, more values than the memory budget)
// makes it give up, and the snapshot is decoded by jsonx as before. A
// member whose value it does not decode itself (props, a tool call
// request, a number) is decoded by jsonx alone, into the zero field the
// whole-value decode would also fill. The result is then the same as
// jsonx.Unmarshal's, which TestSnapshotDecoderEquivalence checks over every
// fixture, transcript and fuzz-corpus entry, and FuzzSnapshotDecoder over
// what the fuzzer makes.

import (
	"time"
	"unsafe"

	"github.com/threadsapi/threads-go/internal/jsonscan"
	"github.com/threadsapi/threads-go/internal/jsonx"
)

// snapshotDecoder decodes snapshots; it keeps the hints of the last ones
// (see the file comment). Its zero value is ready to use.
type snapshotDecoder struct {
	sc    jsonscan.Scanner
	hints jsonscan.Hints
	// extra is decodedCost's charge for the structure decoded so far (its
	// containers and values), so that len(data)+extra equals
	// decodedCost(data) once the whole snapshot is decoded.
	extra  int64
	budget int64
}

// decode decodes data into ev, which must be zero, and returns decodedCost
// of data; ok is false when it gave up, leaving ev in an unspecified state.
// budget bounds what values decoded by jsonx may cost.
func (d *snapshotDecoder) decode(data string, ev *AdvanceResponse, budget int64) (cost int64, ok bool) {
	d.sc.Reset(data)
	d.extra, d.budget = 0, budget
	ok = d.response(ev) && d.sc.End()
	d.sc.Reset("")
	return int64(len(data)) + d.extra, ok
}

func (d *snapshotDecoder) response(ev *AdvanceResponse) bool {
	return d.object(func(name string) bool {
		switch name {
		case "responseMessageDto":
			return d.sc.Once(0) && d.message(&ev.Message)
		case "generationStage":
			return d.sc.Once(1) && str(d, &ev.GenerationStage)
		case "statusMessage":
			return d.sc.Once(2) && str(d, &ev.StatusMessage)
		case "mcpAccessToken":
			return d.sc.Once(3) && d.delegate(&ev.MCPAccessToken)
		}
		return false
	})
}

func (d *snapshotDecoder) message(m *Message) bool {
	if d.sc.Null() {
		return true
	}
	return d.object(func(name string) bool {
		switch name {
		case "id":
			return d.sc.Once(0) && str(d, &m.ID)
		case "threadId":
			return d.sc.Once(1) && str(d, &m.ThreadID)
		case "parentMessageId":
			return d.sc.Once(2) && str(d, &m.ParentMessageID)
		case "role":
			return d.sc.Once(3) && str(d, &m.Role)
		case "content":
			return d.sc.Once(4) && d.content(&m.Content)
		case "tool_call_id":
			return d.sc.Once(5) && str(d, &m.ToolCallID)
		case "toolCallRequest":
			return d.sc.Once(6) && d.delegate(&m.ToolCallRequest)
		case "actionType":
			return d.sc.Once(7) && str(d, &m.ActionType)
		case "component":
			return d.sc.Once(8) && d.component(&m.Component)
		case "componentState":
			return d.sc.Once(9) && d.anyMap(&m.ComponentState)
		case "metadata":
			return d.sc.Once(10) && d.anyMap(&m.Metadata)
		case "additionalContext":
			return d.sc.Once(11) && d.anyMap(&m.AdditionalContext)
		case "error":
			return d.sc.Once(12) && str(d, &m.Error)
		case "isCancelled":
			return d.sc.Once(13) && jsonscan.Boolean(&d.sc, &m.IsCancelled)
		case "reasoning":
			return d.sc.Once(14) && d.strings(&m.Reasoning)
		case "reasoningDurationMS":
			return d.sc.Once(15) && d.delegate(&m.ReasoningDurationMS)
		case "createdAt":
			return d.sc.Once(16) && d.time(&m.CreatedAt)
		}
		return false
	})
}

func (d *snapshotDecoder) content(parts *[]ContentPart) bool {
	if d.sc.Null() {
		return true
	}
	*parts = make([]ContentPart, 0, 1)
	return d.array(func() bool {
		*parts = append(*parts, ContentPart{})
		p := &(*parts)[len(*parts)-1]
		if d.sc.Null() {
			return true
		}
		return d.object(func(name string) bool {
			switch name {
			case "type":
				return d.sc.Once(0) && str(d, &p.Type)
			case "text":
				return d.sc.Once(1) && str(d, &p.Text)
			case "image_url":
				return d.sc.Once(2) && d.delegate(&p.ImageURL)
			case "input_audio":
				return d.sc.Once(3) && d.delegate(&p.InputAudio)
			case "resource":
				return d.sc.Once(4) && d.delegate(&p.Resource)
			}
			return false
		})
	})
}

func (d *snapshotDecoder) component(c **ComponentDecision) bool {
	if d.sc.Null() {
		return true
	}
	cd := new(ComponentDecision)
	*c = cd
	return d.object(func(name string) bool {
		switch name {
		case "componentName":
			return d.sc.Once(0) && str(d, &cd.ComponentName)
		case "props":
			return d.sc.Once(1) && d.anyMap(&cd.Props)
		case "message":
			return d.sc.Once(2) && str(d, &cd.Message)
		case "componentState":
			return d.sc.Once(3) && d.anyMap(&cd.ComponentState)
		case "statusMessage":
			return d.sc.Once(4) && str(d, &cd.StatusMessage)
		case "completionStatusMessage":
			return d.sc.Once(5) && str(d, &cd.CompletionStatusMessage)
		case "toolCallRequest":
			return d.sc.Once(6) && d.delegate(&cd.ToolCallRequest)
		case "toolCallId":
			return d.sc.Once(7) && str(d, &cd.ToolCallID)
		case "role":
			return d.sc.Once(8) && str(d, &cd.Role)
		case "id":
			return d.sc.Once(9) && str(d, &cd.ID)
		case "componentId":
			return d.sc.Once(10) && str(d, &cd.ComponentID)
		case "parentMessageId":
			return d.sc.Once(11) && str(d, &cd.ParentMessageID)
		case "reasoningDurationMS":
			return d.sc.Once(12) && d.delegate(&cd.ReasoningDurationMS)
		}
		return false
	})
}

// object decodes an object as jsonscan's Object does, charging its
// container, colons and commas as decodedCost does.
func (d *snapshotDecoder) object(member func(name string) bool) bool {
	d.extra += costContainer
	if d.extra > d.budget {
		return false // the whole-value path refuses it, before decoding
	}
	first := true
	return d.sc.Object(func(name string) bool {
		d.extra += costValue // the ':'
		if !first {
			d.extra += costValue // the ','
		}
		first = false
		return member(name)
	})
}

// array decodes an array whose elements elem decodes.
func (d *snapshotDecoder) array(elem func() bool) bool {
	if !d.sc.OpenArray() {
		return false
	}
	d.extra += costContainer
	if d.extra > d.budget {
		return false
	}
	for first := true; ; first = false {
		done, ok := d.sc.Element(first)
		if !ok || done {
			return ok
		}
		if !first {
			d.extra += costValue
		}
		if !elem() {
			return false
		}
	}
}

// anyMap decodes null and {} itself and any other value with jsonx.
func (d *snapshotDecoder) anyMap(m *map[string]any) bool {
	if d.sc.Null() {
		return true
	}
	if d.sc.Empty('{') {
		d.extra += costContainer
		*m = map[string]any{}
		return true
	}
	return d.delegate(m)
}

// strings decodes null and [] itself and any other value with jsonx.
func (d *snapshotDecoder) strings(s *[]string) bool {
	if d.sc.Null() {
		return true
	}
	if d.sc.Empty('[') {
		d.extra += costContainer
		*s = []string{}
		return true
	}
	return d.delegate(s)
}

// time decodes as jsonx's tolerant time does: null leaves t as it is, an
// RFC 3339 string is parsed, and any other string is the zero time.
func (d *snapshotDecoder) time(t *time.Time) bool {
	if d.sc.Null() {
		return true
	}
	start := d.sc.Pos()
	s, ok := d.sc.HintedString(&d.hints)
	if !ok {
		return false
	}
	if raw := d.sc.Since(start); raw[1:len(raw)-1] == s {
		// The quoted literal as sent (no escapes) is what UnmarshalJSON takes.
		if t.UnmarshalJSON(unsafe.Slice(unsafe.StringData(raw), len(raw))) != nil {
			*t = time.Time{}
		}
		return true
	}
	d.sc.Rewind(start)
	return d.delegate(t) // escapes in a time: rare, and jsonx knows them
}

// str decodes a string (with the decoder's hints), or null as the zero
// value.
func str[T ~string](d *snapshotDecoder, p *T) bool {
	return jsonscan.Str(&d.sc, &d.hints, p)
}

// delegate decodes the next value into v with jsonx, as the whole-value
// decode would decode it into that zero field.
func (d *snapshotDecoder) delegate(v any) bool {
	raw, ok := d.sc.Skip()
	if !ok {
		return false
	}
	b := unsafe.Slice(unsafe.StringData(raw), len(raw))
	cost := decodedCost(b) - int64(len(b))
	if d.extra+cost > d.budget {
		return false // the whole-value path refuses it, before decoding
	}
	d.extra += cost
	return jsonx.Unmarshal(b, v) == nil
}
