package runs

import (
	"encoding/json"
	"fmt"

	"github.com/threadsapi/threads-go/internal/jsonx"
)

// Raw is embedded in every value this package decodes from a JSON answer
// ([Thread], [ThreadWithMessages], [Message], [Content], the pages, ...
// and each value inside them): for a call made with
// [threads.WithRawJSON] (given to the call or to the [threads.Client]
// this Client was made from), it gives the JSON the value was decoded
// from and the members of it that the SDK does not model, such as a field
// the service added after this release; without that option it records
// nothing. It is [threads.Raw]'s counterpart; see there for what it keeps
// alive, what a value built in Go or decoded from a run's events holds
// (nothing), and why == and reflect.DeepEqual see it.
type Raw jsonx.Raw

// RawJSON returns a copy of the JSON the value was decoded from, byte for
// byte as the service sent it (for the whole answer, the body after any
// decompression, without its surrounding white space); nil when the value
// was not decoded from a JSON answer of a call made with
// [threads.WithRawJSON].
func (r Raw) RawJSON() json.RawMessage { return jsonx.Bytes(jsonx.Raw(r)) }

// ExtraFields returns the members of the value's JSON object that no
// field of its Go type takes (matched as the decoder matches names:
// exactly, or ignoring case, '-' and '_'), each a copy of its JSON; nil
// when there are none or the value was not decoded from a JSON answer of
// a call made with [threads.WithRawJSON]. Members of nested values are in those values' own ExtraFields.
func (r Raw) ExtraFields() map[string]json.RawMessage { return jsonx.Extra(jsonx.Raw(r)) }

// The answer types print their fields alone, with or without WithRawJSON:
// the Raw they embed would show its offsets and type otherwise (see
// jsonx.Format, which also says why each type needs its own method).

// Format prints the Content's fields as fmt prints a struct, without its [Raw].
func (v Content) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the Message's fields as fmt prints a struct, without its [Raw].
func (v Message) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the MessagePage's fields as fmt prints a struct, without its [Raw].
func (v MessagePage) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the Resource's fields as fmt prints a struct, without its [Raw].
func (v Resource) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ResourceAnnotations's fields as fmt prints a struct, without its [Raw].
func (v ResourceAnnotations) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the RunError's fields as fmt prints a struct, without its [Raw].
func (v RunError) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the Suggestion's fields as fmt prints a struct, without its [Raw].
func (v Suggestion) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the SuggestionPage's fields as fmt prints a struct, without its [Raw].
func (v SuggestionPage) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the Thread's fields as fmt prints a struct, without its [Raw].
func (v Thread) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ThreadPage's fields as fmt prints a struct, without its [Raw].
func (v ThreadPage) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }

// Format prints the ThreadWithMessages's fields as fmt prints a struct, without its [Raw].
func (v ThreadWithMessages) Format(f fmt.State, verb rune) { jsonx.Format(f, verb, v) }
