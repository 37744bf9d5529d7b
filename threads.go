package threads

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/threadsapi/threads-go/internal/apitypes"
	"github.com/threadsapi/threads-go/internal/route"
)

// The API's types, generated from the SDK's OpenAPI document. Optional
// scalars are plain values (zero when absent); optional nested objects are
// pointers. Enums are open: a value the SDK does not know decodes as is.
type (
	// Thread is a conversation. ContextKey is sent only in list items and
	// in the answer to Cancel.
	Thread = apitypes.Thread
	// ThreadWithMessages is a thread and its messages, oldest first. The
	// service leaves system messages out.
	ThreadWithMessages = apitypes.ThreadWithMessages
	// ThreadPage is one page of List: Total counts every thread that
	// matches the filter, whatever Offset and Limit say.
	ThreadPage = apitypes.ThreadList
	// Message is one entry of a thread; Text returns its text.
	Message = apitypes.Message
	// ContentPart is one part of a message; Type says which payload is set.
	ContentPart = apitypes.ContentPart
	// ContentPartType names a ContentPart's payload.
	ContentPartType = apitypes.ContentPartType
	// ImageURL is the payload of an image_url part.
	ImageURL = apitypes.ImageURL
	// InputAudio is the payload of an input_audio part.
	InputAudio = apitypes.InputAudio
	// Resource is the payload of a resource part.
	Resource = apitypes.Resource
	// ComponentDecision is the UI component the model chose, if any.
	ComponentDecision = apitypes.ComponentDecision
	// ToolCallRequest is a tool the model asks the client to run. Its
	// arguments come as name/value pairs.
	ToolCallRequest = apitypes.ToolCallRequest
	// ToolCallParameter is one argument of a ToolCallRequest.
	ToolCallParameter = apitypes.ToolCallParameter
	// MessageRequest is a message to append; see UserMessage and ToolResult.
	MessageRequest = apitypes.MessageRequest
	// AvailableComponent is a UI component the model may render.
	AvailableComponent = apitypes.AvailableComponent
	// ClientTool is a tool the client runs when the model asks for it.
	ClientTool = apitypes.ClientTool
	// ToolParameter describes one parameter of a ClientTool.
	ToolParameter = apitypes.ToolParameter
	// AdvanceResponse is one snapshot of a reply: Message is the whole
	// message so far (JSON responseMessageDto).
	AdvanceResponse = apitypes.AdvanceResponse
	// GenerationStage says where a thread's generation stands.
	GenerationStage = apitypes.GenerationStage
	// Role says who wrote a message.
	Role = apitypes.Role

	// ListParams filters and pages List and All. Zero values are left out
	// of the query: the service's defaults are offset 0 and limit 10, and
	// no ContextKey means threads that have none.
	ListParams = apitypes.ListThreadsParams
	// CreateThreadParams is the body of Create. The live service requires
	// ProjectID.
	CreateThreadParams = apitypes.CreateThreadRequest
	// AdvanceParams is the body of the advance calls. Message is the
	// message to append (JSON messageToAppend); InitialMessages is for
	// CreateAndAdvanceStream only.
	AdvanceParams = apitypes.AdvanceRequest
)

// Values of Role.
const (
	RoleUser      = apitypes.RoleUser
	RoleAssistant = apitypes.RoleAssistant
	RoleSystem    = apitypes.RoleSystem
	RoleTool      = apitypes.RoleTool
)

// Values of GenerationStage.
const (
	GenerationStageIdle               = apitypes.GenerationStageIdle
	GenerationStageChoosingComponent  = apitypes.GenerationStageChoosingComponent
	GenerationStageFetchingContext    = apitypes.GenerationStageFetchingContext
	GenerationStageHydratingComponent = apitypes.GenerationStageHydratingComponent
	GenerationStageStreamingResponse  = apitypes.GenerationStageStreamingResponse
	GenerationStageComplete           = apitypes.GenerationStageComplete
	GenerationStageError              = apitypes.GenerationStageError
	GenerationStageCancelled          = apitypes.GenerationStageCancelled
)

// Values of ContentPartType.
const (
	ContentPartTypeText       = apitypes.ContentPartTypeText
	ContentPartTypeImageURL   = apitypes.ContentPartTypeImageURL
	ContentPartTypeInputAudio = apitypes.ContentPartTypeInputAudio
	ContentPartTypeResource   = apitypes.ContentPartTypeResource
)

// UserMessage returns a user message holding text.
func UserMessage(text string) MessageRequest {
	return MessageRequest{Role: RoleUser, Content: []ContentPart{{Type: ContentPartTypeText, Text: text}}}
}

// ToolResult returns the answer to a client tool call: a tool message that
// carries the call's id (the message's ToolCallID) and the result as text.
func ToolResult(toolCallID, text string) MessageRequest {
	return MessageRequest{Role: RoleTool, ToolCallID: toolCallID, Content: []ContentPart{{Type: ContentPartTypeText, Text: text}}}
}

// Route templates, one per operation.
const (
	routeThreads          = "/threads"
	routeThread           = "/threads/{id}"
	routeCancel           = "/threads/{id}/cancel"
	routeAdvance          = "/threads/{id}/advance"
	routeAdvanceStream    = "/threads/{id}/advancestream"
	routeCreateAdvance    = "/threads/advance"
	routeCreateAdvanceStr = "/threads/advancestream"
)

// ThreadsService holds the thread operations; use it as Client.Threads.
//
// Every method takes options that apply to that call only, returns a
// *Problem for any non-2xx answer, and follows the service's 410
// migration advice unless WithoutAutoMigrate is given. Retries follow the
// policy in the package documentation: GET calls retry transient failures;
// POST calls retry only what provably did not reach the service.
type ThreadsService struct {
	client *Client
}

// List returns one page of the project's threads, newest first. params may
// be nil. A server that answers with a bare JSON array instead of the
// {items,total,offset,limit,count} envelope yields a page whose Total is
// the threads it holds.
func (s *ThreadsService) List(ctx context.Context, params *ListParams, opts ...RequestOption) (*ThreadPage, error) {
	var p ListParams
	if params != nil {
		p = *params
	}
	if p.Offset < 0 || p.Limit < 0 {
		return nil, fmt.Errorf("threads: List: Offset (%d) and Limit (%d) must not be negative", p.Offset, p.Limit)
	}
	q := url.Values{}
	if p.Offset > 0 {
		q.Set("offset", strconv.Itoa(p.Offset))
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.ContextKey != "" {
		q.Set("contextKey", p.ContextKey)
	}
	var body listBody
	if err := s.c().doJSON(ctx, opts, call{route: route.Route{Method: http.MethodGet, Template: routeThreads}, query: q}, &body); err != nil {
		return nil, err
	}
	return body.toPage(p.Offset), nil
}

// listBody reads the list envelope, or a bare array of threads.
type listBody struct {
	page ThreadPage
	bare bool // the body was a bare array: Total, Offset and Count are unknown
}

// toPage returns the page; offset is the one asked for, which a bare array
// does not repeat.
func (b *listBody) toPage(offset int) *ThreadPage {
	page := b.page
	if b.bare {
		page.Offset, page.Count, page.Total = offset, len(page.Items), offset+len(page.Items)
	}
	if page.Items == nil {
		page.Items = []Thread{}
	}
	return &page
}

func (b *listBody) UnmarshalJSON(data []byte) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		b.bare = true
		return json.Unmarshal(trimmed, &b.page.Items)
	}
	return json.Unmarshal(trimmed, &b.page)
}

// All iterates over every thread from params.Offset on, requesting pages of
// params.Limit (the service's default when 0) until a page is empty or the
// envelope's total is reached. Breaking out of the loop stops paging. An
// error is yielded once, as the last element. params may be nil.
//
// Threads created while paging can shift the offsets (the service orders by
// creation time only), so a thread may be seen twice or not at all.
func (s *ThreadsService) All(ctx context.Context, params *ListParams, opts ...RequestOption) iter.Seq2[Thread, error] {
	return func(yield func(Thread, error) bool) {
		var p ListParams
		if params != nil {
			p = *params
		}
		for {
			page, err := s.List(ctx, &p, opts...)
			if err != nil {
				yield(Thread{}, err)
				return
			}
			for _, t := range page.Items {
				if !yield(t, nil) {
					return
				}
			}
			p.Offset += len(page.Items)
			if len(page.Items) == 0 || p.Offset >= page.Total {
				return
			}
		}
	}
}

// Create creates a thread and returns it (the service answers 201).
func (s *ThreadsService) Create(ctx context.Context, params CreateThreadParams, opts ...RequestOption) (*Thread, error) {
	var t Thread
	err := s.c().doJSON(ctx, opts, call{route: route.Route{Method: http.MethodPost, Template: routeThreads}, body: params}, &t)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// Get returns the thread with the given id and its messages.
func (s *ThreadsService) Get(ctx context.Context, id string, opts ...RequestOption) (*ThreadWithMessages, error) {
	r, err := threadRoute(http.MethodGet, routeThread, "Get", id)
	if err != nil {
		return nil, err
	}
	var t ThreadWithMessages
	if err := s.c().doJSON(ctx, opts, call{route: r}, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// Cancel stops the thread's running generation and returns the thread,
// now CANCELLED. Closing a stream does not stop the service's generation;
// Cancel does.
func (s *ThreadsService) Cancel(ctx context.Context, id string, opts ...RequestOption) (*Thread, error) {
	r, err := threadRoute(http.MethodPost, routeCancel, "Cancel", id)
	if err != nil {
		return nil, err
	}
	var t Thread
	if err := s.c().doJSON(ctx, opts, call{route: r}, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// AdvanceStream appends params.Message to the thread and streams the reply.
//
// It returns once the response headers say 2xx and text/event-stream; any
// other answer is a *Problem, before any event. The caller must Close the
// stream (ranging over All to its end, or breaking out, closes it). The
// request is never re-sent once it may have reached the service: a failure
// after that is reported, not retried. A 2xx stream can still fail: see
// Stream.Err.
func (s *ThreadsService) AdvanceStream(ctx context.Context, id string, params AdvanceParams, opts ...RequestOption) (*Stream, error) {
	r, err := threadRoute(http.MethodPost, routeAdvanceStream, "AdvanceStream", id)
	if err != nil {
		return nil, err
	}
	if len(params.InitialMessages) > 0 {
		return nil, errors.New("threads: AdvanceStream: InitialMessages is for CreateAndAdvanceStream only")
	}
	return s.stream(ctx, r, "AdvanceStream", params, opts)
}

// CreateAndAdvanceStream creates a thread, appends params.Message (after
// params.InitialMessages, if any) and streams the reply. The new thread's
// id is each snapshot's Message.ThreadID. It behaves as AdvanceStream.
func (s *ThreadsService) CreateAndAdvanceStream(ctx context.Context, params AdvanceParams, opts ...RequestOption) (*Stream, error) {
	return s.stream(ctx, route.Route{Method: http.MethodPost, Template: routeCreateAdvanceStr}, "CreateAndAdvanceStream", params, opts)
}

func (s *ThreadsService) stream(ctx context.Context, r route.Route, op string, params AdvanceParams, opts []RequestOption) (*Stream, error) {
	if err := checkAdvance(op, &params); err != nil {
		return nil, err
	}
	return s.c().doStream(ctx, opts, call{route: r, body: params, stream: true})
}

// Advance appends params.Message and returns the final snapshot of the
// reply.
//
// Deprecated: use AdvanceStream. The service answers this endpoint with
// 410 ENDPOINT_DEPRECATED; Advance follows its advice to advancestream,
// reads that stream to its end and returns the last snapshot, or the
// stream's error.
func (s *ThreadsService) Advance(ctx context.Context, id string, params AdvanceParams, opts ...RequestOption) (*AdvanceResponse, error) {
	r, err := threadRoute(http.MethodPost, routeAdvance, "Advance", id)
	if err != nil {
		return nil, err
	}
	if err := checkAdvance("Advance", &params); err != nil {
		return nil, err
	}
	var out AdvanceResponse
	if err := s.c().doJSON(ctx, opts, call{route: r, body: params}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateAndAdvance creates a thread, appends params.Message and returns the
// final snapshot of the reply.
//
// Deprecated: use CreateAndAdvanceStream. POST /threads/advance answers 410
// and is migrated to POST /threads/advancestream the same way as Advance.
func (s *ThreadsService) CreateAndAdvance(ctx context.Context, params AdvanceParams, opts ...RequestOption) (*AdvanceResponse, error) {
	if err := checkAdvance("CreateAndAdvance", &params); err != nil {
		return nil, err
	}
	var out AdvanceResponse
	r := route.Route{Method: http.MethodPost, Template: routeCreateAdvance}
	if err := s.c().doJSON(ctx, opts, call{route: r, body: params}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func threadRoute(method, tmpl, op, id string) (route.Route, error) {
	if err := checkID(id); err != nil {
		return route.Route{}, fmt.Errorf("threads: %s: %w", op, err)
	}
	return route.Route{Method: method, Template: tmpl, Values: map[string]string{"id": id}}, nil
}

// checkAdvance catches, before sending, what the service would only report
// as an opaque in-band stream error.
func checkAdvance(op string, p *AdvanceParams) error {
	msgs := append([]MessageRequest{p.Message}, p.InitialMessages...)
	for i, m := range msgs {
		name := "Message"
		if i > 0 {
			name = fmt.Sprintf("InitialMessages[%d]", i-1)
		}
		if err := checkMessage(m); err != nil {
			return fmt.Errorf("threads: %s: %s: %w", op, name, err)
		}
	}
	if p.Message.Content == nil {
		// content is required; an empty list means "continue from the latest message".
		p.Message.Content = []ContentPart{}
	}
	return nil
}

func checkMessage(m MessageRequest) error {
	switch m.Role {
	case "":
		return errors.New("the Role is empty (use UserMessage or ToolResult)")
	case RoleTool:
		if m.ToolCallID == "" {
			return errors.New("a tool message needs ToolCallID (the tool_call_id it answers)")
		}
	}
	for i, part := range m.Content {
		switch part.Type {
		case "":
			return fmt.Errorf("content part %d: Type is empty", i)
		case ContentPartTypeImageURL:
			if part.ImageURL == nil || part.ImageURL.URL == "" {
				return fmt.Errorf("content part %d: an image_url part needs ImageURL.URL", i)
			}
		case ContentPartTypeInputAudio:
			if part.InputAudio == nil || part.InputAudio.Data == "" {
				return fmt.Errorf("content part %d: an input_audio part needs InputAudio.Data", i)
			}
		case ContentPartTypeResource:
			if part.Resource == nil {
				return fmt.Errorf("content part %d: a resource part needs Resource", i)
			}
		}
	}
	return nil
}
