package threads_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// Example sends a message and prints the reply as it streams.
func Example() {
	srv := threadstest.Start() // a fake service; use your base URL and key instead
	defer srv.Close()

	client, err := threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey(srv.APIKey))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	stream, err := client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{
		Message: threads.UserMessage("Hello, threads!"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for ev, err := range stream.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(ev.TextDelta)
	}
	fmt.Println()
	// Output: You said: Hello, threads!
}

func ExampleNewClient() {
	// With no options, NewClient reads THREADS_BASE_URL and THREADS_API_KEY.
	_, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL("https://api.example.com"))
	fmt.Println(err)

	client, err := threads.NewClient(
		threads.WithBaseURL("https://api.example.com"),
		threads.WithAPIKey("sk_live_123456"),
		threads.WithMaxRetries(3),
	)
	fmt.Println(client, err)
	// Output:
	// threads: no API key: use WithAPIKey or set THREADS_API_KEY
	// threads.Client{baseURL:"https://api.example.com" apiKey:[REDACTED] maxRetries:3} <nil>
}

func ExampleThreadsService_Create() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()

	thread, err := client.Threads.Create(context.Background(), threads.CreateThreadParams{
		ProjectID: srv.ProjectID,
		Name:      "support chat",
		Metadata:  map[string]any{"customer": "acme"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(thread.Name, thread.GenerationStage, thread.Metadata["customer"])
	// Output: support chat IDLE acme
}

func ExampleThreadsService_List() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	for _, name := range []string{"first", "second", "third"} {
		if _, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: name}); err != nil {
			fmt.Println(err)
			return
		}
	}

	page, err := client.Threads.List(ctx, &threads.ListParams{Limit: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d of %d:", page.Count, page.Total)
	for _, t := range page.Items {
		fmt.Print(" ", t.Name) // newest first
	}
	fmt.Println()
	// Output: 2 of 3: third second
}

func ExampleThreadsService_All() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	for i := range 5 {
		if _, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: fmt.Sprint("t", i)}); err != nil {
			fmt.Println(err)
			return
		}
	}

	// All fetches pages of two as the loop needs them.
	for thread, err := range client.Threads.All(ctx, &threads.ListParams{Limit: 2}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(thread.Name, " ")
	}
	fmt.Println()
	// Output: t4 t3 t2 t1 t0
}

// ExampleThreadsService_Get reads a thread back with its messages.
func ExampleThreadsService_Get() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	stream, err := client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, err := stream.Collect()
	if err != nil {
		fmt.Println(err)
		return
	}
	if len(msgs) == 0 {
		fmt.Println("no reply")
		return
	}
	threadID := msgs[0].ThreadID

	thread, err := client.Threads.Get(ctx, threadID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(thread.GenerationStage)
	for _, m := range thread.Messages {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// COMPLETE
	// user: hi
	// assistant: You said: hi
}

// ExampleThreadsService_AdvanceStream reads a stream with Next, Current and
// Err, and shows the snapshot semantics: each event is the whole message so
// far, TextDelta the new part.
func ExampleThreadsService_AdvanceStream() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}

	stream, err := client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage("one two")})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stream.Close()
	for stream.Next() {
		ev := stream.Current()
		fmt.Printf("%-18s %-22q +%q\n", ev.GenerationStage, ev.Message.Text(), ev.TextDelta)
	}
	if err := stream.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// STREAMING_RESPONSE " "                    +""
	// STREAMING_RESPONSE "You"                  +"You"
	// STREAMING_RESPONSE "You said:"            +" said:"
	// STREAMING_RESPONSE "You said: one"        +" one"
	// STREAMING_RESPONSE "You said: one two"    +" two"
	// STREAMING_RESPONSE "You said: one two"    +""
	// COMPLETE           "You said: one two"    +""
}

// ExampleThreadsService_CreateAndAdvance uses the deprecated non-streaming
// create-and-advance: the service answers 410 and the client follows its
// advice to the streaming endpoint, once, reporting the move.
func ExampleThreadsService_CreateAndAdvance() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client(threads.WithDeprecationHandler(func(d threads.Deprecation) {
		fmt.Printf("moved: %s -> %s (advice %q)\n", d.From, d.To, d.MigrateTo)
	}))
	ctx := context.Background()

	for _, text := range []string{"first", "second"} {
		reply, err := client.Threads.CreateAndAdvance(ctx, threads.AdvanceParams{Message: threads.UserMessage(text)})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(reply.GenerationStage, reply.Message.Text())
	}
	// Output:
	// moved: POST /threads/advance -> POST /threads/advancestream (advice "POST /advancestream")
	// COMPLETE You said: first
	// COMPLETE You said: second
}

// Example_errors branches on the sentinels and reads a *Problem.
func Example_errors() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	// The service answers 403 for a thread id it does not know (or that is
	// in another project), and 404 for a contextKey that is not the
	// thread's.
	_, err := client.Threads.Get(ctx, "thr_missing.000000")
	if errors.Is(err, threads.ErrForbidden) {
		fmt.Println("forbidden")
	}
	th, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.Threads.Get(ctx, th.ID, threads.WithQuery("contextKey", "someone-else"))
	if errors.Is(err, threads.ErrNotFound) {
		fmt.Println("not found")
	}
	var p *threads.Problem
	if errors.As(err, &p) {
		fmt.Println(p.Status, p.Title, "|", p.Detail)
	}

	_, err = client.Threads.Create(ctx, threads.CreateThreadParams{}) // no ProjectID
	fmt.Println(err)

	// A failure inside a 2xx stream is a *StreamError.
	srv.PushScript(threadstest.Script{Error: true})
	stream, err := client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("x")})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, err := range stream.All() {
		var se *threads.StreamError
		if errors.As(err, &se) {
			fmt.Println("stream failed:", se.Message, errors.Is(err, threads.ErrStreamFailed))
		}
	}
	// Output:
	// forbidden
	// not found
	// 404 Not Found | Thread not found
	// threads: POST /threads: 400 Bad Request: projectId must be a string
	// stream failed: Error in streaming response true
}

// ExampleThreadsService_Advance sends a message with the deprecated
// non-streaming Advance and gets the finished reply. The service has retired
// POST /threads/{id}/advance (410 ENDPOINT_DEPRECATED); the client follows
// the service's advice to /advancestream, reads that stream to its end and
// returns the final snapshot, so old code keeps working. New code calls
// [threads.ThreadsService.AdvanceStream] and [threads.Stream.Collect].
func ExampleThreadsService_Advance() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client(threads.WithDeprecationHandler(func(d threads.Deprecation) {
		fmt.Println("the client followed:", d.MigrateTo)
	}))
	ctx := context.Background()
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}

	reply, err := client.Threads.Advance(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage("hello")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reply.GenerationStage, reply.Message.Role, reply.Message.Text())
	// Output:
	// the client followed: POST /:id/advancestream
	// COMPLETE assistant You said: hello
}

// ExampleThreadsService_CreateAndAdvanceStream starts a thread with its first
// message in one call and streams the reply; the messages carry the new
// thread's id.
func ExampleThreadsService_CreateAndAdvanceStream() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	stream, err := client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{
		Message:    threads.UserMessage("What is a goroutine?"),
		ContextKey: "user-42", // optional: the thread belongs to this end user
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stream.Close()
	for ev, err := range stream.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(ev.TextDelta)
	}
	fmt.Println()

	msgs := stream.Messages()
	if len(msgs) == 0 {
		fmt.Println("no reply")
		return
	}
	thread, err := client.Threads.Get(ctx, msgs[0].ThreadID, threads.WithQuery("contextKey", "user-42"))
	if err != nil {
		fmt.Println(err)
		return
	}
	// Get with the thread's contextKey (the service answers 404 for another).
	fmt.Println(thread.GenerationStage, len(thread.Messages), "messages")
	// Output:
	// You said: What is a goroutine?
	// COMPLETE 2 messages
}

// ExampleThreadsService_Cancel stops a reply half-way. Closing a stream only
// hangs up; Cancel stops the generation on the service, and the stream then
// ends with the cancelled snapshot.
func ExampleThreadsService_Cancel() {
	// A fake that pauses an hour between snapshots, so that the reply is
	// surely still going when Cancel arrives (a cancel ends the fake's
	// pause at once).
	srv := threadstest.Start(threadstest.WithThrottle(time.Hour))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}
	stream, err := client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage("tell me a long story")})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stream.Close()
	if stream.Next() {
		fmt.Printf("%s %q\n", stream.Current().GenerationStage, stream.Current().Message.Text())
	}

	cancelled, err := client.Threads.Cancel(ctx, thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("Cancel:", cancelled.GenerationStage)
	var last threads.StreamEvent
	for stream.Next() {
		last = stream.Current()
	}
	if err := stream.Err(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the stream ends:", last.GenerationStage)

	got, err := client.Threads.Get(ctx, thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range got.Messages {
		fmt.Printf("%s cancelled=%v\n", m.Role, m.IsCancelled)
	}
	// Output:
	// STREAMING_RESPONSE " "
	// Cancel: CANCELLED
	// the stream ends: CANCELLED
	// user cancelled=false
	// assistant cancelled=true
}

// ExampleProjectsService_Current reads the project of the API key: creating
// a thread needs its id.
func ExampleProjectsService_Current() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()

	project, err := client.Projects.Current(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(project.Name, project.ProviderType, project.ID == srv.ProjectID)
	// Output: Fake Project llm true
}

// ExampleProblem_Deprecation turns off the automatic migration for one call
// and reads the service's 410 advice from the returned *Problem.
func ExampleProblem_Deprecation() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()

	_, err := client.Threads.CreateAndAdvance(context.Background(),
		threads.AdvanceParams{Message: threads.UserMessage("hi")},
		threads.WithoutAutoMigrate())
	fmt.Println(errors.Is(err, threads.ErrEndpointDeprecated))
	var p *threads.Problem
	if errors.As(err, &p) {
		if d, ok := p.Deprecation(); ok {
			fmt.Println(p.Status, p.Code)
			fmt.Printf("advice %q\n", d.MigrateTo)
			fmt.Println(d.From, "->", d.To)
		}
	}
	// Output:
	// true
	// 410 ENDPOINT_DEPRECATED
	// advice "POST /advancestream"
	// POST /threads/advance -> POST /threads/advancestream
}

// ExampleStream_Collect sends a message and waits for the whole reply: Collect
// reads the stream to its end, closes it, and returns the final messages and
// the stream's error. A reply can hold several messages (here the fake is
// scripted to send two, as the service does around a server-side tool).
func ExampleStream_Collect() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	srv.PushScript(threadstest.Script{Replies: []string{"Let me check.", "Go 1.23 added range-over-func."}})
	stream, err := client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("What did Go 1.23 add?")})
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, err := stream.Collect()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}

	// A stream that fails half-way: the messages so far, and the error.
	srv.PushScript(threadstest.Script{Error: true, ErrorAfter: 3})
	stream, err = client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("one two three")})
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, err = stream.Collect()
	fmt.Println(len(msgs), errors.Is(err, threads.ErrStreamFailed), err)
	// Output:
	// assistant: Let me check.
	// assistant: Go 1.23 added range-over-func.
	// 1 true threads: stream failed: Error in streaming response
}

// ExampleThreadsService_List_project lists one project's threads through
// GET /threads/project/{projectId}, the route the live deployment offers.
// Without ProjectID, List asks GET /threads as the spec says, and when a
// deployment answers that 404 the client lists the key's project instead.
func ExampleThreadsService_List_project() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	for _, name := range []string{"first", "second"} {
		if _, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: name}); err != nil {
			fmt.Println(err)
			return
		}
	}

	page, err := client.Threads.List(ctx, &threads.ListParams{ProjectID: srv.ProjectID, Limit: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range page.Items {
		fmt.Println(t.Name)
	}
	fmt.Println("GET /threads:", srv.Count("GET", "/threads"), "GET /threads/project/...:", srv.Count("GET", "/threads/project/"+srv.ProjectID))
	// Output:
	// second
	// first
	// GET /threads: 0 GET /threads/project/...: 1
}

// ExampleWithQuery passes a query parameter the SDK does not model: Get's
// contextKey. The service answers 404 when it is not the thread's.
func ExampleWithQuery() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, ContextKey: "user-42"})
	if err != nil {
		fmt.Println(err)
		return
	}

	got, err := client.Threads.Get(ctx, thread.ID, threads.WithQuery("contextKey", "user-42"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("found:", got.ID == thread.ID)

	_, err = client.Threads.Get(ctx, thread.ID, threads.WithQuery("contextKey", "user-7"))
	fmt.Println("another key:", errors.Is(err, threads.ErrNotFound))
	// Output:
	// found: true
	// another key: true
}

// ExampleWithResponseInto_stream reads a stream's answer (status and
// headers) as soon as the stream is returned, before its events; a failed
// call's are in Problem.Header.
func ExampleWithResponseInto_stream() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	var resp *http.Response
	stream, err := client.Threads.CreateAndAdvanceStream(ctx, threads.AdvanceParams{Message: threads.UserMessage("hi")},
		threads.WithResponseInto(&resp))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stream.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))
	// Output:
	// 201 text/event-stream
}

// ExampleWithMiddleware logs each attempt's method, path and status. It
// never prints the request's headers: one of them carries the API key.
func ExampleWithMiddleware() {
	srv := threadstest.Start()
	defer srv.Close()

	logAttempts := func(req *http.Request, next threads.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if err != nil {
			fmt.Println(req.Method, req.URL.Path, "failed")
			return nil, err
		}
		fmt.Println(req.Method, req.URL.Path, resp.StatusCode)
		return resp, nil
	}
	client, err := threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey(srv.APIKey),
		threads.WithMiddleware(logAttempts), threads.WithRetryWait(time.Millisecond, time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.Inject(threadstest.Fault{Path: "/projects", Status: http.StatusServiceUnavailable})
	if _, err := client.Projects.Current(context.Background()); err != nil {
		fmt.Println(err)
	}
	// Output:
	// GET /projects 503
	// GET /projects 200
}

// ExampleWithResponseInto reads the raw answer's status and headers of one
// call.
func ExampleWithResponseInto() {
	srv := threadstest.Start()
	defer srv.Close()
	client, _ := threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey(srv.APIKey))

	var resp *http.Response
	project, err := client.Projects.Current(context.Background(), threads.WithResponseInto(&resp))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(project.ID != "", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Body == http.NoBody)
	// Output: true 200 application/json; charset=utf-8 true
}

// ExampleStorageService_Upload uploads a file and attaches it to a
// message.
func ExampleStorageService_Upload() {
	srv := threadstest.Start()
	defer srv.Close()
	client, _ := threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey(srv.APIKey))
	ctx := context.Background()

	text := "Quarterly figures: up 12%."
	uri, err := client.Storage.Upload(ctx, strings.NewReader(text), "text/plain", int64(len(text)))
	if err != nil {
		fmt.Println(err)
		return
	}
	msg := threads.UserMessage("Summarise the attached file.")
	msg.Content = append(msg.Content, threads.AttachmentPart(uri, "text/plain", "figures.txt"))
	fmt.Println(strings.HasPrefix(uri, "attachment://"), len(msg.Content))
	// Output: true 2
}

// ExampleWithCancelOnClose stops the reply on the service when the
// program stops reading it: here after its first snapshot.
func ExampleWithCancelOnClose() {
	srv := threadstest.Start()
	defer srv.Close()
	client, _ := threads.NewClient(threads.WithBaseURL(srv.URL), threads.WithAPIKey(srv.APIKey))
	ctx := context.Background()

	stream, err := client.Threads.CreateAndAdvanceStream(ctx,
		threads.AdvanceParams{Message: threads.UserMessage("Tell me a long story.")},
		threads.WithCancelOnClose())
	if err != nil {
		fmt.Println(err)
		return
	}
	for ev, err := range stream.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("first snapshot of thread", ev.Message.ThreadID != "")
		break // closes the stream: the service is told to cancel
	}
	fmt.Println("cancel requests:", srv.Count(http.MethodPost, "/threads/"+srv.ThreadIDs()[0]+"/cancel"))
	// Output:
	// first snapshot of thread true
	// cancel requests: 1
}

// countingObserver counts each call's attempts and prints how it ended.
type countingObserver struct{}

type countingCall struct {
	route    string
	attempts int
}

func (countingObserver) StartCall(ctx context.Context, ci threads.CallInfo) (context.Context, threads.CallObserver) {
	return ctx, &countingCall{route: ci.Method + " " + ci.Route}
}

func (c *countingCall) Observe(ev threads.CallEvent) {
	if ev.Kind == threads.EventAttempt {
		c.attempts++
	}
}

func (c *countingCall) End(e threads.CallEnd) {
	fmt.Printf("%s: status %d after %d attempts, %d events\n", c.route, e.Status, c.attempts, e.Events)
}

// ExampleWithObserver reports every call's attempts and outcome: what a
// metrics or tracing adapter builds on (module
// github.com/threadsapi/threads-go/otel is one, for OpenTelemetry).
func ExampleWithObserver() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client(threads.WithObserver(countingObserver{}), threads.WithRetryWait(time.Millisecond, time.Millisecond))

	ctx := context.Background()
	srv.Inject(threadstest.Fault{Path: "/threads", Status: http.StatusServiceUnavailable})
	th, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}
	reply, err := client.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := reply.Collect(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// POST /threads: status 201 after 2 attempts, 0 events
	// POST /threads/{id}/advancestream: status 201 after 1 attempts, 6 events
}

// ExampleAuthService_MCPAccessToken gets a short-lived token for the
// service's MCP server, bound to one thread.
func ExampleAuthService_MCPAccessToken() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()

	ctx := context.Background()
	th, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}
	tok, err := client.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ThreadID: th.ID})
	if errors.Is(err, threads.ErrNoMCPServers) {
		fmt.Println("no MCP servers configured")
		return
	} else if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tok.Token, tok.HasSession, time.Until(tok.ExpiresAt) > 14*time.Minute)
	// Send it as "Authorization: Bearer "+tok.Token.Reveal() to the MCP server.
	// Output: [REDACTED] true true
}

// ExampleAudioService_Transcribe turns a recording into text.
func ExampleAudioService_Transcribe() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()

	recording := strings.NewReader("RIFF....WAVEfmt ") // an open file, in a real program
	text, err := client.Audio.Transcribe(context.Background(), recording, "note.wav")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(text)
	// Output: transcript of note.wav (16 bytes)
}

// exampleThread starts a fake service and returns a client for it and a
// thread that holds one exchange: "Hello" and the fake's reply.
func exampleThread() (*threadstest.Server, *threads.Client, *threads.Thread) {
	srv := threadstest.Start()
	client := srv.Client()
	ctx := context.Background()
	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		panic(err)
	}
	stream, err := client.Threads.AdvanceStream(ctx, thread.ID, threads.AdvanceParams{Message: threads.UserMessage("Hello")})
	if err != nil {
		panic(err)
	}
	if _, err := stream.Collect(); err != nil {
		panic(err)
	}
	return srv, client, thread
}

func ExampleThreadsService_Update() {
	srv, client, thread := exampleThread()
	defer srv.Close()

	// Fields left empty keep their values; the live service wants the project.
	updated, err := client.Threads.Update(context.Background(), thread.ID, threads.UpdateThreadParams{
		ProjectID: thread.ProjectID,
		Name:      "Greetings",
		Metadata:  map[string]any{"topic": "hello"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(updated.Name, updated.Metadata["topic"])
	// Output: Greetings hello
}

func ExampleThreadsService_Delete() {
	srv, client, thread := exampleThread()
	defer srv.Close()
	ctx := context.Background()

	if err := client.Threads.Delete(ctx, thread.ID); err != nil {
		fmt.Println(err)
		return
	}
	// The thread is gone: its id is now refused like any unknown id.
	_, err := client.Threads.Get(ctx, thread.ID)
	fmt.Println(errors.Is(err, threads.ErrForbidden))
	// Output: true
}

func ExampleThreadsService_GenerateName() {
	srv, client, thread := exampleThread()
	defer srv.Close()

	// The fake names a thread after its first user message.
	named, err := client.Threads.GenerateName(context.Background(), thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(named.Name)
	// Output: Hello
}

func ExampleMessagesService_List() {
	srv, client, thread := exampleThread()
	defer srv.Close()

	msgs, err := client.Messages.List(context.Background(), thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// user: Hello
	// assistant: You said: Hello
}

func ExampleMessagesService_Create() {
	srv, client, thread := exampleThread()
	defer srv.Close()

	// Appends without asking for a reply.
	m, err := client.Messages.Create(context.Background(), thread.ID, threads.UserMessage("Noted for later"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Role, m.Text(), m.ThreadID == thread.ID)
	// Output: user Noted for later true
}

func ExampleMessagesService_Delete() {
	srv, client, thread := exampleThread()
	defer srv.Close()
	ctx := context.Background()

	msgs, err := client.Messages.List(ctx, thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := client.Messages.Delete(ctx, thread.ID, msgs[0].ID); err != nil {
		fmt.Println(err)
		return
	}
	left, err := client.Messages.List(ctx, thread.ID)
	fmt.Println(len(left), left[0].Role, err)
	// Output: 1 assistant <nil>
}

func ExampleMessagesService_GenerateSuggestions() {
	srv, client, thread := exampleThread()
	defer srv.Close()
	ctx := context.Background()

	msgs, err := client.Messages.List(ctx, thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	reply := msgs[len(msgs)-1]
	suggestions, err := client.Messages.GenerateSuggestions(ctx, thread.ID, reply.ID, threads.GenerateSuggestionsParams{MaxSuggestions: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range suggestions {
		fmt.Printf("%s: %s\n", s.Title, s.DetailedSuggestion)
	}
	// Output:
	// Tell me more: Tell me more (re: You said: Hello)
	// Give an example: Give an example (re: You said: Hello)
}

func ExampleMessagesService_Suggestions() {
	srv, client, thread := exampleThread()
	defer srv.Close()
	ctx := context.Background()

	msgs, err := client.Messages.List(ctx, thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	reply := msgs[len(msgs)-1]
	if _, err := client.Messages.GenerateSuggestions(ctx, thread.ID, reply.ID, threads.GenerateSuggestionsParams{}); err != nil {
		fmt.Println(err)
		return
	}
	// Later: read what was generated, without calling the model again.
	stored, err := client.Messages.Suggestions(ctx, thread.ID, reply.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(stored), stored[0].Title)
	// Output: 3 Tell me more
}

func ExampleMessagesService_UpdateComponentState() {
	srv, client, thread := exampleThread()
	defer srv.Close()
	ctx := context.Background()

	msgs, err := client.Messages.List(ctx, thread.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	reply := msgs[len(msgs)-1]
	m, err := client.Messages.UpdateComponentState(ctx, thread.ID, reply.ID, threads.UpdateComponentStateParams{
		State: map[string]any{"expanded": true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.ComponentState["expanded"])
	// Output: true
}

// RunStream answers the model's tool calls with Go functions until the
// reply completes. Here the fake service scripts the call a model would
// make.
func ExampleThreadsService_RunStream() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	type WeatherArgs struct {
		City string `json:"city" description:"City name"`
	}
	weather := threads.NewTool("get_weather", "Current weather for a city",
		func(ctx context.Context, a WeatherArgs) (string, error) {
			return "22°C and sunny in " + a.City, nil
		})

	thread, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "get_weather", Arguments: map[string]any{"city": "Lisbon"}},
	}})
	stream, err := client.Threads.RunStream(ctx, thread.ID,
		threads.AdvanceParams{Message: threads.UserMessage("Weather in Lisbon?")},
		[]threads.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, err := stream.Collect()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		if req := m.ToolCallRequest; req != nil {
			fmt.Printf("%s asked for %s\n", m.Role, req.ToolName)
			continue
		}
		fmt.Printf("%s: %s\n", m.Role, m.Text())
	}
	// Output:
	// assistant asked for get_weather
	// assistant: The tool returned: 22°C and sunny in Lisbon
}

// A field the service added after this release: with WithRawJSON every
// decoded value keeps the JSON it came from, and ExtraFields gives the
// members no Go field takes.
func ExampleWithRawJSON() {
	// A fake whose answers carry a member the SDK does not know.
	srv := threadstest.Start(threadstest.WithExtraMembers(map[string]any{"priority": "high"}))
	defer srv.Close()
	client := srv.Client(threads.WithRawJSON()) // or per call: Create(ctx, params, threads.WithRawJSON())

	thread, err := client.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID, Name: "support"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var priority string
	if raw, ok := thread.ExtraFields()["priority"]; ok {
		_ = json.Unmarshal(raw, &priority)
	}
	fmt.Println(thread.Name, priority)
	fmt.Println(json.Valid(thread.RawJSON()), strings.Contains(string(thread.RawJSON()), `"priority":"high"`))
	// Output:
	// support high
	// true true
}

// A route the SDK does not model, through the client's own request path:
// its key, retries, errors and observer.
func ExampleClient_Do() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	// The body: a Go value (encoded with encoding/json) or JSON bytes, sent as they are.
	var created struct{ ID, Name string }
	err := client.Do(ctx, "POST", "/threads", []byte(`{"projectId":"`+srv.ProjectID+`","name":"generic"}`), &created)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The answer: any type encoding/json can decode, or a *json.RawMessage.
	var page struct {
		Items []struct{ Name string } `json:"items"`
		Total int                     `json:"total"`
	}
	if err := client.Do(ctx, "GET", "/threads/project/"+url.PathEscape(srv.ProjectID)+"?limit=10", nil, &page); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(page.Total, page.Items[0].Name)

	// Errors are *threads.Problem, as for every method; paths are checked before sending.
	err = client.Do(ctx, "GET", "/threads/../projects", nil, nil)
	fmt.Println(err)
	// Output:
	// 1 generic
	// threads: Do(GET "/threads/../projects"): the path has a dot segment
}

// A member the SDK does not send yet, set in the body of a typed call.
func ExampleWithJSONSet() {
	srv := threadstest.Start()
	defer srv.Close()
	client := srv.Client()

	thread, err := client.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID},
		threads.WithJSONSet("/metadata/source", "go-sdk"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(thread.Metadata["source"])
	// Output: go-sdk
}

// A tool whose large calls wait for a person: the approver refuses the
// refund of 480 €, and the model reads why; the refund of 12 € runs
// without asking. Each call also has a deadline.
func ExampleToolGuards() {
	srv := threadstest.Start() // a fake service; use your base URL and key instead
	defer srv.Close()
	srv.PushScript(threadstest.Script{ToolCalls: []threadstest.ScriptedToolCall{
		{Name: "refund", Arguments: map[string]any{"order": "A-1042", "amount": 12}},
		{Name: "refund", Arguments: map[string]any{"order": "B-7", "amount": 480}},
	}})
	client := srv.Client()

	refund := threads.NewTool("refund", "Refund an order", func(_ context.Context, a struct {
		Order  string  `json:"order"`
		Amount float64 `json:"amount"`
	}) (string, error) {
		return fmt.Sprintf("refunded %.0f € on %s", a.Amount, a.Order), nil
	})
	refund.NeedsApproval = func(call threads.ToolCall) bool {
		amount, _ := call.Arguments["amount"].(float64)
		return amount > 20
	}
	guards := threads.ToolGuards{
		Approver: func(_ context.Context, req threads.ApprovalRequest) (threads.Approval, error) {
			fmt.Println("asked about", req.Call.Arguments["order"])
			return threads.Approval{Reason: "a manager refunds over 100 €"}, nil // a person said no
		},
		Timeout: 30 * time.Second,
	}
	stream, err := client.Threads.CreateAndRunStream(context.Background(),
		threads.AdvanceParams{Message: threads.UserMessage("Refund A-1042 and B-7")}, []threads.Tool{refund},
		threads.WithToolGuards(guards), threads.WithToolRunResults())
	if err != nil {
		fmt.Println(err)
		return
	}
	for ev, err := range stream.All() {
		if err != nil {
			fmt.Println(err)
			return
		}
		if r := ev.ToolRunResult; r != nil {
			fmt.Println(r.Text)
		}
	}
	// Output:
	// refunded 12 € on A-1042
	// asked about B-7
	// Error: the call was not approved: a manager refunds over 100 €
}
