package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/jsonscan"
	"github.com/threadsapi/threads-go/internal/jsonx"
)

// aguiFixture is one document of AG-UI's conformance fixtures
// (testdata/agui: the draft schema's, with its licence and commit).
type aguiFixture struct {
	def   string // the schema definition: "TextMessageStartEvent", "Interrupt"...
	valid bool
	name  string // "minimal.json"
	data  []byte
}

func (f aguiFixture) String() string {
	v := "invalid"
	if f.valid {
		v = "valid"
	}
	return f.def + "/" + v + "/" + f.name
}

func loadAGUIFixtures(t testing.TB) []aguiFixture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "agui", "fixtures", "*", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no AG-UI fixtures: %v", err)
	}
	var out []aguiFixture
	for _, f := range files {
		if strings.HasSuffix(f, ".expect.json") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(f)
		out = append(out, aguiFixture{def: filepath.Base(filepath.Dir(dir)), valid: filepath.Base(dir) == "valid", name: filepath.Base(f), data: data})
	}
	return out
}

// readOne reads data as the one event of a run's stream: the event the
// stream delivered (nil when it refused it), its EventJSON, and the
// stream's error.
func readOne(t *testing.T, data []byte) (Event, []byte, error) {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatalf("fixture is not JSON: %v", err)
	}
	body := "data: " + compact.String() + "\n\n"
	s := newStream(context.Background(), io.NopCloser(strings.NewReader(body)), limits{maxEventSize: 1 << 20},
		func(s string, _ ...string) string { return s }, "", "")
	defer s.Close()
	var ev Event
	if s.Next() {
		ev = s.Current()
	}
	raw := bytes.Clone(s.EventJSON())
	for s.Next() {
	}
	return ev, raw, s.Err()
}

// aguiRefused are the invalid event documents the decoder refuses (the
// stream fails with threads.ErrStreamFailed): a member of a known event
// whose JSON kind is not the one AG-UI gives it. Every other invalid
// event document is tolerated: delivered, typed as far as it goes, its
// JSON whole in EventJSON. The package documentation's section "AG-UI"
// says the same; a change here is a change there.
var aguiRefused = []string{
	"ActivitySnapshotEvent/invalid/content-not-an-object.json",
	"StateDeltaEvent/invalid/delta-not-an-array.json",
	"TextMessageContentEvent/invalid/delta-not-a-string.json",
}

// aguiNotApplicable are the fixture definitions that are not events and
// that this package has no type for: it never reads them from a server.
// RunAgentInput is what an AG-UI agent is started with (the service's run
// body is its own); RUN_STARTED's Input keeps one as JSON. Messages and
// tools of AG-UI's shape are MESSAGES_SNAPSHOT's, kept as JSON.
var aguiNotApplicable = []string{"RunAgentInput", "Tool", "ToolMessage", "UserMessage"}

// Every document of AG-UI's draft fixtures, read as a run's event: each
// valid event document decodes to its Go type (none is an UnknownEvent),
// with every member it carries; its EventJSON re-reads to the same JSON
// value; each invalid one is refused or tolerated as aguiRefused says,
// never a panic, its JSON kept. Interrupt and ResumeEntry documents
// decode into their Go types without losing a member.
func TestAGUIFixtures(t *testing.T) {
	t.Parallel()
	fixtures := loadAGUIFixtures(t)
	type count struct{ valid, refused, tolerated int }
	counts := map[string]*count{}
	var sc jsonscan.Scanner
	var refused []string
	var nValid, nInvalid, nEvents, nValidEvents int
	for _, f := range fixtures {
		if f.valid {
			nValid++
		} else {
			nInvalid++
		}
		switch {
		case slices.Contains(aguiNotApplicable, f.def):
			continue
		case f.def == "Interrupt" || f.def == "ResumeEntry":
			checkAGUIValue(t, f)
			continue
		case !strings.HasSuffix(f.def, "Event"):
			t.Errorf("%s: a fixture definition this test does not place", f)
			continue
		}
		nEvents++
		var doc map[string]any
		if err := json.Unmarshal(f.data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		typ, _ := doc["type"].(string)
		c := counts[typ]
		if c == nil {
			c = &count{}
			counts[typ] = c
		}
		ev, raw, err := readOne(t, f.data)
		if raw == nil || !jsonEqual(raw, f.data) {
			t.Errorf("%s: EventJSON %s does not re-read to the document", f, raw)
		}
		if f.valid {
			nValidEvents++
			c.valid++
			if ev == nil {
				t.Errorf("%s: refused: %v", f, err)
				continue
			}
			if _, unknown := ev.(UnknownEvent); unknown {
				t.Errorf("%s: an UnknownEvent", f)
				continue
			}
			if ev.EventType() != typ {
				t.Errorf("%s: EventType() = %q", f, ev.EventType())
			}
			if lost := lostMembers(t, ev, doc); len(lost) > 0 {
				t.Errorf("%s: %T lost %v\nevent %#v", f, ev, lost, ev)
			}
			if got, ok := decodeFast(&sc, string(f.data)); ok {
				want, _ := decodeEvent(f.data)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: decodeFast %#v, decodeEvent %#v", f, got, want)
				}
			}
			continue
		}
		if ev == nil {
			if !errors.Is(err, threads.ErrStreamFailed) {
				t.Errorf("%s: no event and %v", f, err)
			}
			c.refused++
			refused = append(refused, f.String())
			continue
		}
		c.tolerated++
	}
	sort.Strings(refused)
	if !reflect.DeepEqual(refused, aguiRefused) {
		t.Errorf("refused\n%s\nwant (aguiRefused, and the package doc)\n%s", strings.Join(refused, "\n"), strings.Join(aguiRefused, "\n"))
	}
	if nValid != 116 || nInvalid != 63 || nEvents != 141 || nValidEvents != 93 {
		t.Errorf("%d valid, %d invalid documents, %d events (%d valid); the fixtures have 116, 63, 141, 93", nValid, nInvalid, nEvents, nValidEvents)
	}
	if len(counts) != 31 {
		t.Errorf("fixtures of %d event types, want AG-UI's 31", len(counts))
	}
	var lines []string
	for typ, c := range counts {
		lines = append(lines, fmt.Sprintf("%-26s %2d valid typed, %d invalid refused, %d tolerated", typ, c.valid, c.refused, c.tolerated))
	}
	sort.Strings(lines)
	t.Logf("AG-UI draft fixtures, per event type:\n%s", strings.Join(lines, "\n"))
}

// checkAGUIValue decodes an Interrupt or ResumeEntry document into its Go
// type, as RUN_FINISHED's outcome and RunParams.Resume carry them: a valid
// one loses no member; an invalid one decodes (the shapes they break are
// a missing member and an enum value, both tolerated).
func checkAGUIValue(t *testing.T, f aguiFixture) {
	t.Helper()
	var v any = &Interrupt{}
	if f.def == "ResumeEntry" {
		v = &ResumeEntry{}
	}
	if err := jsonx.Unmarshal(f.data, v); err != nil {
		t.Errorf("%s: %v", f, err)
		return
	}
	if !f.valid {
		return
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc, got any
	_ = json.Unmarshal(f.data, &doc)
	_ = json.Unmarshal(out, &got)
	if lost := uncovered("", got, doc); len(lost) > 0 {
		t.Errorf("%s: %T lost %v", f, v, lost)
	}
}

// lostMembers returns the members of doc (an event's JSON) that the typed
// ev does not carry: ev's members, as AG-UI names them (aguiMembers), must
// hold every member of doc with its value.
func lostMembers(t *testing.T, ev Event, doc map[string]any) []string {
	t.Helper()
	view := aguiMembers(ev)
	out, err := json.Marshal(view)
	if err != nil {
		t.Fatalf("%#v: %v", view, err)
	}
	var got any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	return uncovered("", got, any(doc))
}

// uncovered lists where got does not hold want: every member of a want
// object must be in got with a value that holds want's (got may have
// more: the zero members of a Go type); arrays element by element; a
// null in want is held by an absent member.
func uncovered(at string, got, want any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{at}
		}
		var lost []string
		for k, wv := range w {
			gv, present := g[k]
			if !present {
				if wv == nil {
					continue
				}
				lost = append(lost, at+"/"+k)
				continue
			}
			lost = append(lost, uncovered(at+"/"+k, gv, wv)...)
		}
		return lost
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{at}
		}
		var lost []string
		for i := range w {
			lost = append(lost, uncovered(fmt.Sprintf("%s/%d", at, i), g[i], w[i])...)
		}
		return lost
	case nil:
		if got != nil {
			return []string{at}
		}
		return nil
	}
	if !reflect.DeepEqual(got, want) {
		return []string{at}
	}
	return nil
}

// aguiMembers is ev as AG-UI's JSON names its members: the view the
// fixture test compares with the document the event came from.
func aguiMembers(ev Event) map[string]any {
	m := map[string]any{"type": ev.EventType()}
	base := func(ts time.Time, meta map[string]any, raw json.RawMessage) {
		if !ts.IsZero() {
			m["timestamp"] = ts.UnixMilli()
		}
		if meta != nil {
			m["metadata"] = meta
		}
		if raw != nil {
			m["rawEvent"] = raw
		}
	}
	sub := func(id string) {
		if id != "" {
			m["subagentRunId"] = id
		}
	}
	set := func(kv ...any) {
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
	}
	switch e := ev.(type) {
	case RunStarted:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		set("threadId", e.ThreadID, "runId", e.RunID, "parentRunId", e.ParentRunID, "protocolVersion", e.ProtocolVersion)
		if e.Input != nil {
			m["input"] = e.Input
		}
	case RunFinished:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		set("threadId", e.ThreadID, "runId", e.RunID, "usage", e.Usage)
		if end := e.Ending; end != nil {
			if end.Result != nil {
				m["result"] = end.Result
			}
			if end.Outcome != "" {
				o := map[string]any{"type": end.Outcome}
				if end.Interrupts != nil {
					o["interrupts"] = end.Interrupts
				}
				if end.PendingToolCallIDs != nil {
					o["pendingToolCallIds"] = end.PendingToolCallIDs
				}
				m["outcome"] = o
			}
		}
	case RunErrorEvent:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		set("message", e.Message, "code", e.Code, "usage", e.Usage, "category", e.Category, "isRetryable", e.Retryable, "status", e.Status)
	case TextMessageStart:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID, "role", e.Role, "name", e.Name)
	case TextMessageContent:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID, "delta", e.Delta)
	case TextMessageEnd:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID)
	case TextMessageChunk:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID, "role", e.Role, "delta", e.Delta, "name", e.Name)
	case ToolCallStart:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("toolCallId", e.ToolCallID, "toolCallName", e.ToolCallName, "parentMessageId", e.ParentMessageID)
	case ToolCallArgs:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("toolCallId", e.ToolCallID, "delta", e.Delta)
	case ToolCallEnd:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("toolCallId", e.ToolCallID)
	case ToolCallChunk:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("toolCallId", e.ToolCallID, "toolCallName", e.ToolCallName, "parentMessageId", e.ParentMessageID, "delta", e.Delta)
	case ToolCallResult:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID, "toolCallId", e.ToolCallID, "role", e.Role, "content", e.Content)
		if e.ContentParts != nil {
			m["content"] = e.ContentParts
		}
	case StateSnapshot:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		if e.Snapshot != nil {
			m["snapshot"] = e.Snapshot
		}
	case StateDelta:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("delta", e.Delta)
	case MessagesSnapshot:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		set("messages", e.Messages)
	case ActivitySnapshot:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID, "activityType", e.ActivityType, "content", e.Content, "replace", e.Replace)
	case ActivityDelta:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID, "activityType", e.ActivityType, "patch", e.Patch)
	case RawEvent:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("source", e.Source)
		if e.Event != nil {
			m["event"] = e.Event
		}
	case CustomEvent:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("name", e.Name)
		if e.Value != nil {
			m["value"] = e.Value
		}
	case StepStarted:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("stepName", e.StepName)
	case StepFinished:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("stepName", e.StepName)
	case ReasoningStart:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID, "title", e.Title)
	case ReasoningMessageStart:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID, "role", e.Role)
	case ReasoningMessageContent:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID, "delta", e.Delta)
	case ReasoningMessageEnd:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID)
	case ReasoningEnd:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("messageId", e.MessageID)
	case ReasoningEncryptedValue:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		sub(e.SubagentRunID)
		set("subtype", e.Subtype, "entityId", e.EntityID, "encryptedValue", e.EncryptedValue)
	case SubagentEvent:
		base(e.Timestamp, e.Metadata, e.RawEvent)
		set("subagentRunId", e.SubagentRunID, "name", e.Name, "description", e.Description,
			"parentSubagentRunId", e.ParentSubagentRunID, "parentToolCallId", e.ParentToolCallID,
			"parentMessageId", e.ParentMessageID, "message", e.Message, "code", e.Code)
		if e.Result != nil {
			m["result"] = e.Result
		}
		if e.Outcome != nil {
			m["outcome"] = e.Outcome
		}
	}
	return m
}

// AG-UI 1.0's members that the draft fixtures lack, from hand-written
// documents that @ag-ui/core 1.0.0's schemas accept (testdata/agui10's
// README): each decodes to its type without losing a member; the
// cancelled outcome ends the stream as OutcomeCancelled, without error.
func TestAGUI10Documents(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "agui10", "*.json"))
	if err != nil || len(files) < 8 {
		t.Fatalf("%d documents: %v", len(files), err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(file)
		if strings.HasPrefix(name, "resume-") {
			checkAGUIValue(t, aguiFixture{def: "ResumeEntry", valid: true, name: name, data: data})
			continue
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		ev, raw, _ := readOne(t, data)
		if ev == nil || !jsonEqual(raw, data) {
			t.Fatalf("%s: %#v, EventJSON %s", name, ev, raw)
		}
		if lost := lostMembers(t, ev, doc); len(lost) > 0 {
			t.Errorf("%s: %T lost %v", name, ev, lost)
		}
	}
	data, _ := os.ReadFile(filepath.Join("testdata", "agui10", "run-finished-cancelled.json"))
	evs, err, out, _ := fuzzRead(append([]byte("data: "), append(bytes.TrimSpace(data), "\n\n"...)...), 0)
	if err != nil || out != OutcomeCancelled || len(evs) != 1 {
		t.Errorf("a cancelled outcome: %v, %v, %d events", out, err, len(evs))
	}
	if f := evs[0].(RunFinished); f.Ending == nil || f.Ending.Outcome != EndingCancelled {
		t.Errorf("RunFinished %#v", f)
	}
}
