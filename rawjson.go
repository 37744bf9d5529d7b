package threads

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/threadsapi/threads-go/internal/core"
	"github.com/threadsapi/threads-go/internal/jsonx"
)

// This file holds the request options that reach below the SDK's model:
// WithRawJSON keeps the JSON each value of an answer was decoded from (see
// Raw); WithJSONSet, WithJSONDelete and WithRequestBody change the body a
// call sends. They work on the one request path (request.go applies them
// in do, before the first attempt), so a changed body is the one every
// retry, fallback and migration re-sends, and every call of both packages
// takes them.

// wireOptions are what the options of this file set.
type wireOptions struct {
	keepRaw  bool
	edits    []bodyEdit // applied in order; copied on write
	body     []byte     // WithRequestBody's bytes
	bodyType string     // and their Content-Type
	bodySet  bool
}

// bodyEdit is one WithJSONSet (val set) or WithJSONDelete (val nil).
type bodyEdit struct {
	pointer string
	toks    []string
	val     []byte
}

// WithRawJSON makes every value decoded from the call's JSON answer
// record the bytes it came from: its embedded [Raw] then gives them
// (RawJSON) and the members no field of its type takes (ExtraFields),
// such as a field the service added after this release. Given to
// [NewClient] it applies to every call of the client, /v1 calls of
// package runs included.
//
// It is off by default because a value that records its JSON keeps the
// whole answer's body in memory for as long as the value lives, and
// compares unequal (==, reflect.DeepEqual) to the same value built in Go.
// Stream events never record theirs.
func WithRawJSON() RequestOption {
	return newRequestOption("WithRawJSON", func(c *config) error {
		c.wire.keepRaw = true
		return nil
	})
}

// MaxJSONPointerDepth is how many reference tokens a pointer of
// [WithJSONSet] or [WithJSONDelete] may have: a call's body is not nested
// deeper than that, and a longer pointer (one from outside, say) is
// refused before the body is read.
const MaxJSONPointerDepth = 64

// pointerTokens is pointer's tokens, refused past MaxJSONPointerDepth
// before it is split.
func pointerTokens(pointer string) ([]string, error) {
	if n := strings.Count(pointer, "/"); n > MaxJSONPointerDepth {
		return nil, fmt.Errorf("the JSON pointer has %d tokens; at most %d (MaxJSONPointerDepth)", n, MaxJSONPointerDepth)
	}
	return jsonx.Pointer(pointer)
}

// WithJSONSet sets the member of the call's JSON body at pointer, an RFC
// 6901 JSON Pointer ("/metadata/source"; "~1" stands for "/" in a name and
// "~0" for "~"), to value encoded as encoding/json encodes it: it replaces
// the member the SDK sends, or adds it (with the objects on its way) when
// the SDK sends none; "-" as the last token appends to an array, a number
// names an existing element. It is for members the SDK does not model yet
// (or sends differently), on any call: the typed methods and [Client.Do]
// alike; several are applied in order, after [WithRequestBody]. What it
// refuses before sending: the package doc's "Raw JSON". It is for one
// call: [NewClient] refuses it.
func WithJSONSet(pointer string, value any) RequestOption {
	toks, perr := pointerTokens(pointer)
	var val []byte
	var verr error
	if perr == nil {
		val, verr = json.Marshal(value)
	}
	return requestOption{name: "WithJSONSet", callOnly: true, fn: func(c *config) error {
		switch {
		case perr != nil:
			return fmt.Errorf("threads: WithJSONSet: %w", perr)
		case verr != nil:
			return fmt.Errorf("threads: WithJSONSet(%q): encoding the value: %w", pointer, verr)
		}
		c.wire.edits = append(c.wire.edits[:len(c.wire.edits):len(c.wire.edits)], bodyEdit{pointer: pointer, toks: toks, val: val})
		return nil
	}}
}

// WithJSONDelete removes the member (or array element) at pointer, an RFC
// 6901 JSON Pointer as in [WithJSONSet], from the call's JSON body: for a
// member the SDK sends that a deployment refuses. A member that is not
// there leaves the body as it is. Applied in order with WithJSONSet; for
// one call only ([NewClient] refuses it). A pointer of more than
// [MaxJSONPointerDepth] tokens is refused before any work.
func WithJSONDelete(pointer string) RequestOption {
	toks, perr := pointerTokens(pointer)
	return requestOption{name: "WithJSONDelete", callOnly: true, fn: func(c *config) error {
		if perr != nil {
			return fmt.Errorf("threads: WithJSONDelete: %w", perr)
		}
		if len(toks) == 0 {
			return errors.New(`threads: WithJSONDelete(""): the empty pointer is the whole body; use WithRequestBody`)
		}
		c.wire.edits = append(c.wire.edits[:len(c.wire.edits):len(c.wire.edits)], bodyEdit{pointer: pointer, toks: toks})
		return nil
	}}
}

// WithRequestBody sends body, with the Content-Type contentType, as the
// call's body instead of the one the SDK builds, byte for byte (and on
// every retry): for a shape the SDK cannot express. The call's route,
// query, headers, auth, retries and answer decoding stay the SDK's. For
// one call only ([NewClient] refuses it); an empty or malformed
// contentType is refused.
func WithRequestBody(contentType string, body []byte) RequestOption {
	body = append([]byte{}, body...) // the caller may reuse its slice
	return requestOption{name: "WithRequestBody", callOnly: true, fn: func(c *config) error {
		if _, _, err := mime.ParseMediaType(contentType); err != nil || !validHeaderValue(contentType) {
			return fmt.Errorf("threads: WithRequestBody: %q is not a media type", contentType)
		}
		c.wire.body, c.wire.bodyType, c.wire.bodySet = body, contentType, true
		return nil
	}}
}

// edit applies the options' body changes to cl, whose JSON body is body
// (cl.Raw, when set, is the body as sent). It returns the call and body
// to send.
func (w *wireOptions) edit(cl core.Call, body []byte) (core.Call, []byte, error) {
	if w.bodySet {
		cl.Raw, body = w.body, nil
		cl.Header = cl.Header.Clone()
		if cl.Header == nil {
			cl.Header = http.Header{}
		}
		cl.Header.Set("Content-Type", w.bodyType)
	}
	if len(w.edits) == 0 {
		return cl, body, nil
	}
	doc := body
	if cl.Raw != nil {
		if ct := cl.Header.Get("Content-Type"); ct != "" && !isJSONType(ct) {
			return cl, nil, fmt.Errorf("%s: the body is %s, not JSON", w.edits[0].name(), ct)
		}
		doc = cl.Raw
	}
	if doc == nil {
		switch cl.Route.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			doc = []byte("{}")
		default:
			return cl, nil, fmt.Errorf("%s: a %s sends no body", w.edits[0].name(), cl.Route.Method)
		}
	}
	for _, e := range w.edits {
		var err error
		if e.val == nil {
			doc, err = jsonx.Delete(doc, e.toks)
		} else {
			doc, err = jsonx.Set(doc, e.toks, e.val)
		}
		if err != nil {
			return cl, nil, fmt.Errorf("%s: %w", e.name(), err)
		}
	}
	if cl.Raw != nil {
		cl.Raw = doc
		return cl, nil, nil
	}
	return cl, doc, nil
}

// name names the option that made e, for errors.
func (e bodyEdit) name() string {
	if e.val == nil {
		return fmt.Sprintf("WithJSONDelete(%q)", e.pointer)
	}
	return fmt.Sprintf("WithJSONSet(%q)", e.pointer)
}

// isJSONType reports whether the media type ct is JSON: application/json
// or a +json type such as application/merge-patch+json.
func isJSONType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// Raw is embedded in every value the SDK decodes from a JSON answer
// ([Thread], [Message], [Project], ... and each value inside them): for a
// call made with [WithRawJSON] (given to the call or to [NewClient]), it
// gives the JSON the value was decoded from and the members of it that
// the SDK does not model, such as a field the service added after this
// release. Without that option it records nothing: RawJSON and
// ExtraFields return nil. Package runs' values embed its counterpart,
// runs.Raw, which the same option fills.
//
// A value keeps the whole answer's body it came from, prints without its
// Raw, and compares unequal (==, reflect.DeepEqual) to the same value built
// in Go: the package doc's "Raw JSON".
type Raw jsonx.Raw

// RawJSON returns a copy of the JSON the value was decoded from, byte for
// byte as the service sent it (for the whole answer, the body after any
// decompression, without its surrounding white space); nil when the value
// was not decoded from a JSON answer of a call made with [WithRawJSON].
func (r Raw) RawJSON() json.RawMessage { return jsonx.Bytes(jsonx.Raw(r)) }

// ExtraFields returns the members of the value's JSON object that no
// field of its Go type takes (matched as the decoder matches names:
// exactly, or ignoring case, '-' and '_'), each a copy of its JSON; nil
// when there are none or the value was not decoded from a JSON answer of
// a call made with [WithRawJSON]. Members of nested values are in those
// values' own ExtraFields.
func (r Raw) ExtraFields() map[string]json.RawMessage { return jsonx.Extra(jsonx.Raw(r)) }

// The answer types print their fields alone, with or without WithRawJSON:
// the Raw they embed would show its offsets and type otherwise (see
// jsonx.Format, which also says why each type needs its own method).

// Format prints the APIKey's fields as fmt prints a struct, without its [Raw].
func (v APIKey) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ComponentDecision's fields as fmt prints a struct, without its [Raw].
func (v ComponentDecision) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ContentPart's fields as fmt prints a struct, without its [Raw].
func (v ContentPart) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ImageURL's fields as fmt prints a struct, without its [Raw].
func (v ImageURL) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// String prints the InputAudio's fields as %+v prints a struct, without
// its [Raw] (its field Format leaves no room for a Format method, so %v
// names the fields too).
func (v InputAudio) String() string { return fmt.Sprintf("{Data:%s Format:%s}", v.Data, v.Format) }

// GoString prints the InputAudio as %#v prints a struct, without its [Raw].
func (v InputAudio) GoString() string {
	return fmt.Sprintf("threads.InputAudio{Data:%q, Format:%q}", v.Data, v.Format)
}

// Format prints the Message's fields as fmt prints a struct, without its [Raw].
func (v Message) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the Project's fields as fmt prints a struct, without its [Raw].
func (v Project) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ProviderKey's fields as fmt prints a struct, without its [Raw].
func (v ProviderKey) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the Resource's fields as fmt prints a struct, without its [Raw].
func (v Resource) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the Suggestion's fields as fmt prints a struct, without its [Raw].
func (v Suggestion) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the Thread's fields as fmt prints a struct, without its [Raw].
func (v Thread) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ThreadPage's fields as fmt prints a struct, without its [Raw].
func (v ThreadPage) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ThreadWithMessages's fields as fmt prints a struct, without its [Raw].
func (v ThreadWithMessages) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ToolCallParameter's fields as fmt prints a struct, without its [Raw].
func (v ToolCallParameter) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ToolCallRequest's fields as fmt prints a struct, without its [Raw].
func (v ToolCallRequest) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }
