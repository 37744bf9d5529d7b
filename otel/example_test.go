package threadsotel_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	threads "github.com/threadsapi/threads-go"
	threadsotel "github.com/threadsapi/threads-go/otel"
	"github.com/threadsapi/threads-go/threadstest"
)

// Example traces a client's calls. A real program passes its own tracer
// provider (or none: the global one); the in-memory exporter here shows
// what is recorded.
func Example() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	srv := threadstest.Start() // the SDK's fake service
	defer srv.Close()
	client := srv.Client(threads.WithObserver(threadsotel.NewObserver(threadsotel.WithTracerProvider(tp))))

	ctx := context.Background()
	th, err := client.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	if err != nil {
		fmt.Println(err)
		return
	}
	reply, err := client.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("hello")})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := reply.Collect(); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range exp.GetSpans() {
		fmt.Println(s.Name, s.Status.Code)
	}
	// Output:
	// POST /threads Unset
	// POST /threads/{id}/advancestream Unset
}
