package threads_test

import (
	"context"
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
