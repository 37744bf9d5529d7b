package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
	"text/tabwriter"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/termtext"
	"github.com/threadsapi/threads-go/runs"
)

// The /v1 commands: threads per end user, runs as event streams.

// envUserKey is the end user the /v1 commands act for.
const envUserKey = "THREADS_USER_KEY"

func v1Flags(fs *flag.FlagSet) {
	fs.String("user-key", "", "the end user the /v1 call acts for (default $"+envUserKey+")")
}

// v1Client builds the /v1 client for the --user-key (or $THREADS_USER_KEY)
// end user; a configuration error is a usage error.
func (cl *call) v1Client(e *env) (*runs.Client, bool) {
	key := cl.str("user-key")
	if key == "" {
		key = strings.TrimSpace(os.Getenv(envUserKey))
	}
	if strings.TrimSpace(key) == "" {
		cl.usageError(e, "no end user: set %s or --user-key", envUserKey)
		return nil, false
	}
	c, ok := cl.client(e)
	if !ok {
		return nil, false
	}
	return runs.New(c).ForUser(key), true
}

// v1Fail is fail with the CLI's own hint for a refused key (401, or the
// 403 that the service also gives a wrong key): /v1 always sends the key
// in x-api-key, so the key is the thing to check. A 403 on a route that
// names a thread is more often the thread: unknown, deleted or another end
// user's, which the service answers with the same 403: the Problem's Route
// says which route failed. The hint names the CLI's variable and flag,
// once.
func v1Fail(e *env, err error) int {
	if (errors.Is(err, threads.ErrUnauthorized) || errors.Is(err, threads.ErrForbidden)) && !strings.Contains(err.Error(), threads.EnvAPIKey) {
		var p *threads.Problem
		if errors.Is(err, threads.ErrForbidden) && errors.As(err, &p) && strings.Contains(p.Route, "{threadId}") {
			err = fmt.Errorf("%w (the thread may not exist or may belong to another end user; or a refused key: check %s or --api-key-stdin)", err, threads.EnvAPIKey)
		} else {
			err = fmt.Errorf("%w (a refused key? check %s or --api-key-stdin)", err, threads.EnvAPIKey)
		}
	}
	return fail(e, err)
}

var v1ListCmd = &command{
	name:    "v1-list",
	summary: "list the end user's /v1 threads, newest first",
	long: `List the /v1 threads of the end user (--user-key or $THREADS_USER_KEY), newest
first: one page (--limit, --cursor), or every page with --all. Without
--all, the next page's cursor is printed on stderr. --status keeps the
threads whose run status is the one named (the service's runStatus: idle,
streaming, waiting); the service has no such filter, so a page may show
fewer than --limit.`,
	example: `  THREADS_USER_KEY=user-1 threads v1-list --limit 5
  threads v1-list --user-key user-1 --all --json | jq -r .id
  threads v1-list --user-key user-1 --all --status streaming`,
	flags: func(fs *flag.FlagSet) {
		v1Flags(fs)
		v1PageFlags(fs, 20, "thread")
		fs.String("status", "", "only the threads whose run status is this (idle, waiting, streaming)")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 0, 0) || !cl.checkPage(e) {
			return exitUsage
		}
		c, ok := cl.v1Client(e)
		if !ok {
			return exitUsage
		}
		ctx, stop := interruptible(e)
		defer stop()
		params := &runs.ListThreadsParams{Limit: cl.int("limit"), Cursor: cl.str("cursor")}
		status := runs.RunStatus(cl.str("status"))
		keep := func(t runs.Thread) bool { return status == "" || t.RunStatus == status }
		all := func(yield func(runs.Thread, error) bool) {
			for t, err := range c.AllThreads(ctx, params, allBound()) {
				if (err != nil || keep(t)) && !yield(t, err) {
					return
				}
			}
		}
		return v1Listing(e, cl, "(no threads)", all,
			func() ([]runs.Thread, string, bool, error) {
				page, err := c.ListThreads(ctx, params)
				if err != nil {
					return nil, "", false, err
				}
				var items []runs.Thread
				for _, t := range page.Items {
					if keep(t) {
						items = append(items, t)
					}
				}
				return items, page.NextCursor, page.HasMore, nil
			},
			func(items []runs.Thread) {
				w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "ID\tNAME\tRUN STATUS\tPENDING TOOLS\tCREATED")
				for _, t := range items {
					fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\n", field(t.ID), orDash(t.Name), orDash(string(t.RunStatus)), len(t.PendingToolCallIDs), when(t.CreatedAt))
				}
				w.Flush()
			})
	},
}

// v1Listing is the end of a /v1 listing command: every page of all with
// --all (bounded by allBound), else the one page that page reads, whose
// next cursor, when there are more, goes to stderr after the output. It
// prints the items with --json as NDJSON, else with show (or none on
// stderr when there are none).
func v1Listing[T any](e *env, cl *call, none string, all iter.Seq2[T, error], page func() (items []T, next string, more bool, err error), show func([]T)) int {
	var items []T
	if cl.bool("all") {
		for it, err := range all {
			if err != nil {
				return v1Fail(e, err)
			}
			items = append(items, it)
		}
	} else {
		var next string
		var more bool
		var err error
		if items, next, more, err = page(); err != nil {
			return v1Fail(e, err)
		}
		if more && next != "" {
			defer fmt.Fprintf(e.stderr, "(more: --cursor %s)\n", field(next))
		}
	}
	if cl.bool("json") {
		return done(e, printLines(e.stdout, items))
	}
	if len(items) == 0 {
		fmt.Fprintln(e.stderr, none)
		return exitOK
	}
	show(items)
	return exitOK
}

// v1PageFlags declares the paging flags of a /v1 listing; checkPage
// checks them.
func v1PageFlags(fs *flag.FlagSet, defaultLimit int, what string) {
	fs.Int("limit", 0, fmt.Sprintf("page size, 1 to 100 (default: the service's, %d)", defaultLimit))
	fs.String("cursor", "", "the page after this cursor (a previous page's next cursor)")
	fs.Bool("all", false, "every page, not only one")
	fs.Bool("json", false, "one JSON "+what+" per line (see \"threads help json\")")
}

// checkPage refuses a --limit the service would refuse.
func (cl *call) checkPage(e *env) bool {
	if n := cl.int("limit"); n < 0 || n > 100 {
		cl.usageError(e, "--limit %d: want 1 to 100", n)
		return false
	}
	return true
}

// printLines writes each item as one line of JSON (NDJSON).
func printLines[T any](w io.Writer, items []T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}

// runLine is one line of "v1-run --json".
type runLine struct {
	Kind        string         `json:"kind"`
	ThreadID    string         `json:"threadId,omitempty"`
	RunID       string         `json:"runId,omitempty"`
	MessageID   string         `json:"messageId,omitempty"`
	Delta       string         `json:"delta,omitempty"`
	ToolCallID  string         `json:"toolCallId,omitempty"`
	ToolName    string         `json:"toolName,omitempty"`
	Arguments   string         `json:"arguments,omitempty"`
	ComponentID string         `json:"componentId,omitempty"`
	Name        string         `json:"name,omitempty"`
	Props       map[string]any `json:"props,omitempty"`
	Outcome     string         `json:"outcome,omitempty"`
	Error       string         `json:"error,omitempty"`
	// Usage is the run's token usage (AG-UI 1.0's, on its RUN_FINISHED or
	// RUN_ERROR), summed per provider and model; on the end line only.
	Usage []runs.TokenUsage `json:"usage,omitempty"`
	// Interrupts are what an interrupt ending (outcome "interrupt") waits
	// on; on the end line only.
	Interrupts []runInterrupt `json:"interrupts,omitempty"`
}

// runInterrupt is a runs.Interrupt on v1-run's --json end line: its AG-UI
// fields, those the run left empty left out.
type runInterrupt struct {
	ID             string         `json:"id"`
	Reason         string         `json:"reason,omitempty"`
	Message        string         `json:"message,omitempty"`
	ToolCallID     string         `json:"toolCallId,omitempty"`
	ResponseSchema map[string]any `json:"responseSchema,omitempty"`
	ExpiresAt      string         `json:"expiresAt,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	SubagentRunID  string         `json:"subagentRunId,omitempty"`
}

// maxShownInterrupts bounds the interrupts v1-run keeps of a run's end.
const maxShownInterrupts = 256

// interruptLine is v1-run's line for in: "interrupt: ID REASON: MESSAGE",
// with "(tool call ID [TOOL ARGUMENTS])" before the colon when in is about
// a tool call (an approval: runs.ApprovalInterrupt's metadata names the
// tool and its arguments).
func interruptLine(in runs.Interrupt) string {
	var b strings.Builder
	b.WriteString("interrupt: " + field(in.ID) + " " + orDash(field(in.Reason)))
	if in.ToolCallID != "" {
		b.WriteString(" (tool call " + field(in.ToolCallID))
		if tool, ok := in.Metadata["tool"].(string); ok && tool != "" {
			b.WriteString(" " + field(tool))
			if args, ok := in.Metadata["arguments"]; ok {
				if j, err := json.Marshal(args); err == nil {
					b.WriteString(" " + field(string(j)))
				}
			}
		}
		b.WriteString(")")
	}
	if in.Message != "" {
		b.WriteString(": " + field(in.Message))
	}
	return b.String()
}

// addUsage sums us into into, per provider and model (as runs.Result.Usage
// does), at most 64 models.
func addUsage(into, us []runs.TokenUsage) []runs.TokenUsage {
next:
	for _, u := range us {
		for i := range into {
			if t := &into[i]; t.Provider == u.Provider && t.Model == u.Model {
				t.InputTokens += u.InputTokens
				t.OutputTokens += u.OutputTokens
				t.TotalTokens += u.TotalTokens
				t.ReasoningTokens += u.ReasoningTokens
				t.CachedInputTokens += u.CachedInputTokens
				t.CacheWriteInputTokens += u.CacheWriteInputTokens
				continue next
			}
		}
		if len(into) < 64 {
			into = append(into, u)
		}
	}
	return into
}

var v1RunCmd = &command{
	name:    "v1-run",
	args:    "[THREAD_ID] MESSAGE",
	summary: "send a message on /v1 and stream the reply; tool calls are printed, not run",
	long: `Send MESSAGE ("-" reads it from stdin) to a /v1 thread, or to a new one with
--new, and stream the reply's text to stdout. The run's thread and run ids go
to stderr. No tool is run: a run that pauses for client tools ends with
"pending tool call: ID NAME ARGUMENTS" lines on stdout (exit 0); answer them
with the SDK (runs.ToolResult). A run that ends paused for a person's input
(AG-UI's interrupt outcome) ends with "interrupt: ID REASON: MESSAGE" lines
on stdout, "(tool call ID TOOL ARGUMENTS)" before the colon for an approval
(exit 0); the next run answers them (runs.RunParams.Resume). On an existing
thread the message continues its last completed run (--previous-run, default
the thread's). The model's reasoning is not shown unless --reasoning asks for
it (on stderr). A run that fails says why on stderr and exits 1; one
cancelled (v1-cancel, another client) says so on stderr and exits 3, also
when it ended RUN_FINISHED or RUN_ERROR INTERNAL_ERROR while the thread says
it was cancelled (the thread is read once to tell); Ctrl-C cancels it and
exits 130.`,
	example: `  threads v1-run --user-key user-1 --new "hello"
  threads v1-run --user-key user-1 thr_123 "and then?" --json | jq -r 'select(.kind=="text").delta'`,
	flags: func(fs *flag.FlagSet) {
		v1Flags(fs)
		fs.Bool("new", false, "create a thread for the message")
		fs.String("previous-run", "", "the run this one continues (default: the thread's last completed run)")
		fs.Bool("json", false, "one JSON object per line (see \"threads help json\")")
		fs.Bool("reasoning", false, "also print the model's reasoning: to stderr, or as \"reasoning\" lines with --json")
	},
	run: func(e *env, cl *call) int {
		want := 2
		if cl.bool("new") {
			want = 1
			if cl.str("previous-run") != "" {
				// A new thread has no run to continue: the service would
				// answer 400 after creating the thread.
				return cl.usageError(e, "--previous-run names a run of an existing thread; it cannot go with --new")
			}
		}
		if !cl.nargs(e, want, want) {
			return exitUsage
		}
		text := cl.args[want-1]
		if text == "-" {
			if cl.keyFromStdin {
				return cl.usageError(e, "MESSAGE - and --api-key-stdin both read stdin")
			}
			var err error
			if text, err = readMessage(e.stdin); err != nil {
				return cl.usageError(e, "reading the message from stdin: %v", err)
			}
		}
		if strings.TrimSpace(text) == "" {
			return cl.usageError(e, "the message is empty")
		}
		c, ok := cl.v1Client(e)
		if !ok {
			return exitUsage
		}
		ctx, stop := interruptible(e)
		defer stop()
		p := runs.RunParams{Content: []runs.Content{runs.Text(text)}, PreviousRunID: cl.str("previous-run")}
		var st *runs.Stream
		var err error
		if cl.bool("new") {
			st, err = c.CreateAndRun(ctx, runs.CreateRunParams{RunParams: p})
		} else {
			id := cl.args[0]
			if p.PreviousRunID == "" {
				th, err := c.GetThread(ctx, id)
				if err != nil {
					return v1Fail(e, err)
				}
				p.PreviousRunID = th.LastCompletedRunID
			}
			st, err = c.Run(ctx, id, p)
		}
		if err != nil {
			return v1Fail(e, err)
		}
		defer st.Close()
		js, reasoning := cl.bool("json"), cl.bool("reasoning")
		reasonMid := false // the reasoning printed to stderr ended mid-line
		endReasoning := func() {
			if reasonMid {
				fmt.Fprintln(e.stderr)
				reasonMid = false
			}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		var werr error
		out := func(l runLine) {
			if werr == nil {
				werr = enc.Encode(l)
			}
		}
		started := false
		names := map[string]string{} // component id -> name
		midLine := false             // text mode: the last text ended mid-line
		newline := func() {
			if midLine {
				fmt.Fprintln(e.stdout)
				midLine = false
			}
		}
		var usage []runs.TokenUsage
		var interrupts []runs.Interrupt
		for st.Next() {
			switch ev := st.Current().(type) {
			case runs.RunFinished:
				usage = addUsage(usage, ev.Usage)
				if ev.Ending != nil && len(ev.Ending.Interrupts) > 0 {
					interrupts = ev.Ending.Interrupts[:min(len(ev.Ending.Interrupts), maxShownInterrupts)]
					if !js {
						newline()
						endReasoning()
						for _, in := range interrupts {
							fmt.Fprintln(e.stdout, interruptLine(in))
						}
					}
				}
			case runs.RunErrorEvent:
				usage = addUsage(usage, ev.Usage)
			case runs.ComponentStart:
				if len(names) < 1024 {
					names[ev.ComponentID] = ev.ComponentName
				}
			case runs.RunStarted:
				if !started {
					started = true
					if js {
						out(runLine{Kind: "start", ThreadID: st.ThreadID(), RunID: st.RunID()})
					} else {
						fmt.Fprintf(e.stderr, "thread %s run %s\n", field(st.ThreadID()), field(st.RunID()))
					}
				}
			case runs.TextMessageContent:
				endReasoning()
				if js {
					out(runLine{Kind: "text", MessageID: ev.MessageID, Delta: ev.Delta})
				} else {
					fmt.Fprint(e.stdout, termTextKeepNewlines(ev.Delta))
					midLine = !strings.HasSuffix(ev.Delta, "\n")
				}
			case runs.ReasoningMessageContent:
				if reasoning && js {
					out(runLine{Kind: "reasoning", MessageID: ev.MessageID, Delta: ev.Delta})
				} else if reasoning {
					fmt.Fprint(e.stderr, termTextKeepNewlines(ev.Delta))
					reasonMid = !strings.HasSuffix(ev.Delta, "\n")
				}
			case runs.ReasoningMessageEnd:
				endReasoning()
			case runs.ComponentEnd:
				name := names[ev.ComponentID]
				if js {
					out(runLine{Kind: "component", ComponentID: ev.ComponentID, Name: name, Props: ev.FinalProps})
				} else {
					b, _ := json.Marshal(ev.FinalProps)
					newline()
					fmt.Fprintf(e.stdout, "[component %s %s]\n", field(name), field(string(b)))
				}
			case runs.AwaitingInput:
				for _, pc := range ev.PendingToolCalls {
					if js {
						out(runLine{Kind: "tool_call", ToolCallID: pc.ToolCallID, ToolName: pc.ToolName, Arguments: pc.Arguments})
					} else {
						newline()
						fmt.Fprintf(e.stdout, "pending tool call: %s %s %s\n", field(pc.ToolCallID), field(pc.ToolName), field(pc.Arguments))
					}
				}
			}
		}
		if ctx.Err() == nil {
			// A RUN_FINISHED or RUN_ERROR INTERNAL_ERROR may hide a cancel
			// from elsewhere: the thread says how the run was stored.
			if _, err := st.CheckCancelled(ctx); err != nil {
				fmt.Fprintf(e.stderr, "threads: could not read the thread to check the run's end: %s\n", oneLine(err))
			}
		}
		serr := st.Err()
		if js {
			l := runLine{Kind: "end", ThreadID: st.ThreadID(), RunID: st.RunID(), Outcome: st.Outcome().String(), Usage: usage}
			for _, in := range interrupts {
				l.Interrupts = append(l.Interrupts, runInterrupt(in))
			}
			if st.Outcome() == runs.OutcomeFinished && len(interrupts) > 0 {
				// The stream reads an interrupt ending as finished; the
				// line says it is paused, as awaiting_tools does.
				l.Outcome = runs.EndingInterrupt
			}
			if serr != nil {
				l.Error = oneLine(serr)
			}
			out(l)
		} else {
			newline()
			endReasoning()
		}
		if serr != nil {
			return v1Fail(e, serr)
		}
		if st.Outcome() == runs.OutcomeCancelled {
			if ctx.Err() != nil {
				// Ctrl-C: the stream's Close cancels the run on the service.
				fmt.Fprintln(e.stderr, "threads: interrupted; the run is cancelled on the service")
				return exitInterrupted
			}
			if werr != nil {
				return fail(e, werr)
			}
			return cancelled(e, "run "+field(st.RunID()))
		}
		return done(e, werr)
	},
}

// termTextKeepNewlines shows streamed text safely, line breaks kept.
func termTextKeepNewlines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = field(l)
	}
	return strings.Join(lines, "\n")
}

var v1CancelCmd = &command{
	name:    "v1-cancel",
	args:    "THREAD_ID RUN_ID",
	summary: "cancel a /v1 run by its id",
	long: `Cancel run RUN_ID of /v1 thread THREAD_ID, started anywhere, for the end user
(--user-key or $THREADS_USER_KEY); "cancelled run RUN_ID" goes to stderr. The
run's stream ("threads v1-run") then ends and exits 3. A run that has already
ended (or was cancelled before) is 404: exit 1.`,
	example: `  threads v1-cancel --user-key user-1 thr_123 run_456`,
	flags:   v1Flags,
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 2, 2) {
			return exitUsage
		}
		c, ok := cl.v1Client(e)
		if !ok {
			return exitUsage
		}
		ctx, stop := interruptible(e)
		defer stop()
		if err := c.Cancel(ctx, cl.args[0], cl.args[1]); err != nil {
			return v1Fail(e, err)
		}
		fmt.Fprintf(e.stderr, "cancelled run %s\n", field(cl.args[1]))
		return exitOK
	},
}

var v1CreateCmd = &command{
	name:    "v1-create",
	summary: "create a /v1 thread for the end user and print its id",
	long: `Create a /v1 thread for the end user (--user-key or $THREADS_USER_KEY) and
print its id on stdout (with --json: the thread). --name names it: the
service's create takes no name, so the name is a second call (PATCH); if that
one fails, the thread exists unnamed and its id is on stderr.`,
	example: `  id=$(threads v1-create --user-key user-1 --name support --metadata '{"topic":"billing"}')
  threads v1-run --user-key user-1 "$id" "hello"`,
	flags: func(fs *flag.FlagSet) {
		v1Flags(fs)
		fs.String("name", "", "the thread's name")
		fs.String("metadata", "", "the thread's metadata, a JSON object")
		fs.Bool("json", false, "print the thread as JSON (see \"threads help json\")")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 0, 0) {
			return exitUsage
		}
		var params runs.CreateThreadParams
		if m := cl.str("metadata"); m != "" {
			if err := json.Unmarshal([]byte(m), &params.Metadata); err != nil || params.Metadata == nil {
				return cl.usageError(e, "--metadata: want a JSON object, such as '{\"topic\":\"billing\"}'")
			}
		}
		c, ok := cl.v1Client(e)
		if !ok {
			return exitUsage
		}
		ctx, stop := interruptible(e)
		defer stop()
		t, err := c.CreateThread(ctx, params)
		if err != nil {
			return v1Fail(e, err)
		}
		if name := cl.str("name"); name != "" {
			named, err := c.UpdateThread(ctx, t.ID, runs.UpdateThreadParams{Name: name})
			if err != nil {
				fmt.Fprintf(e.stderr, "threads: created thread %s, but naming it failed\n", field(t.ID))
				return v1Fail(e, err)
			}
			t = named
		}
		if cl.bool("json") {
			return done(e, printJSON(e.stdout, t))
		}
		fmt.Fprintln(e.stdout, field(t.ID))
		return exitOK
	},
}

var v1GetCmd = &command{
	name:    "v1-get",
	args:    "THREAD_ID",
	summary: "show a /v1 thread, its last run and its messages",
	long: `Show /v1 thread THREAD_ID of the end user (--user-key or $THREADS_USER_KEY):
its user key, run status, current run, last run (the one the next run names
as previousRunId) and how many tool calls it waits for, then its messages,
oldest first, with their tool calls, tool results and components. An unknown
thread, or another user's, is 403.`,
	example: `  threads v1-get --user-key user-1 thr_123
  threads v1-get --user-key user-1 thr_123 --json | jq -r .lastCompletedRunId`,
	flags: func(fs *flag.FlagSet) {
		v1Flags(fs)
		fs.Bool("json", false, "print the thread with its messages as JSON (see \"threads help json\")")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 1, 1) {
			return exitUsage
		}
		c, ok := cl.v1Client(e)
		if !ok {
			return exitUsage
		}
		ctx, stop := interruptible(e)
		defer stop()
		t, err := c.GetThread(ctx, cl.args[0])
		if err != nil {
			return v1Fail(e, err)
		}
		if cl.bool("json") {
			return done(e, printJSON(e.stdout, t))
		}
		w := tabwriter.NewWriter(e.stdout, len("pending tools")+2, 4, 2, ' ', 0)
		fmt.Fprintf(w, "id\t%s\nname\t%s\nuser key\t%s\nrun status\t%s\n",
			field(t.ID), orDash(t.Name), orDash(t.UserKey), orDash(string(t.RunStatus)))
		if t.CurrentRunID != "" {
			fmt.Fprintf(w, "current run\t%s\n", field(t.CurrentRunID))
		}
		if t.LastCompletedRunID != "" {
			last := field(t.LastCompletedRunID)
			switch {
			case t.LastRunError != nil:
				last += " (failed: " + orDash(t.LastRunError.Code) + ")"
			case t.LastRunCancelled:
				last += " (cancelled)"
			}
			fmt.Fprintf(w, "last run\t%s\n", last)
		}
		if n := len(t.PendingToolCallIDs); n > 0 {
			fmt.Fprintf(w, "pending tools\t%d\n", n)
		}
		fmt.Fprintf(w, "created\t%s\nupdated\t%s\n", when(t.CreatedAt), when(t.UpdatedAt))
		w.Flush()
		if len(t.Messages) > 0 {
			fmt.Fprintln(e.stdout)
		}
		for _, m := range t.Messages {
			printV1Message(e, m)
		}
		return exitOK
	},
}

// printV1Message prints one message as "role: text", its tool calls,
// results and components named in brackets.
func printV1Message(e *env, m runs.Message) {
	fmt.Fprintf(e.stdout, "%s: %s", field(string(m.Role)), strings.TrimSpace(termtext.Text(m.Text())))
	for _, p := range m.Content {
		switch p.Type {
		case runs.ContentToolUse:
			fmt.Fprintf(e.stdout, " [calls tool %s]", field(p.Name))
		case runs.ContentToolResult:
			fmt.Fprintf(e.stdout, " [tool result for %s]", field(p.ToolUseID))
		case runs.ContentComponent:
			fmt.Fprintf(e.stdout, " [component %s]", field(p.Name))
		}
	}
	if m.IsCancelled {
		fmt.Fprint(e.stdout, " [cancelled]")
	}
	fmt.Fprintln(e.stdout)
}

var v1MessagesCmd = &command{
	name:    "v1-messages",
	args:    "THREAD_ID",
	summary: "list a /v1 thread's messages, oldest first",
	long: `List the messages of a /v1 thread of the end user: one page (--limit,
--cursor), or every page with --all; oldest first, or newest first with
--order desc. Without --all, the next page's cursor is printed on stderr.`,
	example: `  threads v1-messages --user-key user-1 thr_123
  threads v1-messages --user-key user-1 thr_123 --all --json | jq -r 'select(.role=="assistant").content[0].text'`,
	flags: func(fs *flag.FlagSet) {
		v1Flags(fs)
		v1PageFlags(fs, 50, "message")
		fs.String("order", "asc", "asc (oldest first) or desc (newest first)")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 1, 1) || !cl.checkPage(e) {
			return exitUsage
		}
		order := runs.Order(cl.str("order"))
		if order != runs.OrderAsc && order != runs.OrderDesc {
			return cl.usageError(e, "--order %s: want asc or desc", field(string(order)))
		}
		c, ok := cl.v1Client(e)
		if !ok {
			return exitUsage
		}
		ctx, stop := interruptible(e)
		defer stop()
		id := cl.args[0]
		params := &runs.ListMessagesParams{Limit: cl.int("limit"), Cursor: cl.str("cursor"), Order: order}
		return v1Listing(e, cl, "(no messages)", c.AllMessages(ctx, id, params, allBound()),
			func() ([]runs.Message, string, bool, error) {
				page, err := c.ListMessages(ctx, id, params)
				if err != nil {
					return nil, "", false, err
				}
				return page.Items, page.NextCursor, page.HasMore, nil
			},
			func(items []runs.Message) {
				for _, m := range items {
					printV1Message(e, m)
				}
			})
	},
}

var v1DeleteCmd = &command{
	name:    "v1-delete",
	args:    "THREAD_ID",
	summary: "delete a /v1 thread and its messages",
	long: `Delete a /v1 thread of the end user and its messages. A run in progress on
it ends with an error. Deleting it again fails (exit 1): the service answers
403, as for any thread the end user cannot see.`,
	example: `  threads v1-delete --user-key user-1 thr_123`,
	flags:   v1Flags,
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 1, 1) {
			return exitUsage
		}
		c, ok := cl.v1Client(e)
		if !ok {
			return exitUsage
		}
		ctx, stop := interruptible(e)
		defer stop()
		if err := c.DeleteThread(ctx, cl.args[0]); err != nil {
			return v1Fail(e, err)
		}
		fmt.Fprintf(e.stderr, "deleted thread %s\n", field(cl.args[0]))
		return exitOK
	},
}

// jsonHelp is "threads help json": every --json output, field by field,
// with the JSON names as printed (not the SDK's Go names).
const jsonHelp = `The --json outputs of threads, field by field. Names are the JSON names as
printed (the SDK's Go names differ: the spec routes' reply message is
"responseMessageDto" on the wire and Message in Go; here it is always the
JSON name). Fields that are empty may be left out.

list --json, list --all --json: one thread per line (NDJSON), the same shape
with and without --all:
  id, projectId, name, contextKey     strings
  generationStage                     IDLE, STREAMING_RESPONSE, COMPLETE, ...
  statusMessage                       string
  createdAt, updatedAt                RFC 3339 times
  metadata                            object
  jq: threads list --all --json | jq -r .id

create --json, cancel --json: the thread, as one line of list --json
(indented).
  jq: threads create --json | jq -r .id

get --json: the thread with "messages": each message has id, threadId,
role (user, assistant, system, tool), content (parts: type, text, ...),
componentState, toolCallRequest, createdAt, ...
  jq: threads get ID --json | jq -r '.messages[].role'

send --json (and the replies of chat's scripts): one event per line:
  responseMessageDto                  the whole message so far (Message in Go):
                                      id, threadId, role, content, ...
  generationStage                     the thread's stage at this snapshot
  statusMessage                       string
  textDelta                           text to append to what was shown
  textReset                           true: discard what was shown of the
                                      message; textDelta is its whole text
  The exit status says how the reply ended: 0 complete, 1 failed, 3
  cancelled (generationStage CANCELLED), 130 interrupted.
  jq: threads send --new hi --json | jq -rj '.textDelta // empty'

v1-list --json: one /v1 thread per line (NDJSON), with and without --all:
  id, name, userKey                   strings
  runStatus                           idle, waiting, streaming
  currentRunId                        the active run, while not idle
  pendingToolCallIds                  calls whose results the next run must carry
  lastCompletedRunId                  the previousRunId the next run must name
  lastRunCancelled                    boolean
  lastRunError                        {code, message}
  metadata                            object
  createdAt, updatedAt                RFC 3339 times
  jq: threads v1-list --all --json | jq -r 'select(.runStatus=="idle").id'

v1-create --json: the new thread, as one line of v1-list --json (indented).
  jq: threads v1-create --json | jq -r .id

v1-get --json: the thread, as in v1-list --json, with "messages", oldest
first, each as one line of v1-messages --json.
  jq: threads v1-get ID --json | jq -r '.lastRunError.code // empty'

v1-messages --json, v1-messages --all --json: one message per line (NDJSON):
  id                                  string
  role                                user, assistant (a tool result is an
                                      assistant message)
  content                             parts; "type" says which fields are set:
    text                              text
    resource                          resource {uri, name, mimeType, text, ...}
    tool_use                          id, name, input (the arguments)
    tool_result                       toolUseId, content (parts), isError
    component                         id, name, props, state
  createdAt                           RFC 3339 time (milliseconds)
  metadata                            object
  parentMessageId                     string
  isCancelled                         true: a cancelled run cut the message
  jq: threads v1-messages ID --all --json | jq -r 'select(.role=="user").content[0].text'

v1-run --json: one object per line; "kind" says which:
  start      threadId, runId
  text       messageId, delta         (the reply's text is the deltas joined)
  reasoning  messageId, delta         (--reasoning: the model's reasoning; no
             messageId under the service's THINKING_* names)
  component  componentId, name, props (the final props)
  tool_call  toolCallId, toolName, arguments (JSON text): a pending call
  end        threadId, runId, outcome (finished, awaiting_tools, interrupt,
             cancelled, failed), error (on failure), usage (when the run
             reported its token usage: one object per provider and model,
             summed: provider, model, inputTokens, outputTokens,
             totalTokens, reasoningTokens, cachedInputTokens,
             cacheWriteInputTokens), interrupts (when the run ended with
             AG-UI's interrupt outcome, then outcome interrupt: what it
             waits on, AG-UI's: id, reason, message, toolCallId,
             responseSchema, expiresAt, metadata, subagentRunId; empty
             ones left out; the next run answers them by id)
  The exit status says how the run ended too: 0 finished, awaiting_tools or
  interrupt, 1 failed, 3 cancelled, 130 interrupted.
  jq: threads v1-run --new hi --json | jq -rj 'select(.kind=="text").delta'
`
