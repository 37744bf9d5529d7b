package runs

import (
	"errors"
	"fmt"
	"strings"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/toolcore"
)

// ToolRunner is the set of client tools that this process runs for a run
// ([Client.RunTools], [Client.CreateAndRunTools]), and the bounds of the
// loop that answers them.
//
// A tool is a [threads.Tool], the same value the spec's routes take
// ([threads.ThreadsService.RunStream]): make it with [threads.NewTool] or
// [threads.NewJSONTool], so that one definition serves both API
// generations. On /v1 its Parameters are sent as one JSON Schema object
// (the tool's inputSchema: see [DefineTool]); its MaxCalls as maxCalls.
type ToolRunner struct {
	// Tools are the tools this process runs. Names must be unique, also
	// among RunParams.ToolDefinitions (the tools the caller answers
	// itself).
	Tools []threads.Tool
	// MaxRounds bounds how many pauses the runner answers (each pause has
	// one or more calls); 0 means 10. One more pause ends the stream with
	// a [*threads.ToolRoundsError] (errors.Is [threads.ErrToolRounds]).
	MaxRounds int
	// MaxRepeats stops a model that makes the same call (the same tool
	// with the same arguments, as JSON values) in MaxRepeats pauses in a
	// row: that last pause is not answered and the stream ends with a
	// [*ToolRepeatError] (errors.Is [ErrToolRepeated]). 0 means 3; a
	// negative value turns the check off; 1 is refused (every call would
	// stop the run).
	MaxRepeats int
	// Concurrency bounds how many calls of one pause run at once; 0 means 4.
	Concurrency int
	// Guards are what the runner checks around each call: a person's
	// approval for a tool that needs it, deadlines, and once per call
	// (keyed by thread, run and tool call id): see [threads.ToolGuards].
	// The approver's request carries the thread and the run that paused.
	Guards threads.ToolGuards
}

// The ToolRunner defaults (documented on its fields).
const (
	defaultToolRounds      = 10
	defaultToolRepeats     = 3
	defaultToolConcurrency = 4
)

// DefineTool returns t as /v1 declares a client tool: its name,
// description, maxCalls, and an inputSchema that is one JSON Schema
// object. A tool with an InputSchema ([threads.Tool].InputSchema, such as
// an MCP tool's) is sent with it as it is. Otherwise the schema is made of
// its Parameters: "properties" holds each parameter's schema (package
// threads' [threads.ToolParameter] schema, which carries its type,
// description and enum values, so that a [threads.NewTool] struct's
// `description` and `enum` tags reach the model), "required" the required
// parameters' names. It fails for a [threads.NewTool] that could not be
// made ([threads.Tool.Err]), a tool without a name, and a tool that sets both
// Parameters and InputSchema or whose InputSchema is not a JSON object.
func DefineTool(t threads.Tool) (ToolDefinition, error) {
	if strings.TrimSpace(t.Name) == "" {
		return ToolDefinition{}, errors.New("runs: a tool has no Name")
	}
	if err := t.Err(); err != nil {
		return ToolDefinition{}, fmt.Errorf("runs: tool %q: %w", t.Name, err)
	}
	if t.InputSchema != nil {
		if len(t.Parameters) > 0 {
			return ToolDefinition{}, fmt.Errorf("runs: tool %q sets both Parameters and InputSchema; set one", t.Name)
		}
		if _, err := toolcore.InputSchemaJSON(t.InputSchema); err != nil {
			return ToolDefinition{}, fmt.Errorf("runs: tool %q: %w", t.Name, err)
		}
		return ToolDefinition{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, MaxCalls: t.MaxCalls}, nil
	}
	schema, err := objectSchema(t.Parameters)
	if err != nil {
		return ToolDefinition{}, fmt.Errorf("runs: tool %q: %w", t.Name, err)
	}
	return ToolDefinition{Name: t.Name, Description: t.Description, InputSchema: schema, MaxCalls: t.MaxCalls}, nil
}

// objectSchema makes one JSON Schema object of params, each parameter's
// schema as package threads sends it (the tool core's rule, one for both
// API generations).
func objectSchema(params []threads.ToolParameter) (map[string]any, error) {
	core := make([]toolcore.Param, len(params))
	for i, p := range params {
		core[i] = toolcore.Param{Name: p.Name, Type: p.Type, Description: p.Description, Required: p.IsRequired, Enum: p.EnumValues, Schema: p.Schema}
		if p.Items != nil {
			core[i].Items = p.Items.Type
		}
	}
	return toolcore.ObjectSchema(core)
}
