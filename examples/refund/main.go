// Command refund is a /v1 support agent whose refund tool asks a person
// first: a refund of 20 € or less runs at once, a larger one waits for an
// approval read from the terminal (here: answered by the approver below),
// and a refusal, with its reason, is the result the model reads. Each call
// has a deadline, and runs once even if the service delivers its pause
// twice (threads.ToolGuards).
//
//	go run ./examples/refund                     # against the built-in fake
//	THREADS_BASE_URL=https://api.tambo.co THREADS_API_KEY=... \
//	THREADS_USER_KEY=user-1 go run ./examples/refund  # against the service
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// RefundArgs are the refund tool's arguments.
type RefundArgs struct {
	Order  string  `json:"order" description:"The order's number, such as A-1042"`
	Amount float64 `json:"amount" description:"The sum to refund, in euros"`
}

// refundTool refunds an order through the shop's payment system (here, a
// line of output). Its NeedsApproval rule asks a person above 20 €.
func refundTool(out io.Writer) threads.Tool {
	t := threads.NewTool("refund", "Refund part or all of an order", func(ctx context.Context, a RefundArgs) (string, error) {
		fmt.Fprintf(out, "(refunding %.2f € on %s)\n", a.Amount, a.Order)
		return fmt.Sprintf("refunded %.2f € on order %s", a.Amount, a.Order), nil
	})
	t.NeedsApproval = func(call threads.ToolCall) bool {
		amount, _ := call.Arguments["amount"].(float64)
		return amount > 20
	}
	t.Timeout = 10 * time.Second // the payment system's own bound
	return t
}

// askOn is an approver that asks a person on in and out: "y" approves,
// anything else refuses with that text as the reason. The calls of one
// pause run at once, so questions are asked one at a time.
func askOn(in *bufio.Reader, out io.Writer) threads.Approver {
	var mu sync.Mutex
	return func(ctx context.Context, req threads.ApprovalRequest) (threads.Approval, error) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, "Approve %s %v? [y/reason] ", req.Call.Name, req.Call.Arguments)
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return threads.Approval{}, err // no answer: a refusal that says so
		}
		line = strings.TrimSpace(line)
		if line == "y" {
			return threads.Approval{Approved: true}, nil
		}
		return threads.Approval{Reason: line}, nil
	}
}

func main() {
	if err := run(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "refund:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stdin io.Reader, out io.Writer) error {
	var client *threads.Client
	user := os.Getenv("THREADS_USER_KEY")
	if os.Getenv(threads.EnvBaseURL) != "" {
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		defer hc.CloseIdleConnections()
		c, err := threads.NewClient(threads.WithHTTPClient(hc))
		if err != nil {
			return err
		}
		client = c
	} else {
		srv := threadstest.Start()
		defer srv.Close()
		fmt.Fprintf(out, "(THREADS_BASE_URL is not set: using the built-in fake at %s)\n", srv.URL)
		client = srv.Client()
		// The fake has no model: script what a model would do, and the
		// pause delivered twice, as a retry would.
		srv.PushRunScript(threadstest.RunScript{PauseTwice: true, ToolCalls: []threadstest.RunToolCall{
			{Name: "refund", Arguments: map[string]any{"order": "A-1042", "amount": 12.5}},
			{Name: "refund", Arguments: map[string]any{"order": "B-7", "amount": 480}},
		}})
		srv.PushRunScript(threadstest.RunScript{Text: "I refunded 12.50 € on A-1042; the refund on B-7 needs a manager."})
	}
	if user == "" {
		user = "example-user"
	}
	// The tool and the approver print from the calls' goroutines.
	out = &lockedWriter{w: out}
	agent := runs.New(client).ForUser(user)
	ts, err := agent.CreateAndRunTools(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text("Please refund my two orders: A-1042 (12.50 €) and B-7 (480 €).")},
	}}, runs.ToolRunner{
		Tools: []threads.Tool{refundTool(out)},
		Guards: threads.ToolGuards{
			Approver:        askOn(bufio.NewReader(stdin), out),
			ApprovalTimeout: 2 * time.Minute,
		},
	})
	if err != nil {
		return err
	}
	defer ts.Close()
	for ts.Next() {
		switch ev := ts.Current().(type) {
		case runs.TextMessageContent:
			fmt.Fprint(out, ev.Delta)
		case runs.ToolRunResult:
			fmt.Fprintf(out, "(%s: %s)\n", ev.ToolName, ev.Text)
		}
	}
	fmt.Fprintln(out)
	return ts.Err()
}

// lockedWriter serialises writes to w: the calls of one pause run at
// once, and each may print.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
