package threads

// A hand-written decoder for the one JSON shape a Stream decodes thousands
// of times: the service's snapshot (AdvanceResponse). Every snapshot
// repeats the whole message so far, so a reply of n snapshots is O(n²)
// bytes of JSON; JSON v2's reflection over it was 62% of the stream's CPU.
// This decoder does less per snapshot:
//
//   - A string without escapes is not copied: it is a substring of the
//     event's data, which go-sse allocated for this event alone and never
//     touches again (internal/sse). The message's strings then keep that
//     event's data alive, which decodedCost already counts in full.
//   - The text a snapshot repeats is compared, not re-read: a string that
//     starts with the last long string decoded (the previous snapshot's
//     text, or the same text a moment ago in content[0].text before
//     component.message) is checked only past that prefix (a vectorised
//     compare, then the new bytes).
//   - An escaped string that extends the last escaped one is unescaped
//     only in its new part, appended to the bytes of the last one (an
//     append-only buffer: the strings already handed out are prefixes of
//     it that no append touches).
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
	"strings"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/threadsapi/threads-go/internal/jsonscan"
	"github.com/threadsapi/threads-go/internal/jsonx"
)

// snapshotDecoder decodes snapshots; it keeps the hints of the last ones
// (see the file comment). Its zero value is ready to use.
type snapshotDecoder struct {
	data string
	i    int
	// extra is decodedCost's charge for the structure decoded so far (its
	// containers and values), so that len(data)+extra equals
	// decodedCost(data) once the whole snapshot is decoded.
	extra  int64
	budget int64

	last    string // the last long plain string decoded (a substring of an event)
	escRaw  string // the last escaped string, quoted, as sent (a substring of an event)
	escStr  string // its unescaped value: arena[:len(escStr)]
	arena   []byte
	scratch []byte
}

// minHint is the length from which a string is remembered as a hint:
// shorter ones cost little to check again.
const minHint = 32

// decode decodes data into ev, which must be zero, and returns decodedCost
// of data; ok is false when it gave up, leaving ev in an unspecified state.
// budget bounds what values decoded by jsonx may cost.
func (d *snapshotDecoder) decode(data string, ev *AdvanceResponse, budget int64) (cost int64, ok bool) {
	d.data, d.i, d.extra, d.budget = data, 0, 0, budget
	ok = d.response(ev)
	d.ws()
	ok = ok && d.i == len(d.data)
	d.data = ""
	return int64(len(data)) + d.extra, ok
}

func (d *snapshotDecoder) response(ev *AdvanceResponse) bool {
	if !d.openObject() {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		name, done, ok := d.member(first)
		if !ok || done {
			return ok
		}
		switch name {
		case "responseMessageDto":
			if !(once(&seen, 0) && d.message(&ev.Message)) {
				return false
			}
		case "generationStage":
			if !(once(&seen, 1) && str(d, &ev.GenerationStage)) {
				return false
			}
		case "statusMessage":
			if !(once(&seen, 2) && str(d, &ev.StatusMessage)) {
				return false
			}
		case "mcpAccessToken":
			if !(once(&seen, 3) && d.delegate(&ev.MCPAccessToken)) {
				return false
			}
		default:
			return false
		}
	}
}

func once(seen *uint64, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		return false // a repeated name: jsonx's merge rules apply
	}
	*seen |= 1 << bit
	return true
}

func (d *snapshotDecoder) message(m *Message) bool {
	if d.null() {
		return true
	}
	if !d.openObject() {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		name, done, ok := d.member(first)
		if !ok || done {
			return ok
		}
		switch name {
		case "id":
			if !(once(&seen, 0) && str(d, &m.ID)) {
				return false
			}
		case "threadId":
			if !(once(&seen, 1) && str(d, &m.ThreadID)) {
				return false
			}
		case "parentMessageId":
			if !(once(&seen, 2) && str(d, &m.ParentMessageID)) {
				return false
			}
		case "role":
			if !(once(&seen, 3) && str(d, &m.Role)) {
				return false
			}
		case "content":
			if !(once(&seen, 4) && d.content(&m.Content)) {
				return false
			}
		case "tool_call_id":
			if !(once(&seen, 5) && str(d, &m.ToolCallID)) {
				return false
			}
		case "toolCallRequest":
			if !(once(&seen, 6) && d.delegate(&m.ToolCallRequest)) {
				return false
			}
		case "actionType":
			if !(once(&seen, 7) && str(d, &m.ActionType)) {
				return false
			}
		case "component":
			if !(once(&seen, 8) && d.component(&m.Component)) {
				return false
			}
		case "componentState":
			if !(once(&seen, 9) && d.anyMap(&m.ComponentState)) {
				return false
			}
		case "metadata":
			if !(once(&seen, 10) && d.anyMap(&m.Metadata)) {
				return false
			}
		case "additionalContext":
			if !(once(&seen, 11) && d.anyMap(&m.AdditionalContext)) {
				return false
			}
		case "error":
			if !(once(&seen, 12) && str(d, &m.Error)) {
				return false
			}
		case "isCancelled":
			if !(once(&seen, 13) && d.boolean(&m.IsCancelled)) {
				return false
			}
		case "reasoning":
			if !(once(&seen, 14) && d.strings(&m.Reasoning)) {
				return false
			}
		case "reasoningDurationMS":
			if !(once(&seen, 15) && d.delegate(&m.ReasoningDurationMS)) {
				return false
			}
		case "createdAt":
			if !(once(&seen, 16) && d.time(&m.CreatedAt)) {
				return false
			}
		default:
			return false
		}
	}
}

func (d *snapshotDecoder) content(parts *[]ContentPart) bool {
	if d.null() {
		return true
	}
	*parts = make([]ContentPart, 0, 1)
	return d.array(func() bool {
		*parts = append(*parts, ContentPart{})
		p := &(*parts)[len(*parts)-1]
		if d.null() {
			return true
		}
		if !d.openObject() {
			return false
		}
		var seen uint64
		for first := true; ; first = false {
			name, done, ok := d.member(first)
			if !ok || done {
				return ok
			}
			switch name {
			case "type":
				if !(once(&seen, 0) && str(d, &p.Type)) {
					return false
				}
			case "text":
				if !(once(&seen, 1) && str(d, &p.Text)) {
					return false
				}
			case "image_url":
				if !(once(&seen, 2) && d.delegate(&p.ImageURL)) {
					return false
				}
			case "input_audio":
				if !(once(&seen, 3) && d.delegate(&p.InputAudio)) {
					return false
				}
			case "resource":
				if !(once(&seen, 4) && d.delegate(&p.Resource)) {
					return false
				}
			default:
				return false
			}
		}
	})
}

func (d *snapshotDecoder) component(c **ComponentDecision) bool {
	if d.null() {
		return true
	}
	cd := new(ComponentDecision)
	*c = cd
	if !d.openObject() {
		return false
	}
	var seen uint64
	for first := true; ; first = false {
		name, done, ok := d.member(first)
		if !ok || done {
			return ok
		}
		switch name {
		case "componentName":
			if !(once(&seen, 0) && str(d, &cd.ComponentName)) {
				return false
			}
		case "props":
			if !(once(&seen, 1) && d.anyMap(&cd.Props)) {
				return false
			}
		case "message":
			if !(once(&seen, 2) && str(d, &cd.Message)) {
				return false
			}
		case "componentState":
			if !(once(&seen, 3) && d.anyMap(&cd.ComponentState)) {
				return false
			}
		case "statusMessage":
			if !(once(&seen, 4) && str(d, &cd.StatusMessage)) {
				return false
			}
		case "completionStatusMessage":
			if !(once(&seen, 5) && str(d, &cd.CompletionStatusMessage)) {
				return false
			}
		case "toolCallRequest":
			if !(once(&seen, 6) && d.delegate(&cd.ToolCallRequest)) {
				return false
			}
		case "toolCallId":
			if !(once(&seen, 7) && str(d, &cd.ToolCallID)) {
				return false
			}
		case "role":
			if !(once(&seen, 8) && str(d, &cd.Role)) {
				return false
			}
		case "id":
			if !(once(&seen, 9) && str(d, &cd.ID)) {
				return false
			}
		case "componentId":
			if !(once(&seen, 10) && str(d, &cd.ComponentID)) {
				return false
			}
		case "parentMessageId":
			if !(once(&seen, 11) && str(d, &cd.ParentMessageID)) {
				return false
			}
		case "reasoningDurationMS":
			if !(once(&seen, 12) && d.delegate(&cd.ReasoningDurationMS)) {
				return false
			}
		default:
			return false
		}
	}
}

// openObject consumes the '{' of an object.
func (d *snapshotDecoder) openObject() bool {
	d.ws()
	if !d.eat('{') {
		return false
	}
	d.extra += costContainer
	return d.extra <= d.budget // else the whole-value path refuses it, before decoding
}

// member reads up to the next member's value and returns its name; done
// reports the object's end instead.
func (d *snapshotDecoder) member(first bool) (name string, done, ok bool) {
	d.ws()
	if d.eat('}') {
		return "", true, true
	}
	if !first {
		if !d.eat(',') {
			return "", false, false
		}
		d.extra += costValue
		d.ws()
	}
	name, ok = d.string()
	if !ok {
		return "", false, false
	}
	d.ws()
	if !d.eat(':') {
		return "", false, false
	}
	d.extra += costValue
	d.ws()
	return name, false, true
}

// array decodes an array whose elements elem decodes.
func (d *snapshotDecoder) array(elem func() bool) bool {
	d.ws()
	if !d.eat('[') {
		return false
	}
	d.extra += costContainer
	if d.extra > d.budget {
		return false
	}
	d.ws()
	if d.eat(']') {
		return true
	}
	for {
		d.ws()
		if !elem() {
			return false
		}
		d.ws()
		if d.eat(',') {
			d.extra += costValue
			continue
		}
		return d.eat(']')
	}
}

// anyMap decodes null and {} itself and any other value with jsonx.
func (d *snapshotDecoder) anyMap(m *map[string]any) bool {
	if d.null() {
		return true
	}
	if d.empty('{', '}') {
		*m = map[string]any{}
		return true
	}
	return d.delegate(m)
}

// strings decodes null and [] itself and any other value with jsonx.
func (d *snapshotDecoder) strings(s *[]string) bool {
	if d.null() {
		return true
	}
	if d.empty('[', ']') {
		*s = []string{}
		return true
	}
	return d.delegate(s)
}

// empty decodes an empty object or array.
func (d *snapshotDecoder) empty(open, close byte) bool {
	j := d.i
	if j >= len(d.data) || d.data[j] != open {
		return false
	}
	j++
	for j < len(d.data) && isSpace(d.data[j]) {
		j++
	}
	if j >= len(d.data) || d.data[j] != close {
		return false
	}
	d.i = j + 1
	d.extra += costContainer
	return true
}

func (d *snapshotDecoder) boolean(b *bool) bool {
	switch {
	case strings.HasPrefix(d.data[d.i:], "true"):
		*b = true
		d.i += 4
	case strings.HasPrefix(d.data[d.i:], "false"):
		*b = false
		d.i += 5
	default:
		return d.null()
	}
	return d.delimited()
}

// time decodes as jsonx's tolerant time does: null leaves t as it is, an
// RFC 3339 string is parsed, and any other string is the zero time.
func (d *snapshotDecoder) time(t *time.Time) bool {
	if d.null() {
		return true
	}
	start := d.i
	s, ok := d.string()
	if !ok {
		return false
	}
	if raw := d.data[start:d.i]; raw[1:len(raw)-1] == s {
		// The quoted literal as sent (no escapes) is what UnmarshalJSON takes.
		if t.UnmarshalJSON(unsafe.Slice(unsafe.StringData(raw), len(raw))) != nil {
			*t = time.Time{}
		}
		return true
	}
	d.i = start
	return d.delegate(t) // escapes in a time: rare, and jsonx knows them
}

// str decodes a string, or null as the zero value.
func str[T ~string](d *snapshotDecoder, p *T) bool {
	if d.null() {
		return true
	}
	s, ok := d.string()
	*p = T(s)
	return ok
}

// null consumes a null literal.
func (d *snapshotDecoder) null() bool {
	if strings.HasPrefix(d.data[d.i:], "null") {
		d.i += 4
		return d.delimited()
	}
	return false
}

// delimited reports whether a literal just read ends there (not "nullx").
func (d *snapshotDecoder) delimited() bool {
	if d.i == len(d.data) {
		return true
	}
	switch c := d.data[d.i]; c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// delegate decodes the next value into v with jsonx, as the whole-value
// decode would decode it into that zero field.
func (d *snapshotDecoder) delegate(v any) bool {
	raw, ok := d.skip()
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

// skip returns the next value, finding only its extent (jsonx checks it).
func (d *snapshotDecoder) skip() (string, bool) {
	start := d.i
	end, ok := jsonscan.SkipValue(d.data, d.i)
	d.i = end
	return d.data[start:end], ok
}

// string decodes a JSON string at d.i.
func (d *snapshotDecoder) string() (string, bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	from := start
	if l := d.last; l != "" && strings.HasPrefix(d.data[start:], l) {
		from += len(l) // checked when it was decoded: plain, whole runes
	}
	q := strings.IndexByte(d.data[from:], '"')
	if q < 0 {
		return "", false
	}
	end := from + q
	if tail := d.data[from:end]; strings.IndexByte(tail, '\\') < 0 && jsonscan.Plain(tail) {
		s := d.data[start:end]
		d.i = end + 1
		if len(s) >= minHint {
			d.last = s
		}
		return s, true
	}
	return d.escaped(start)
}

// escaped decodes a string with escapes (or bytes plain does not pass)
// whose content starts at start.
func (d *snapshotDecoder) escaped(start int) (string, bool) {
	end := jsonscan.StringEnd(d.data, start)
	if end == len(d.data) {
		return "", false
	}
	raw := d.data[start-1 : end+1]
	d.i = end + 1
	if raw == d.escRaw {
		return d.escStr, true
	}
	// The new string extends the last one: unescape only its new part.
	// The last one's content ends with a whole character or escape, unless
	// its last escape is half of a surrogate pair that the new part may
	// complete.
	if p := d.escRaw; len(p) > 2 && strings.HasPrefix(raw, p[:len(p)-1]) && !highSurrogateEnd(p[:len(p)-1]) {
		d.scratch = append(append(d.scratch[:0], '"'), raw[len(p)-1:]...)
		b, err := jsontext.AppendUnquote(d.arena[:len(d.escStr)], d.scratch)
		if err != nil {
			return "", false
		}
		d.arena = b
	} else {
		b, err := jsontext.AppendUnquote(nil, raw)
		if err != nil {
			return "", false
		}
		d.arena = b
	}
	d.escRaw = raw
	d.escStr = unsafe.String(unsafe.SliceData(d.arena), len(d.arena))
	if len(d.arena) == 0 {
		d.escStr = ""
	}
	return d.escStr, true
}

// highSurrogateEnd reports whether s may end with a \uD800-\uDBFF escape.
func highSurrogateEnd(s string) bool {
	if len(s) < 6 {
		return false
	}
	e := s[len(s)-6:]
	return e[0] == '\\' && e[1] == 'u' && (e[2] == 'd' || e[2] == 'D') && strings.IndexByte("89abAB", e[3]) >= 0
}

func (d *snapshotDecoder) ws() {
	for d.i < len(d.data) && isSpace(d.data[d.i]) {
		d.i++
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *snapshotDecoder) eat(c byte) bool {
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}
