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
// # Testing
//
// Package [github.com/threadsapi/threads-go/threadstest] runs a fake of the
// service, the /v1 routes included, in your test process, like
// net/http/httptest.
package threads

// The model (types.gen.go) is generated from internal/apispec/openapi.yaml.
//go:generate go -C internal/tools tool oapi-codegen -config ../apispec/oapi-codegen.yaml ../apispec/openapi.yaml
//go:generate gofmt -w -r "interface{} -> any" types.gen.go
