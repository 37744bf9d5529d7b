package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/threadsapi/threads-go/internal/cputime"

	threads "github.com/threadsapi/threads-go"
)

const (
	compThread = "thr_nZmVC5Tz.14fe20"
	compID     = "message-GqTWYXDmwToHLHOA7Tn4J"
)

// Captures 89, 90: a full replace and a JSON Patch, the user key in the
// body (capture 98 shows the query is not read), 201 with the new state.
func TestComponentStateCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "89", "90")
	c := r.client().ForUser("user-1")
	st, err := c.SetComponentState(context.Background(), compThread, compID, map[string]any{"expanded": true, "items": []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, map[string]any{"expanded": true, "items": []any{float64(1), float64(2)}}) {
		t.Errorf("89: %v", st)
	}
	st, err = c.PatchComponentState(context.Background(), compThread, compID, []PatchOp{
		{Op: "replace", Path: "/expanded", Value: false}, {Op: "add", Path: "/items/-", Value: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, map[string]any{"expanded": false, "items": []any{float64(1), float64(2), float64(3)}}) {
		t.Errorf("90: %v", st)
	}
	r.check()
}

// Captures 91, 92: a patch that does not apply is ErrInvalidJSONPatch with
// the failing operation in Extensions["errors"]; 56: 409 while a run is
// active is ErrRunActive (and threads.ErrConflict); 97: unknown component
// is 404; 96: an op the service does not know is its 400.
func TestComponentStateErrors(t *testing.T) {
	t.Parallel()
	r := replay(t, "91", "92", "96", "97", "56")
	c := r.client().ForUser("user-1")
	ctx := context.Background()
	_, err := c.PatchComponentState(ctx, compThread, compID, []PatchOp{{Op: "replace", Path: "/nope/deep", Value: 1}})
	var p *threads.Problem
	if !errors.Is(err, ErrInvalidJSONPatch) || !errors.As(err, &p) || p.Type != TypeInvalidJSONPatch {
		t.Fatalf("91: %v", err)
	}
	var detail struct{ Name string }
	if json.Unmarshal(p.Extensions["errors"], &detail); detail.Name != "OPERATION_PATH_UNRESOLVABLE" {
		t.Errorf("91: errors = %s", p.Extensions["errors"])
	}
	_, err = c.PatchComponentState(ctx, compThread, compID, []PatchOp{{Op: "test", Path: "/expanded", Value: true}, {Op: "replace", Path: "/expanded", Value: true}})
	if !errors.Is(err, ErrInvalidJSONPatch) || errors.Is(err, ErrRunActive) {
		t.Errorf("92: %v", err)
	}
	_, err = c.PatchComponentState(ctx, compThread, compID, []PatchOp{{Op: "frobnicate", Path: "/a"}})
	if !errors.Is(err, threads.ErrBadRequest) || errors.Is(err, ErrInvalidJSONPatch) {
		t.Errorf("96: %v", err)
	}
	_, err = c.SetComponentState(ctx, compThread, "comp_doesnotexist", map[string]any{"a": 1})
	if !errors.Is(err, threads.ErrNotFound) {
		t.Errorf("97: %v", err)
	}
	_, err = c.SetComponentState(ctx, "thr_2qzYSSu1.200943", "comp_any", map[string]any{"x": 1})
	if !errors.Is(err, ErrRunActive) || !errors.Is(err, threads.ErrConflict) || !errors.As(err, &p) || p.Type != TypeRunActive {
		t.Errorf("56: %v", err)
	}
	r.check()
}

// Captures 93-95 show the service's 400s for both, neither and an empty
// patch; the SDK's two methods cannot send both, and refuse the other two
// before sending.
func TestComponentStateRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	r := replay(t)
	c := r.client().ForUser("user-1")
	if _, err := c.SetComponentState(context.Background(), compThread, compID, nil); err == nil {
		t.Error("nil state: no error")
	}
	if _, err := c.PatchComponentState(context.Background(), compThread, compID, nil); err == nil {
		t.Error("empty patch: no error")
	}
	if r.requests() != 0 {
		t.Fatal("sent")
	}
}

type rowsCard struct {
	Title string `json:"title"`
	Rows  []struct {
		A string  `json:"a"`
		B float64 `json:"b"`
	} `json:"rows"`
}

// rowsJSON is a JSON array of n rows.
func rowsJSON(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"a":"row %d","b":%d}`, i, i)
	}
	b.WriteByte(']')
	return b.String()
}

// decodeCPU reads body as a run stream (pushed by All: a pull
// iterator's coroutine cannot change threads, and the CPU time is the
// thread's) and decodes every event of component Card into rowsCard; it
// returns the thread CPU time this took and the last event decoded.
func decodeCPU(t *testing.T, body []byte) (time.Duration, ComponentEvent[rowsCard]) {
	t.Helper()
	card := NewComponent[rowsCard]("Card", "")
	var last ComponentEvent[rowsCard]
	var err error
	cpu := cputime.Thread(t, func() {
		s := propsStream(body)
		for e, rerr := range s.All() {
			if ev, ok := card.Decode(s, e); ok {
				last = ev
			}
			err = rerr
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return cpu, last
}

// deltasCPU is the CPU time of n props_deltas that follow the first, in
// the stream of ops: the least of 3 reads of the whole stream, less the
// least of 3 of the stream without them.
func deltasCPU(t *testing.T, ops []string, n int, check func(ComponentEvent[rowsCard])) time.Duration {
	best := func(ops []string) time.Duration {
		b := time.Duration(1 << 62)
		for range 3 {
			cpu, last := decodeCPU(t, propsEvents(ops...))
			check(last)
			b = min(b, cpu)
		}
		return b
	}
	return max(0, best(ops)-best(ops[:len(ops)-n]))
}

// TestComponentDecodeLinearInTheStream: following a component's props
// with Decode on every delta costs what the deltas changed, not the
// props' size each time (issue 31: Decode on every delta was quadratic,
// 1 MiB of tiny deltas ~5 s of CPU; issue 36's bar: N tiny deltas on
// large props cost O(N)). 200 one-member deltas on props of 1,000 rows
// and of 8,000 rows: the deltas cost about the same (before: ~8x).
func TestComponentDecodeLinearInTheStream(t *testing.T) {
	run := func(rows int) time.Duration {
		ops := []string{`[{"op":"add","path":"/rows","value":` + rowsJSON(rows) + `},{"op":"add","path":"/title","value":""}]`}
		for i := range 200 {
			ops = append(ops, fmt.Sprintf(`[{"op":"replace","path":"/title","value":"title %d"}]`, i))
		}
		return deltasCPU(t, ops, 200, func(last ComponentEvent[rowsCard]) {
			if last.Err != nil || !strings.HasPrefix(last.Props.Title, "title") && last.Props.Title != "" || len(last.Props.Rows) != rows || last.Props.Rows[rows-1].A != fmt.Sprint("row ", rows-1) {
				t.Fatalf("last event: title %q, %d rows, %v", last.Props.Title, len(last.Props.Rows), last.Err)
			}
		})
	}
	small, large := run(1000), run(8000)
	t.Logf("200 tiny deltas: on 1,000 rows %v, on 8,000 rows %v", small, large)
	if large > 3*small+20*time.Millisecond {
		t.Fatalf("tiny deltas on 8x larger props cost %v against %v: each Decode walks the props", large, small)
	}
}

// TestComponentDecodeBoundedByTheStream: whatever the server's deltas
// (here, each appends a row inside the one large prop, which a member's
// decode cannot follow for less than the member's size), Decode on every
// delta costs at most a multiple of the bytes received: 4x the deltas
// cost well under 16x the CPU (before: ~16x, quadratic).
func TestComponentDecodeBoundedByTheStream(t *testing.T) {
	run := func(n int) time.Duration {
		ops := []string{`[{"op":"add","path":"/rows","value":[]}]`}
		for i := range n {
			ops = append(ops, fmt.Sprintf(`[{"op":"add","path":"/rows/-","value":{"a":"row %d","b":%d}}]`, i, i))
		}
		return deltasCPU(t, ops, n, func(ComponentEvent[rowsCard]) {})
	}
	small, large := run(400), run(1600)
	t.Logf("400 appends %v, 1,600 appends %v", small, large)
	if large > 8*small+20*time.Millisecond {
		t.Fatalf("4x the deltas cost %v against %v: Decode is quadratic in the stream", large, small)
	}
}

// decodeProbe has a field of every kind encoding/json treats apart: two
// names equal but for case, a quoted number, a name "-", unexported and
// skipped fields, a nested struct, a pointer, a map, a slice, any.
type decodeProbe struct {
	Title  string         `json:"title"`
	Count  float64        `json:"count,omitempty"`
	Tags   []string       `json:"tags"`
	Meta   map[string]int `json:"meta"`
	Inner  innerProbe     `json:"inner"`
	Ptr    *int           `json:"ptr"`
	Any    any            `json:"any"`
	Lower  string         `json:"k"`
	Upper  string         `json:"K"`
	Quoted int            `json:"q,string"`
	//lint:ignore SA5008 a member named "-" is one of encoding/json's rules under test
	Dash string `json:"-,"`
	Skip string `json:"-"`
	//lint:ignore U1000 an unexported field, which encoding/json leaves alone, is one of the rules under test
	hidden int
	Plain  bool
}

type innerProbe struct {
	A string `json:"a"`
	B []int  `json:"b"`
}

// embeddedProbe has promoted fields: it is decoded whole on each call.
type embeddedProbe struct {
	innerProbe
	Title string `json:"title"`
}

var (
	probeNames  = []string{"title", "Title", "TITLE", "count", "tags", "meta", "inner", "ptr", "any", "k", "K", "q", "-", "Skip", "skip", "hidden", "plain", "Plain", "a", "b", "other", "ſkip"}
	probeValues = []func() any{
		func() any { return "x" }, func() any { return "" }, func() any { return "12" }, func() any { return 1.0 },
		func() any { return 2.5 }, func() any { return -3.0 }, func() any { return true }, func() any { return nil },
		func() any { return []any{"a", "b"} }, func() any { return []any{1.0, 2.0} }, func() any { return []any{} },
		func() any { return map[string]any{"a": "z", "b": []any{1.0, 2.0}} }, func() any { return map[string]any{"x": 1.0} },
		func() any { return map[string]any{} },
	}
)

// probeOps turns fuzz bytes into events of JSON Patch operations on the
// props' top-level members, inside them, and on the root.
func probeOps(data []byte) [][]PatchOp {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	name := func() string { return "/" + strings.ReplaceAll(probeNames[next()%len(probeNames)], "~", "~0") }
	value := func() any { return probeValues[next()%len(probeValues)]() }
	var events [][]PatchOp
	for len(data) > 0 {
		ops := make([]PatchOp, 1+next()%3)
		for i := range ops {
			switch next() % 12 {
			case 0, 1, 2:
				ops[i] = PatchOp{Op: "add", Path: name(), Value: value()}
			case 3, 4:
				ops[i] = PatchOp{Op: "replace", Path: name(), Value: value()}
			case 5:
				ops[i] = PatchOp{Op: "remove", Path: name()}
			case 6:
				ops[i] = PatchOp{Op: "move", From: name(), Path: name()}
			case 7:
				ops[i] = PatchOp{Op: "add", Path: name() + []string{"/a", "/-", "/0", "/x"}[next()%4], Value: value()}
			case 8:
				root := map[string]any{}
				for range next() % 4 {
					root[name()[1:]] = value()
				}
				ops[i] = PatchOp{Op: "replace", Path: "", Value: root}
			case 9:
				ops[i] = PatchOp{Op: "replace", Path: "", Value: value()}
			case 10:
				ops[i] = PatchOp{Op: "remove", Path: ""}
			case 11:
				ops[i] = PatchOp{Op: "test", Path: name(), Value: value()}
			}
		}
		events = append(events, ops)
	}
	return events
}

// randomOps is probeOps of 200 random bytes: about 40 events.
func randomOps(r *rand.Rand) [][]PatchOp {
	data := make([]byte, 200)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	return probeOps(data)
}

// checkDecodeEquivalence applies the events to a component and decodes
// it after each, into P with Decode and whole with encoding/json: the
// same props and the same error.
func checkDecodeEquivalence[P any](t *testing.T, events [][]PatchOp, every bool) {
	s := &Stream{}
	s.acc.component("c1", "Card", "m1")
	card := NewComponent[P]("Card", "")
	for i, ops := range events {
		s.acc.patch("c1", ops)
		if !every && i%3 != 0 && i != len(events)-1 {
			continue // the changes of several events decoded at once
		}
		got, ok := card.Decode(s, ComponentPropsDelta{ComponentID: "c1"})
		cs, _ := s.component("c1")
		want, wantErr := decodeWhole[P]("Card", cs.props)
		if !ok || !reflect.DeepEqual(got.Props, want) || fmt.Sprint(got.Err) != fmt.Sprint(wantErr) {
			b, _ := json.Marshal(cs.props)
			t.Fatalf("after event %d %+v, props %s:\nDecode %+v, %v\nwhole  %+v, %v", i, ops, b, got.Props, got.Err, want, wantErr)
		}
	}
}

// FuzzComponentDecode: Decode, which decodes again only the members the
// operations named since its last call, gives what encoding/json's decode
// of the whole props gives (the props and the error), for a struct
// Props, a pointer to one and one it decodes whole, whatever the
// operations and however many events pass between calls.
func FuzzComponentDecode(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 4, 3, 7, 1, 0, 2, 3, 13})
	f.Add([]byte("\x02\x00\x01\x08\x05\x00\x06\x03\x04\x07\x02\x04\x00\x05\x02\x09\x10\x01\x09\x08\x03\x00\x01"))
	f.Add([]byte("title Title tags inner ptr any k K q - move root"))
	f.Fuzz(func(t *testing.T, data []byte) {
		events := probeOps(data)
		checkDecodeEquivalence[decodeProbe](t, events, true)
		checkDecodeEquivalence[*decodeProbe](t, events, false)
		checkDecodeEquivalence[embeddedProbe](t, events, true)
	})
}

// TestComponentDecodeEquivalence runs FuzzComponentDecode's check on
// 300 random streams of 40 events.
func TestComponentDecodeEquivalence(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		events := randomOps(r)
		checkDecodeEquivalence[decodeProbe](t, events, true)
		checkDecodeEquivalence[*decodeProbe](t, events, r.IntN(2) == 0)
	}
}

// endEvents is a run stream whose component c1 (Card) ends with end, the
// value of its tambo.component.end.
func endEvents(end string) []byte {
	b := propsEvents(`[{"op":"add","path":"/title","value":"draft"}]`)
	i := bytes.LastIndex(b, []byte("data: "))
	return append(append(b[:i:i], `data: {"type":"CUSTOM","name":"tambo.component.end","value":`+end+`,"timestamp":1795498254445}`+"\n\n"...), b[i:]...)
}

// TestComponentEndFinalState: the end's finalState (ComponentEndEventValue
// in the service's source, packages/backend/src/util/
// tambo-custom-events.ts, which sends undefined today, so no capture
// holds one) is kept: on ComponentEnd, in the Result's component part,
// and in Decode's event, which DecodeState decodes. Before, it was
// dropped. An end without one (capture 87's bytes) has none anywhere.
func TestComponentEndFinalState(t *testing.T) {
	t.Parallel()
	type cardState struct {
		Expanded bool     `json:"expanded"`
		Rows     []string `json:"rows"`
	}
	card := NewComponent[rowsCard]("Card", "")
	read := func(end string) (ComponentEnd, ComponentEvent[rowsCard], *Result) {
		s := propsStream(endEvents(end))
		var ce ComponentEnd
		var ev ComponentEvent[rowsCard]
		for s.Next() {
			if e, ok := s.Current().(ComponentEnd); ok {
				ce = e
				ev, _ = card.Decode(s, e)
			}
		}
		r, err := s.Collect()
		if err != nil || len(r.Messages) != 1 || len(r.Messages[0].Content) != 1 {
			t.Fatalf("%+v %v", r, err)
		}
		return ce, ev, r
	}

	ce, ev, r := read(`{"componentId":"c1","finalProps":{"title":"Lisbon"},"finalState":{"expanded":true,"rows":["a","b"]}}`)
	want := map[string]any{"expanded": true, "rows": []any{"a", "b"}}
	if !reflect.DeepEqual(ce.FinalState, want) || !reflect.DeepEqual(ev.State, want) || !reflect.DeepEqual(r.Messages[0].Content[0].State, want) {
		t.Fatalf("ComponentEnd %v, Decode %v, Result %v", ce.FinalState, ev.State, r.Messages[0].Content[0].State)
	}
	if !ev.Final || ev.Props.Title != "Lisbon" || ev.Err != nil {
		t.Fatalf("Decode %+v", ev)
	}
	var st cardState
	if ok, err := ev.DecodeState(&st); !ok || err != nil || !st.Expanded || !reflect.DeepEqual(st.Rows, []string{"a", "b"}) {
		t.Fatalf("DecodeState: %v %v %+v", ok, err, st)
	}
	// The Result's state is the stream's copy: changing it changes no
	// other.
	r.Messages[0].Content[0].State["expanded"] = false
	if ce.FinalState["expanded"] != true {
		t.Fatal("the Result shares the event's state")
	}
	var bad struct{ Expanded string }
	if ok, err := ev.DecodeState(&bad); !ok || err == nil || !strings.Contains(err.Error(), `component "Card": state does not fit`) {
		t.Fatalf("a state that does not fit: %v %v", ok, err)
	}

	// Capture 87's end: no finalState.
	ce, ev, r = read(`{"componentId":"c1","finalProps":{"city":"Lisbon","temperature":21,"unit":"celsius"}}`)
	if ce.FinalState != nil || ev.State != nil || r.Messages[0].Content[0].State != nil {
		t.Fatalf("no state sent: %v %v %v", ce.FinalState, ev.State, r.Messages[0].Content[0].State)
	}
	if ok, err := ev.DecodeState(&st); ok || err != nil {
		t.Fatalf("DecodeState without a state: %v %v", ok, err)
	}
	if !ev.Final || ev.Err != nil {
		t.Fatalf("Decode %+v", ev)
	}

	// A state deeper than props may be is not kept, and the result says
	// the stream kept less.
	deep := strings.Repeat(`{"a":`, maxPropsDepth+1) + "1" + strings.Repeat("}", maxPropsDepth+1)
	_, _, r = read(`{"componentId":"c1","finalProps":{},"finalState":` + deep + `}`)
	if r.Messages[0].Content[0].State != nil || !r.Incomplete {
		t.Fatalf("a state %d levels deep: kept %v, Incomplete %v", maxPropsDepth+1, r.Messages[0].Content[0].State != nil, r.Incomplete)
	}
}
