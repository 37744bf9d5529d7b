// Package runs is the client of the service's /v1 API, the one the official
// clients use: threads that belong to one end user each, runs (a message
// and the reply, streamed as typed AG-UI events), client tools and UI
// components, messages, component state, suggestions, and the end-user
// token exchange.
//
// Make a Client from your *threads.Client, pick the end user, and run:
//
//	client, err := threads.NewClient() // $THREADS_BASE_URL, $THREADS_API_KEY
//	if err != nil {
//		return err
//	}
//	alice := runs.New(client).ForUser("alice")
//	s, err := alice.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
//		Content: []runs.Content{runs.Text("Hello")},
//	}})
//	if err != nil {
//		return err // a *threads.Problem: runs.ErrRunActive, threads.ErrForbidden...
//	}
//	for ev, err := range s.All() { // breaking out closes the stream and cancels the run
//		if err != nil {
//			return err // a *RunFailedError, threads.ErrStreamTruncated...
//		}
//		if t, ok := ev.(runs.TextMessageContent); ok {
//			fmt.Print(t.Delta)
//		}
//	}
//	// The next run on the thread names this one: runs.RunParams{PreviousRunID: s.RunID(), ...}
//	// with alice.Run(ctx, s.ThreadID(), ...).
//
// # Runs
//
// [Client.Run] and [Client.CreateAndRun] return a [*Stream] of [Event]s
// (switch on the dynamic type: [TextMessageContent], [AwaitingInput],
// [ComponentStart]...), or call [Stream.Collect] for a [*Result]. A run ends
// with an [Outcome]: finished, awaiting tool results, cancelled (not an
// error) or failed (a [*RunFailedError]). The caller closes the Stream;
// closing it before the run's end cancels the run, and [Stream.Cancel]
// cancels it and reads on to the end. A run POST is never re-sent once the
// service may have acted on it. A [Client.Cancel] that meets the run's
// completion is sometimes answered 500 (the service's database
// deadlocked): the run may be cancelled or not, and its stream may end
// RUN_FINISHED or RUN_ERROR INTERNAL_ERROR while the thread says
// lastRunCancelled.
//
// # AG-UI
//
// A run's events are AG-UI's (https://docs.ag-ui.com). The service speaks
// AG-UI before 1.0: it sends the reasoning as THINKING_TEXT_MESSAGE_*,
// which decode to the same types as AG-UI 1.0's REASONING_* names. Every
// one of AG-UI 1.0's 31 event types has its Go type, with every member
// AG-UI gives it: metadata and rawEvent on each, subagentRunId on those a
// subagent's work can send, usage on RUN_FINISHED and RUN_ERROR (summed
// per model in [Result].Usage), the success, interrupt and cancelled
// outcomes ([RunEnding]). Members that are any JSON value (a state, a
// provider's event, a custom value, a snapshot's messages) are kept as
// JSON. Chunk events are assembled into the Result as AG-UI's client does
// ([TextMessageChunk]). A continuation answers a run's interrupts with
// [RunParams].Resume; the service ignores it today.
//
// The decoder follows AG-UI's processing model: what it does not know is
// delivered, never dropped, and [Stream.EventJSON] keeps every byte. It
// refuses (the stream fails with threads.ErrStreamFailed, and EventJSON
// still returns the event) only an event that is not a JSON object, or a
// member of a known event whose JSON kind is not AG-UI's: a text delta
// that is not a string, a STATE_DELTA whose delta is not an array, an
// ACTIVITY_SNAPSHOT whose content is not an object, a service CUSTOM
// event whose value does not decode. It tolerates, typing what it can:
// an unknown type ([UnknownEvent]) or member (left to EventJSON); a
// missing member (zero); a null where AG-UI wants a value (zero); an enum
// value AG-UI does not list (a role, a subtype, a status: as sent); a
// timestamp with a fraction or past 2^53 (the zero time when out of
// range); a JSON Patch whose operations break RFC 6902 (as sent: applying
// them is the reader's business); a message of MESSAGES_SNAPSHOT of any
// shape (kept as JSON); and, on a run's terminal events, an outcome or
// usage that does not decode (left out: the run did end). A subagent
// event whose members are of the wrong kinds is an UnknownEvent. AG-UI's
// draft conformance fixtures (testdata/agui) show each case.
//
// # Tools and components
//
// A model that calls a client tool pauses the run ([AwaitingInput],
// [OutcomeAwaitingTools]); the next run sends one [ToolResult] per pending
// call. [Client.RunTools] does that loop with Go functions (the same
// [threads.Tool] values as the spec routes' RunStream, made with
// [threads.NewTool]) and streams every run on one [*ToolStream];
// [NewComponent] offers a UI component whose props are a Go struct, and
// [Component.Decode] reads its events into that struct
// (ExampleClient_RunTools_agent has two tools and a component).
//
// The tool runner is written by concern, one file each: the tools and
// their wire definitions (tools.go: [ToolRunner], [DefineTool]), the
// runner loop (toolrun.go: [Client.RunTools], the runs one after another),
// the pause policy's use (toolpause.go: a pause's calls run through the
// policy both API generations share, which decides which pauses are
// answered, how many calls run at once and how a failure is worded, and
// [Client.AnswerTools] in answer.go), the tool stream (toolstream.go:
// [ToolStream]'s reading, Collect and what it keeps) and the results
// (toolresult.go: [ToolRunStart], [ToolRunResult] and the errors that stop
// the loop). Each file's tests sit beside it.
//
// [Client.AnswerTools] runs a pause's calls as RunTools does, by the same
// code: the service's status arguments taken out, at most r.Concurrency
// calls at once, a tool's content parts sent as they are; a tool that
// returns an error or panics (logged with its stack on the client's
// logger, or the one of the call's options), a call of a tool that is not
// among r.Tools and arguments that do not fit the tool are answered with
// isError true and a short text, at most 4 KiB, without the API key or the
// end user's token.
//
// # Tool runs
//
// [Client.RunTools] is [Client.Run] that runs the tools of r: each time the run
// pauses for client tools (OutcomeAwaitingTools), the stream runs the
// pending calls (several at once, at most r.Concurrency), sends one
// tool_result per call in a new run on the thread (PreviousRunID the
// paused run, the same ToolDefinitions with r's tools declared beside
// them, AvailableComponents, Model, MaxTokens, Temperature and
// RunMetadata; ToolChoice, MessageMetadata and
// AdditionalContext with the first run only), and goes on with that run's
// events, until a run ends without a pause. The events of every run, and
// a [ToolRunStart] and [ToolRunResult] per call, arrive on the one
// [ToolStream], in order.
//
// A tool's result is its text (Call), sent as one text part, or its
// content parts (a [threads.Tool] with CallParts, such as
// [threads.NewPartsTool]'s or an MCP tool's): text and resource parts,
// sent as they are in the tool_result's content ([ToolRunResult.Content]) (an image is a resource
// part with a base64 blob and its MIME type: the service accepts no other
// part in a tool_result). A tool with an InputSchema is declared with it
// as it is ([DefineTool]).
//
// r.Tools are declared beside params.ToolDefinitions. A pause that
// includes a call of a params.ToolDefinitions tool (one the caller answers
// itself) is not answered: the stream ends cleanly there, with
// [OutcomeAwaitingTools] and the calls in Result.PendingToolCalls, for the
// caller to answer all of them in one run (the service refuses a
// continuation that answers only some).
//
// What the model reads when a call goes wrong, instead of a crash or a
// stream error: a tool that returns an error or panics, a call of a tool
// that is not among the tools, arguments that are not a JSON object or,
// for a [threads.NewTool] tool, do not fit its Args: each is answered
// with isError true and a short text (the error, at most 4 KiB, without
// the API key; a tool name or argument from the server quoted at most 64
// runes long). A call id longer than 1 KiB (it must be echoed whole) is
// not answered: the stream ends with an error matching
// [threads.ErrStreamFailed].
//
// Several calls in one pause: every call gets its result, in the order of
// the pause, all in one message (the service refuses a continuation that
// lacks one). The service, as observed, keeps only the last of a turn's
// calls: it stores only that call's tool_use and hands the model only its
// result (v1-api.md, captures 129-135, captures-turn5 07-09), so the model
// does not see the other results. A model that calls two tools at once
// should get their answers from one tool, or one call at a time; the fake
// copies the habit with threadstest.WithLastToolCallOnly.
//
// The service's own arguments: on /v1 the service adds two required string
// arguments, _tambo_statusMessage and _tambo_completionStatusMessage, to
// every tool's schema, and forwards the model's values with the call's
// arguments. They are the call's status lines, not the tool's arguments:
// the runner takes them out before the tool sees the call (a
// [threads.NewTool] tool never checks or decodes them), and gives them in
// [ToolRunStart], [ToolRunResult] and [threads.ToolCall] (StatusMessage,
// CompletionStatusMessage). For the calls the caller answers itself,
// [PendingToolCall.StatusMessages] reads them.
//
// A stream whose every answered call failed the tools' argument checks
// (none ran) and whose last run finished does not end in silence: Err and
// Collect return a [*ToolArgumentsError] (errors.Is
// [threads.ErrToolArguments]), with the Result of the runs.
//
// Bounds: r.MaxRounds answered pauses (then a [*threads.ToolRoundsError]) and the
// same call in r.MaxRepeats pauses in a row (then a [*ToolRepeatError]);
// either leaves the last pause unanswered. The tools are checked before
// anything is sent.
//
// Tools run inside ToolStream.Next, with a context that Close cancels;
// Next returns after all the calls of a pause have returned, so no tool
// runs once Close has returned and Next is not running, and no call
// starts once Close has returned (the calls of the pause that had not
// started are not run). A tool's panic is logged with its stack on the
// client's [threads.WithLogger], as on the spec's routes. Closing the
// stream while a run streams cancels that run (as [Stream.Close]); while
// the tools run, the thread keeps waiting for their results.
//
// # End users
//
// Every /v1 call acts for exactly one end user: a user key of your choice
// ([Client.ForUser]; the SDK puts it in the query or the body, wherever the
// route reads it), an end-user token ([Client.ForToken]) that
// [Client.ExchangeToken] gets for your identity provider's token, or a
// [TokenSource] that renews such tokens ([Client.ForTokenSource]). Each
// returns a copy of the Client, so a per-call identity is
// base.ForUser(key).GetThread(...). A Client with none refuses every
// call but ExchangeToken before sending ([ErrIdentity]). The API key always
// travels in x-api-key.
//
// A [TokenSource] is asked on a goroutine of its own, so that one that
// ignores its context cannot hold a call: a call whose source has not
// answered when the call's context ends, or when WithRequestTimeout
// passes, fails with that context's error, and the source's goroutine is
// left to end by itself. That goroutine is one of the three bounded ones
// the SDK may leave after a call (with a tool past its deadline,
// threads.ToolGuards, and package proxy's detached run): at most one at a
// time per ForTokenSource (the returned Client and
// its copies ask one at a time; while an abandoned ask runs, the next call
// waits for it within its own deadline).
//
// # In a backend
//
// A backend that keeps no run ids between requests sets
// [RunParams].AfterLastRun: Run reads the thread's LastCompletedRunID and
// names it as the previous run. Package
// [github.com/threadsapi/threads-go/proxy] relays a run to a browser
// ([github.com/threadsapi/threads-go/proxy.Relay]) and serves the /v1
// routes to the official web clients.
//
// Start a backend's run with the request's context: when the caller
// leaves, the context ends, the stream closes and the service cancels the
// run. That is the caller's choice, not a failure. Reading the stream
// yourself, it shows as an error that matches context.Canceled
// (errors.Is(err, context.Canceled)) and [OutcomeCancelled]; proxy.Relay
// reports it as proxy.RelayResult.Left with a nil error.
//
// # Options, retries, errors
//
// Client-wide settings are the *threads.Client's; per-call options are
// [threads.RequestOption]s. A GET is retried on connection errors, 408, 429
// and 5xx; a POST, PATCH or DELETE only when it provably did not act. Every
// non-2xx answer is a [*threads.Problem] (read it with errors.As); match
// threads' sentinels (threads.ErrForbidden: an unknown, deleted or foreign
// thread) and this package's ([ErrRunActive], [ErrInvalidCursor]...) with
// errors.Is. Logging is the client's too: [threads.WithLogger], on the
// *threads.Client or on one call (a tool's recovered panic is logged
// there); this package has no logger option of its own.
//
// # Paging
//
// Each List method returns one page; each All method is an iterator over
// every item. The service's cursors lose microseconds, so a page may repeat
// the previous one's last item, and suggestion paging can return its cursor
// forever: the iterators yield each id once, stop when a cursor comes back,
// and give up after [MaxPages] pages. A page holds its items in Items
// ([ThreadPage], [MessagePage], [SuggestionPage]), as [threads.ThreadPage]
// does.
//
// # Calling a route the package does not model
//
// [Client.Do] checks its path as every route's ids are, before anything is
// sent (see threads.Client.Do); a path outside /v1/ is refused. The end
// user goes where the route reads it: an end-user token in Authorization; a
// user key where this package's route of that path sends it, and for any
// other route where the service's routes of its method read it: a POST or
// PUT in the body's userKey member (the body must then be a JSON object, or
// nil), any other method in the userKey query parameter. A query that names
// the end user or its context in any spelling a server may read as such
// (userKey, userKey[…], userKey.…, contextKey, in any case, percent-encoded
// or not) is refused, and so is a body with a contextKey (at its top or in
// its thread): either would name a second end user. A userKey in the body
// is replaced by the Client's. Retries follow the method, as for every
// call.
//
// # Streams
//
// A [Stream] is bounded in memory whatever the server sends: an event is at
// most the client's WithMaxEventSize, and what the stream keeps for Collect
// is at most 1,024 messages, tool calls and components each and about 64
// MiB of text, arguments and props (past either, Result.Incomplete is set
// and the rest is delivered as events only). CPU is linear in the bytes
// received, however they are split. A Stream dropped without Close is
// closed once the garbage collector finds it unreachable.
//
// [Stream.EventJSON] is not a copy: its bytes are only valid until the next
// call of Next, and must not be modified; copy them to keep them. It
// returns nil before the first event and after the end, except after an
// event the stream refused (Next returned false and Err matches
// threads.ErrStreamFailed: a known event whose members are not of the kinds
// AG-UI gives them), whose JSON it then returns, for a log; and it returns
// nil for data that is not JSON, and in the rare case where the redaction
// would leave the event not valid JSON (a secret that spells JSON
// punctuation or a number): the event is then not to be passed on.
//
// Following a component's props with [Component.Decode] on every delta
// costs what the deltas changed, not the props' size each time: the stream
// remembers the props Decode made last, and a delta re-decodes only the
// props (the top-level members) its operations named. This holds for a
// Props that is a struct (or a pointer to one) without embedded fields and
// without an UnmarshalJSON or UnmarshalText of its own; any other Props is
// decoded whole on each call. Either way, the work is bounded by what the
// server sent: a server whose deltas would make Decode re-read far more than
// they weigh (moving a large prop back and forth, or changing one deep
// inside a large prop, again and again) finds Decode behind, with Err set
// and Props as last decoded, until its later deltas pay for the rest. The
// [ComponentEnd] is always decoded whole from its final props.
//
// # Names shared with package threads
//
// A name that both packages have means the same idea on the other API
// generation, and its documentation names the counterpart: [Client],
// [Stream], [Thread], [ThreadWithMessages], [ThreadPage], [Message],
// [Resource], [Role], [CreateThreadParams], [UpdateThreadParams],
// [GenerateSuggestionsParams], [Suggestion], [AvailableComponent],
// and the builders [ResourceContent] and [ToolResult]
// (callID, text: a failed call sets the part's IsError). A runnable tool
// is a [threads.Tool] in both generations, and a tool's Call receives a
// [threads.ToolCall]; what /v1 sends is a tool's wire definition,
// [ToolDefinition] ([DefineTool], [RunParams].ToolDefinitions); a tool
// run past its bound ends with [threads.ToolRoundsError] on both; and what a
// run's stream recorded of a call is a [StreamedToolCall].
//
// The types are written by hand from the service's recorded answers, not
// generated from its OpenAPI document, which is wrong about several
// statuses and fields. Unknown enum values (roles, content types, run
// states) decode as they are.
package runs
