package threads_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

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
