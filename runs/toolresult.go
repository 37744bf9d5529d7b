package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	threads "github.com/threadsapi/threads-go"
)

// Events that the tool runner adds to the run's own: a [ToolStream]
// delivers one [ToolRunStart] before a call runs and one [ToolRunResult]
// with what was sent back. The service sends neither.
const (
	EventToolRunStart  = "CLIENT_TOOL_RUN_START"
	EventToolRunResult = "CLIENT_TOOL_RUN_RESULT"
)

// ToolRunStart says that this process is about to run a pending call (a
// UI can show StatusMessage, or "calling get_weather…"). The calls of one
// pause all get their ToolRunStart before any runs.
type ToolRunStart struct {
	// Round counts the pauses answered, from 1.
	Round int
	// ToolCallID, ToolName and Arguments (the model's JSON text) are the
	// pending call as the service sent it: Arguments holds the service's
	// own status members too (see StatusMessage), which the tool is not
	// given.
	ToolCallID, ToolName, Arguments string
	// StatusMessage and CompletionStatusMessage are the call's status
	// lines, as the model wrote them: what the official UI shows while the
	// tool runs and once it is done. The service adds two required
	// arguments to every tool's schema for them, _tambo_statusMessage and
	// _tambo_completionStatusMessage, and forwards them with the call's
	// arguments; the runner takes them out before the tool's arguments are
	// checked and decoded, and gives them here and in the tool's
	// [threads.ToolCall]. Empty when the model sent none.
	StatusMessage, CompletionStatusMessage string
}

// ToolRunResult is the result of one call, as it is sent in the next
// run's tool_result: the spec's routes' [threads.ToolRunResult] (the same
// fields: Round, ToolCallID, ToolName, Text, IsError, Err,
// CompletionStatusMessage), and the content parts sent ([ToolRunResult.Content]).
// On /v1, Text is the tool_result's text: the tool's result, or for a
// failure a short message without the "Error: " the spec's tool message
// adds (see [Client.RunTools]); for a tool that returned content parts,
// their text by [threads.ToolResultText]. CompletionStatusMessage is as
// the call's [ToolRunStart] has it.
type ToolRunResult struct {
	threads.ToolRunResult

	content *[]Content // the parts sent (Content); a pointer keeps the struct comparable
}

// Content returns the tool_result's content as it was sent when the tool
// returned content parts ([threads.Tool].CallParts): its text and resource
// parts, as they were. It is nil when the result is Text alone (a text
// result, or a failure).
func (r ToolRunResult) Content() []Content {
	if r.content == nil {
		return nil
	}
	return slices.Clone(*r.content)
}

// EventType returns [EventToolRunStart]: an event of this process, not of
// the service.
func (ToolRunStart) EventType() string { return EventToolRunStart }

// EventType returns [EventToolRunResult]: an event of this process, not of
// the service.
func (ToolRunResult) EventType() string { return EventToolRunResult }

func (ToolRunStart) isEvent()  {}
func (ToolRunResult) isEvent() {}

func formatError(f fmt.State, verb rune, text string) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", text)
		return
	}
	fmt.Fprint(f, text)
}

// ErrToolRepeated matches a [*ToolRepeatError].
var ErrToolRepeated = errors.New("runs: the model repeats a tool call")

// ToolRepeatError ends a [ToolStream] whose model made the same call in
// [ToolRunner.MaxRepeats] pauses in a row. The last pause is not answered
// (as for [threads.ToolRoundsError]).
type ToolRepeatError struct {
	Times           int
	ThreadID, RunID string
	// ToolName is the repeated tool, Arguments its arguments (JSON text),
	// as the service sent them.
	ToolName, Arguments string
	Pending             []PendingToolCall
	name                string // cleaned, for Error
	run                 string // RunID cleaned, for Error
}

// Error names the tool (one line, cut short, the key redacted).
func (e *ToolRepeatError) Error() string {
	return fmt.Sprintf("runs: the model called tool %s with the same arguments %d times in a row (ToolRunner.MaxRepeats); run %s awaits its result",
		e.name, e.Times, e.run)
}

// Format prints [ToolRepeatError.Error] whatever the verb (%q quotes
// it): the fields hold the service's text as it was sent (the pending
// calls' arguments may echo the key), which %#v or %+v would print.
func (e ToolRepeatError) Format(f fmt.State, verb rune) { formatError(f, verb, e.Error()) }

// Is matches [ErrToolRepeated].
func (e *ToolRepeatError) Is(target error) bool { return target == ErrToolRepeated }

// ToolArgumentsError ends a [ToolStream] (from Err and Collect) whose last
// run finished after every call the runner answered had failed the
// tool's argument checks: no tool ran, although the run reads as
// finished (the model was told each problem and gave up). It is what a
// schema the model cannot meet looks like, so it is not left silent. The
// [ToolRunResult] of each call has the problem; Collect's Result holds
// what the runs produced. It matches [threads.ErrToolArguments].
type ToolArgumentsError struct {
	// FailedCalls is how many calls were answered, all with an arguments
	// error (a count: the calls themselves are in the ToolRunResults).
	FailedCalls     int
	ThreadID, RunID string
	// Last is the last call's arguments error as the model read it (one
	// line, cut short, without the API key or the end user's token).
	Last string
	run  string // RunID cleaned, for Error
}

// Error says that no tool ran, and why the last call did not.
func (e *ToolArgumentsError) Error() string {
	return fmt.Sprintf("runs: every tool call (%d) failed its argument checks, so no tool ran; run %s finished without them; the last: %s",
		e.FailedCalls, e.run, e.Last)
}

// Format prints [ToolArgumentsError.Error] whatever the verb (see
// [ToolRepeatError.Format]).
func (e ToolArgumentsError) Format(f fmt.State, verb rune) { formatError(f, verb, e.Error()) }

// Is matches [threads.ErrToolArguments].
func (e *ToolArgumentsError) Is(target error) bool { return target == threads.ErrToolArguments }

// toolRunStart is the ToolRunStart of pending call p in round.
func toolRunStart(round int, p PendingToolCall) ToolRunStart {
	status, completion := p.StatusMessages()
	return ToolRunStart{Round: round, ToolCallID: p.ToolCallID, ToolName: p.ToolName, Arguments: p.Arguments,
		StatusMessage: status, CompletionStatusMessage: completion}
}

// partsContent is a tool's parts as the tool_result's content: text parts
// and resource parts as they are (an empty result is one empty text part,
// as an empty text result is), with their text by
// [threads.ToolResultText], which also refuses a part that no tool result
// carries.
func partsContent(parts []threads.ContentPart) (string, []Content, error) {
	text, err := threads.ToolResultText(parts)
	if err != nil {
		return "", nil, err
	}
	if len(parts) == 0 {
		return "", []Content{Text("")}, nil
	}
	out := make([]Content, 0, len(parts))
	for _, p := range parts {
		if p.Type == threads.ContentPartTypeText {
			out = append(out, Text(p.Text))
			continue
		}
		r := p.Resource // ToolResultText checked it
		out = append(out, ResourceContent(Resource{URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType,
			Text: r.Text, Blob: r.Blob, Annotations: annotations(r.Annotations)}))
	}
	return text, out, nil
}

// annotations reads package threads' resource annotations (a JSON object)
// as /v1 declares them: audience (a list of roles) and priority.
func annotations(m map[string]any) *ResourceAnnotations {
	if len(m) == 0 {
		return nil
	}
	var a ResourceAnnotations
	switch aud := m["audience"].(type) {
	case []string:
		a.Audience = slices.Clone(aud)
	case []any:
		for _, v := range aud {
			if s, ok := v.(string); ok {
				a.Audience = append(a.Audience, s)
			}
		}
	}
	switch pr := m["priority"].(type) {
	case float64:
		a.Priority = pr
	case json.Number:
		a.Priority, _ = pr.Float64()
	case int:
		a.Priority = float64(pr)
	}
	if a.Audience == nil && a.Priority == 0 {
		return nil
	}
	return &a
}
