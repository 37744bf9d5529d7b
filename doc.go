// Package threads is the client for the Conversation Threads API. Its
// [Client] serves both of the service's API generations, with one set of
// options, retries, errors and one fake:
//
//   - the /v1 routes, which the service's official clients use today:
//     threads per end user, replies streamed as runs of typed AG-UI events,
//     Go tools and UI components. They are package
//     [github.com/threadsapi/threads-go/runs], made from a Client with
//     runs.New(client). Start there for new code; package
//     [github.com/threadsapi/threads-go/proxy] relays a run from a backend
//     to a browser.
//   - the spec's routes (/threads…: threads per project, replies streamed
//     as snapshots of the whole message), which this package serves: list,
//     create and read threads, send a message and stream the reply, run
//     client-side tools ([ThreadsService.RunStream], [NewTool]) and manage
//     a thread's messages ([Client].Messages). Pick them when the
//     deployment serves only them, when your threads already live there
//     (the client follows the service's migration advice as it retires
//     endpoints), or when a snapshot of the whole message suits you.
//
// The same Client uploads attachments ([Client].Storage), transcribes audio
// ([Client].Audio), reads the project and its keys ([Client].Projects), MCP
// tokens ([Client].Auth) and the component registry ([Client].Registry), and
// reads the service's errors as typed values.
//
// # Getting started
//
// A Client needs a base URL and an API key, from options or from the
// THREADS_BASE_URL and THREADS_API_KEY environment variables ([NewClient]
// with no options reads them, and THREADS_API_KEY_HEADER). On /v1, pick the
// end user and start a run:
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
//		return err
//	}
//	for ev, err := range s.All() {
//		if err != nil {
//			return err
//		}
//		if t, ok := ev.(runs.TextMessageContent); ok {
//			fmt.Print(t.Delta)
//		}
//	}
//
// On the spec's routes, a thread belongs to the key's project:
//
//	client, err := threads.NewClient(
//		threads.WithBaseURL("https://api.tambo.co"),
//		threads.WithAPIKey(key),
//		threads.WithAPIKeyHeader("x-api-key"), // optional: the live service reads x-api-key; the spec says Bearer
//	)
//	if err != nil {
//		return err
//	}
//	project, err := client.Projects.Current(ctx) // the key's project
//	if err != nil {
//		return err
//	}
//	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: project.ID})
//
// A Client is safe for concurrent use; create one and share it. Every method
// takes a context first and, last, options that apply to that call only
// ([WithMaxRetries], [WithHeader], [WithQuery], ...). An invalid option, an
// empty id or a malformed message makes the call return an error before
// anything is sent; such errors match no sentinel.
//
// # Streaming a reply on the spec's routes
//
// [ThreadsService.AdvanceStream] sends a message and returns a [*Stream] of
// snapshots. Each event carries the whole message so far and, in TextDelta,
// only the text that is new, so printing the deltas prints the reply once
// (when a snapshot rewrites the message instead, TextReset is set and
// TextDelta holds the whole new text):
//
//	stream, err := client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{
//		Message: threads.UserMessage("Hello"),
//	})
//	if err != nil {
//		return err
//	}
//	for ev, err := range stream.All() {
//		if err != nil {
//			return err // *StreamError, ErrStreamTruncated, a context error...
//		}
//		fmt.Print(ev.TextDelta)
//	}
//
// A program that wants the whole reply calls [Stream.Collect] instead. A
// stream ends cleanly only on the service's "data: DONE". The service's
// in-band "error:" line becomes a [*StreamError]; a connection lost before
// DONE is [ErrStreamTruncated]. Ranging over All, Collect, or Close releases
// the connection. Closing a stream does not stop the generation on the
// service unless the call was given [WithCancelOnClose] (a backend whose
// browser left wants that); otherwise call [ThreadsService.Cancel].
//
// # Errors
//
// Every answer that is not 2xx is a [*Problem], whichever of the service's
// shapes it came in (RFC 9457, the framework's {statusCode, message, error},
// or plain text). Branch with errors.Is and the sentinels, read details with
// errors.As:
//
//	_, err := client.Threads.Get(ctx, id)
//	var p *threads.Problem
//	switch {
//	case errors.Is(err, threads.ErrForbidden):
//		// the id is not a thread of the key's project (the live service says 403)
//	case errors.As(err, &p):
//		log.Printf("%s %s: status %d: %s", p.Method, p.Path, p.Status, p.Detail)
//	}
//
// # Retired endpoints
//
// When the service answers 410 ENDPOINT_DEPRECATED with migration advice
// (details.migrateToEndpoint), the client re-sends the call once to the
// replacement on the same host, remembers the move for later calls, and
// reports it once through [WithDeprecationHandler] and a warning log line.
// That is how the deprecated Advance keeps working. [WithoutAutoMigrate]
// turns this off; [Problem.Deprecation] then says where the call should go.
// Listing follows the service the same way: where GET /threads is missing
// (the live service lists per project), [ThreadsService.List] lists the
// key's project instead.
//
// # Retries and timeouts
//
// GET calls retry connection errors and 408, 429, 500, 502, 503 and 504.
// Other calls (POST, PUT, DELETE: Create, AdvanceStream, Cancel, Update,
// Delete, ...) retry only what provably did not act: a connection that
// failed before the request was written, 429 and 503. The header
// x-should-retry overrides both, except on a 2xx or a 410, which are final.
// Waits follow Retry-After-Ms and Retry-After, capped by [WithRetryWait]'s
// maximum, else an exponential backoff with jitter. A stream is never
// retried once its headers have arrived. [WithRequestTimeout] (default 60s)
// bounds each attempt: a JSON call's whole answer, a stream's headers; the
// context bounds the whole call.
//
// # Tools with side effects
//
// A [Tool] may need a person's approval before a call ([Tool].NeedsApproval,
// asked of the [Approver] of [ToolGuards]), have a deadline
// ([Tool].Timeout), and runs once per call even when the service asks for
// it twice (a [ToolCallRecord]); both tool runners take the same
// [ToolGuards] ([WithToolGuards], package runs' ToolRunner.Guards). A tool
// that ignores its context past its deadline is one of the three bounded
// goroutines the SDK may leave running after a call (with package runs'
// token source and package proxy's detached run): at most
// [ToolGuards].MaxAbandoned (default 8) per run, after which the runner
// refuses new calls until one returns.
// docs/tools-with-side-effects.md has the whole story.
//
// # Observing calls
//
// [WithMiddleware] wraps every attempt (retries and migrations included),
// [WithObserver] reports each call, attempt and stream without the key or
// message text (module github.com/threadsapi/threads-go/otel turns that into
// OpenTelemetry spans), and [WithLogger] logs one debug line per attempt.
//
// A logger is given one way per style across the module: a package with
// options takes WithLogger(*slog.Logger) ([WithLogger] here,
// proxy.WithLogger), a package set up by an Options struct has a Logger
// *slog.Logger field (threadsmcp.Options.Logger). Without one, nothing is
// logged.
//
// # Tools from Go functions
//
// [NewTool] names each field of Args as encoding/json names it (the json
// tag; "-" leaves it out; embedded structs are flattened). Go types map to
// the service's type names: string (also time.Time and []byte), integer
// (ints and uints), number (floats), boolean, array (slices and arrays,
// with Items telling the elements' type), object (structs and maps; an
// interface field as well, as any JSON value can come). An `enum:"a,b,c"`
// tag sets EnumValues. A parameter that is an object, or an array of
// objects or arrays, also gets a JSON Schema (Schema) describing its
// inside the same way. Arguments decode through encoding/json, so custom
// UnmarshalJSON methods apply. The service's own status arguments (see
// [ToolCall].StatusMessage) are neither checked nor decoded, even when a
// caller passes them in Arguments.
//
// A [Tool]'s InputSchema is mapped, on the spec's routes, to Parameters,
// one per property in the order the schema encodes them (a map's keys
// encode sorted), each carrying its property's schema as it is (the
// service hands the model that schema) and required when the schema says
// so; a schema that parameters cannot express (anyOf, oneOf, allOf, $ref,
// a type other than object, a schema for additionalProperties...) is
// refused by RunStream before anything is sent, with an error that names
// the keyword. The runners check no arguments against it: Call gets the
// arguments as the model sent them (the service's status arguments aside).
//
// # Tool runs on the spec's routes
//
// [ThreadsService.RunStream] is [ThreadsService.AdvanceStream] that runs the tools. It adds
// tools to params.ClientTools (beside any already there) and streams the
// reply. When a reply ends asking for one of tools (its last snapshot has
// stage FETCHING_CONTEXT, a ToolCallRequest and a ToolCallID), the stream
// calls the tool, sends its result as the tool message (the tool_call_id
// echoed; the same ContextKey, AvailableComponents and ClientTools; the
// ToolCallCounts with that tool's count raised) and goes on with the
// reply to it: the events of every round arrive on the one Stream until a
// reply completes. Messages, Collect and the text deltas work across
// rounds; each round's messages have their own ids. ForceToolChoice is
// sent with the first request only, so that a forced tool is not forced
// again with every result.
//
// A tool that returns content parts ([Tool].CallParts) is answered with
// their text by [ToolResultText]: the tool message carries text only. A
// tool with an InputSchema is declared with the parameters it maps to
// (see [Tool].InputSchema).
//
// What the model reads when things go wrong, instead of a crash or a
// stream error: a tool that returns an error, or panics, is answered with
// a tool message whose Error field holds the error and whose text is
// "Error: " and the error. So is a call of a tool that is not among tools
// or params.ClientTools, and, for a [NewTool] tool, arguments that do not
// fit its Args. The model can then try again or explain.
//
// Nothing the server sent is multiplied on its way back: a tool message
// quotes a tool, parameter or argument from the call at most 64 runes
// long, once; its error text is cut at 4 KiB (and holds no API key); a
// call of a tool that is not among tools is not counted in
// ToolCallCounts (which is re-sent with every round); and a call whose
// tool_call_id is longer than 1 KiB (which must be echoed whole) is not
// answered: the stream ends with an error matching [ErrStreamFailed]. So
// each round's request is at most a constant larger than the first.
//
// A call of a tool that the caller declared itself, in params.ClientTools
// or as a context tool of params.AvailableComponents, is not answered: the
// stream ends cleanly at that FETCHING_CONTEXT snapshot, so that the caller
// can answer it with AdvanceStream and [ToolResult] (or RunStream again).
//
// The run answers at most 10 tool calls (change it
// with [WithMaxToolRounds]); one more call ends the stream with a
// [*ToolRoundsError]. The tools are checked before anything is sent: an
// empty or repeated name, a nil Call, or a [NewTool] with unusable Args is
// an error here.
//
// A tool runs while Stream.Next waits for it (on a goroutine of its own
// under a deadline: [Tool].Call says what that asks of a tool), with ctx
// (cancelled as well when the stream is closed). [WithStreamIdleTimeout] counts the server's silence
// only: its clock stops while a tool runs and the next request is sent
// (whose wait for headers [WithRequestTimeout] bounds, as for the first
// request), and starts again for the next round's events. If it fired
// before the tool ran, the stream ends with [ErrStreamIdle] and no tool
// runs. Cancelling ctx or closing the stream stops the run:
// no further request is sent. Neither stops a generation that the service
// has already started: call [ThreadsService.Cancel] for that when you stop
// early, otherwise the thread goes on, or waits in FETCHING_CONTEXT for a
// tool result that never comes (a later advance with a user message
// continues it).
//
// # Calling a route the SDK does not model
//
// [Client.Do] checks its path as every route's ids are, before anything is
// sent: no dot segment or encoded separator ("%2F", "%5C") in any spelling,
// no empty or blank segment, no host; an error says which. A path that
// follows one of the SDK's own routes is that route: its 410
// ENDPOINT_DEPRECATED advice is followed and remembered as the typed
// method's is, and the observer names it by its template; any other route
// is named by its path (ids included) and a 410 is returned, not followed.
// The /v1 routes need an end user: call them with the runs package's
// Client.Do, which Client.Do refuses them for.
//
// Its body: nil sends none; a []byte or json.RawMessage is sent as it is,
// byte for byte; an io.Reader is refused (pass its bytes); anything else is
// encoded with encoding/json. [WithJSONSet], [WithJSONDelete] and
// [WithRequestBody] change it as they change any call's. Its out: nil drops
// the answer; a *json.RawMessage takes its bytes; anything else is decoded
// from JSON as the methods decode theirs (within [WithMaxResponseSize]; with
// [WithRawJSON], values that embed a [Raw] record their bytes). An empty
// answer (204, or no body) leaves out as it is. An answer that is not JSON
// is an error that wraps [ErrUnexpectedResponse]; event streams are for the
// methods that read them. A GET is retried on connection errors, 408, 429
// and 5xx; any other method only when it provably did not act.
//
// # Raw JSON
//
// A value decoded with [WithRawJSON] keeps the answer's body it came from
// ([Raw.RawJSON] is a view of it, copied when asked), so holding one small
// value of a large answer holds the whole body. A value built in Go, or
// decoded from a stream event (each event would otherwise keep its bytes),
// records nothing: RawJSON returns nil. Raw adds no member to the value's
// JSON encoding, and the answer types print without it: %v, %+v and %#v show
// their fields alone (the body it points into may hold a secret that a field
// prints redacted). Comparing values with == or reflect.DeepEqual compares
// their Raw as well: two values decoded from different bytes (or one
// decoded, one built) differ even when their fields are equal. Compare their
// fields, or zero Raw first (v.Raw = threads.Raw{}).
//
// [WithJSONSet] changes a call's body: a POST, PUT or PATCH without a body
// gets an object with the member; a call that sends no body otherwise (a
// GET), or a body that is not JSON, fails before anything is sent, as do a
// pointer into a string or number and a value encoding/json cannot encode.
// A pointer of more than [MaxJSONPointerDepth] tokens is refused before any
// work. The edited body is the one every retry sends.
//
// # Middleware, responses and observers
//
// A [Middleware] sees every attempt: each retry, the re-send of a call that
// follows the service's 410 migration advice, a redirect the client follows,
// and stream requests (for a stream, the answer's Body is the live event
// stream: read it only through the [Stream], never in the middleware). It
// runs inside the attempt's timeout ([WithRequestTimeout]). The request
// carries the API key in its headers (Authorization or the header of
// [WithAPIKeyHeader]), so a middleware that logs requests must leave the
// key's header out, as the SDK's own logging does; it must not keep the
// request or its body past its return. It does not see the storage upload of
// [StorageService.Upload], which goes to another host without the key.
//
// The response [WithResponseInto] stores has [http.NoBody] as its Body (the
// SDK reads the body itself: a JSON call decodes it; a stream owns it). Its
// Request is a copy without secrets: the credential headers read
// "[REDACTED]", the key is redacted from its other headers, and the request
// body is gone. Its Trailer holds the trailers the answer declared, without
// their values. A failed call leaves *dst alone when no 2xx arrived (once
// one did, *dst is written even if its body then fails to decode).
//
// A [CallObserver] hears one call. A stream's call ends when the stream does
// (DONE, an error, or Close), not when its headers arrive; a Stream dropped
// without Close or reaching its end never ends its call. For RunStream, the
// first round's call carries the whole stream's figures (events and tool
// rounds); each later round is a call of its own that ends when its answer's
// headers are in. Calls of package runs (/v1) are reported the same way: a
// JSON call ends when its answer is decoded (a decode failure is its Err); a
// run's stream ends at the run's terminal event (Err is the
// *runs.RunFailedError of a failed run), at a failure, or at Close, and
// counts its AG-UI events. A /v1 tool stream's runs are calls of their own:
// each run that carries tool results reports EventToolRound with the tool
// stream's round number, which is also its CallEnd.ToolRounds.
//
// # Leaving a stream
//
// Under [WithCancelOnClose], a stream of the spec's routes left before its
// end (Close, breaking out of All, its context ending, or a failure on the
// client's side: truncated, idle, too large an event) sends
// [ThreadsService.Cancel] for its thread, once, with the call's options, on
// a context that keeps the stream context's values but not its cancellation,
// bounded by 5 seconds; Close (or the Next that saw the end) waits for it,
// and its failure is not reported (the stream's own outcome is). Never after
// DONE, and not after the service's own error: line, which ends the
// generation itself. A CreateAndAdvanceStream left before its first snapshot
// named its new thread cannot be cancelled: there is no id to name yet. A
// Stream that is dropped without Close sends nothing. The /v1 run streams of
// package runs need no option: closing one before the run's end cancels the
// run.
//
// # Listing threads
//
// [ThreadsService.List] with ListParams.ProjectID lists through GET
// /threads/project/{projectId} (the live service's route). Without it, it
// uses the spec's GET /threads; when that answers 404 (the live service does
// not have it), the client lists per project instead, with the project of
// the call's API key (asked with [ProjectsService.Current]), and logs the
// switch at info level. The switch and the project are remembered only once
// the per-project route answered 2xx, so a passing 404 or a wrong project id
// does not decide every later call; a later 401, 403, 404 or 410 forgets
// them, and the next call finds out again. A server that answers with a bare
// JSON array instead of the {items,total,offset,limit,count} envelope yields
// a page whose Offset and Count describe the items and whose Total is 0
// (unknown).
//
// [ThreadsService.All] is bounded whatever the server sends: after 10,000
// pages or 64 MiB of page bodies (see [WithPagingLimit]) it yields an error
// matching [ErrPagingLimit] instead of asking for more; the second page in a
// row whose threads all were on the page before (a server that ignores the
// offset) ends it with an error matching [ErrUnexpectedResponse]. Either
// error comes after the threads read so far, so a caller knows the listing
// is incomplete. Threads created while paging can shift the offsets (the
// service orders by creation time only), so a thread may be seen twice or
// not at all.
//
// # Testing
//
// Package [github.com/threadsapi/threads-go/threadstest] runs a fake of the
// service, the /v1 routes included, in your test process, like
// net/http/httptest.
package threads

// The model (types.gen.go) is generated from internal/apispec/openapi.yaml.
//go:generate go -C internal/tools tool oapi-codegen -config ../apispec/oapi-codegen.yaml ../apispec/openapi.yaml
//go:generate gofmt -w -r "interface{} -> any" types.gen.go
