package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/termtext"
)

var listCmd = &command{
	name:    "list",
	summary: "list threads, newest first (one page, or every page with --all)",
	long: `List the project's threads, newest first: one page (--limit, --offset; the
range and the total go to stderr), or every page with --all. Without
--context-key only the threads without one are listed, as the service lists
them; --project lists through GET /threads/project/{id} (without it the
spec's GET /threads, or the key's project where the service lacks that
route).`,
	example: `  threads list --context-key user-42
  threads list --all --json | jq -r .id`,
	flags: func(fs *flag.FlagSet) {
		fs.String("context-key", "", "list the threads with this context key (default: those without one)")
		fs.String("project", "", "list this project's threads (GET /threads/project/{id})")
		fs.Bool("all", false, "every page, not only the first")
		fs.Int("limit", 0, "page size (default: the service's)")
		fs.Int("offset", 0, "skip this many threads")
		fs.Bool("json", false, "one JSON thread per line (NDJSON), with and without --all\n(see \"threads help json\")")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 0, 0) {
			return exitUsage
		}
		client, ok := cl.client(e)
		if !ok {
			return exitUsage
		}
		if cl.int("limit") < 0 || cl.int("offset") < 0 {
			return cl.usageError(e, "--limit %d --offset %d: neither may be negative", cl.int("limit"), cl.int("offset"))
		}
		params := &threads.ListParams{
			ContextKey: cl.str("context-key"), ProjectID: cl.str("project"),
			Limit: cl.int("limit"), Offset: cl.int("offset"),
		}
		ctx, stop := interruptible(e)
		defer stop()
		if cl.bool("all") {
			items := []threads.Thread{}
			for t, err := range client.Threads.All(ctx, params, allBound()) {
				if err != nil {
					return fail(e, err)
				}
				items = append(items, t)
			}
			if cl.bool("json") {
				return done(e, printLines(e.stdout, items))
			}
			printThreads(e, items)
			return exitOK
		}
		page, err := client.Threads.List(ctx, params)
		if err != nil {
			return fail(e, err)
		}
		if cl.bool("json") {
			// The same shape as --all's: a script need not know which.
			if err := printLines(e.stdout, page.Items); err != nil {
				return done(e, err)
			}
		} else {
			printThreads(e, page.Items)
		}
		if n := page.Offset + len(page.Items); n < page.Total {
			fmt.Fprintf(e.stderr, "(%d-%d of %d; --all lists every thread)\n", page.Offset+1, n, page.Total)
		}
		return exitOK
	},
}

func printThreads(e *env, items []threads.Thread) {
	if len(items) == 0 {
		fmt.Fprintln(e.stderr, "(no threads)")
		return
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tCONTEXT KEY\tSTAGE\tCREATED")
	for _, t := range items {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", field(t.ID), orDash(t.Name), orDash(t.ContextKey),
			orDash(string(t.GenerationStage)), when(t.CreatedAt))
	}
	w.Flush()
}

var createCmd = &command{
	name:    "create",
	summary: "create a thread and print its id",
	long: `Create a thread and print its id on stdout (with --json: the thread). It is
created in --project, else $THREADS_PROJECT_ID, else the API key's project
(one more call). A thread with a context key is listed only with that key
(list --context-key).`,
	example: `  id=$(threads create --name "support chat" --context-key user-42)
  threads send "$id" "hello"`,
	flags: func(fs *flag.FlagSet) {
		fs.String("name", "", "the thread's name")
		fs.String("context-key", "", "the thread's context key")
		fs.String("project", "", "the project (default $THREADS_PROJECT_ID, else the key's project)")
		fs.Bool("json", false, "print the thread as JSON")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 0, 0) {
			return exitUsage
		}
		client, ok := cl.client(e)
		if !ok {
			return exitUsage
		}
		ctx, stop := interruptible(e)
		defer stop()
		project, err := projectID(ctx, client, cl.str("project"))
		if err != nil {
			return fail(e, err)
		}
		t, err := client.Threads.Create(ctx, threads.CreateThreadParams{
			ProjectID: project, Name: cl.str("name"), ContextKey: cl.str("context-key"),
		})
		if err != nil {
			return fail(e, err)
		}
		if cl.bool("json") {
			return done(e, printJSON(e.stdout, t))
		}
		fmt.Fprintln(e.stdout, field(t.ID))
		return exitOK
	},
}

// projectID is the flag's project, else $THREADS_PROJECT_ID, else the key's.
func projectID(ctx context.Context, client *threads.Client, flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if p := strings.TrimSpace(os.Getenv("THREADS_PROJECT_ID")); p != "" {
		return p, nil
	}
	p, err := client.Projects.Current(ctx)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

var getCmd = &command{
	name:    "get",
	args:    "ID",
	summary: "show a thread and its messages",
	long: `Show thread ID and its messages, oldest first: its name, context key (when
known), stage and times, then one line per message, with the tool it calls
and whether it was cancelled. --context-key checks the thread's context key
(another key is 404); without it any thread of the project is shown. An id
that is not a thread of the key's project is 403.`,
	example: `  threads get thr_aB3dE9xZ.1f2e3d
  threads get thr_aB3dE9xZ.1f2e3d --context-key user-42 --json | jq '.messages | length'`,
	flags: func(fs *flag.FlagSet) {
		fs.String("context-key", "", "the thread's context key (the service refuses a mismatch)")
		fs.Bool("json", false, "print the thread with its messages as JSON")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 1, 1) {
			return exitUsage
		}
		client, ok := cl.client(e)
		if !ok {
			return exitUsage
		}
		var opts []threads.RequestOption
		if k := cl.str("context-key"); k != "" {
			opts = append(opts, threads.WithContextKey(k))
		}
		ctx, stop := interruptible(e)
		defer stop()
		t, err := client.Threads.Get(ctx, cl.args[0], opts...)
		if err != nil {
			return fail(e, err)
		}
		if cl.bool("json") {
			return done(e, printJSON(e.stdout, t))
		}
		// The service's GET /threads/{id} answer has no contextKey: a "-"
		// would say the thread has none. Show the key only when it is
		// known: from the answer, or the --context-key the service just
		// accepted (a mismatch is a 404).
		key := t.ContextKey
		if key == "" {
			key = cl.str("context-key")
		}
		// minwidth: the values line up where they do with the context key
		// row, whether or not it is shown.
		w := tabwriter.NewWriter(e.stdout, len("context key")+2, 4, 2, ' ', 0)
		fmt.Fprintf(w, "id\t%s\nname\t%s\n", field(t.ID), orDash(t.Name))
		if key != "" {
			fmt.Fprintf(w, "context key\t%s\n", field(key))
		}
		fmt.Fprintf(w, "stage\t%s\ncreated\t%s\nupdated\t%s\n",
			orDash(string(t.GenerationStage)), when(t.CreatedAt), when(t.UpdatedAt))
		w.Flush()
		if len(t.Messages) > 0 {
			fmt.Fprintln(e.stdout)
		}
		for _, m := range t.Messages {
			fmt.Fprintf(e.stdout, "%s: %s", field(string(m.Role)), strings.TrimSpace(termtext.Text(m.Text())))
			if m.ToolCallRequest != nil {
				fmt.Fprintf(e.stdout, " [calls tool %s]", field(m.ToolCallRequest.ToolName))
			}
			if m.IsCancelled {
				fmt.Fprint(e.stdout, " [cancelled]")
			}
			fmt.Fprintln(e.stdout)
		}
		return exitOK
	},
}

var cancelCmd = &command{
	name:    "cancel",
	args:    "ID",
	summary: "cancel the generation in progress on a thread",
	long: `Cancel the generation in progress on thread ID and print the thread's id
and stage (CANCELLED), or the thread with --json. A stream of the thread
("threads send") then ends and exits 3. The live service answers 500 for a
thread without messages, although it cancels it.`,
	example: `  threads cancel thr_aB3dE9xZ.1f2e3d`,
	flags: func(fs *flag.FlagSet) {
		fs.Bool("json", false, "print the thread as JSON")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 1, 1) {
			return exitUsage
		}
		client, ok := cl.client(e)
		if !ok {
			return exitUsage
		}
		ctx, stop := interruptible(e)
		defer stop()
		t, err := client.Threads.Cancel(ctx, cl.args[0])
		if err != nil {
			return fail(e, err)
		}
		if cl.bool("json") {
			return done(e, printJSON(e.stdout, t))
		}
		fmt.Fprintf(e.stdout, "%s %s\n", field(t.ID), orDash(string(t.GenerationStage)))
		return exitOK
	},
}

// done returns the exit status after writing the output.
func done(e *env, err error) int {
	if err != nil {
		return fail(e, err)
	}
	return exitOK
}

// orDash is field(s), or "-" for an empty s.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return field(s)
}

// field is server text made safe to print as (part of) one line: no escape
// sequence or control character reaches the terminal, and a line break or
// tab becomes a space, so that it cannot fake lines or columns. Every
// server string the CLI prints as text (not --json) goes through field, or
// termtext.Text for multi-line message text.
func field(s string) string { return termtext.Line(s) }

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func (cl *call) str(name string) string { return cl.fs.Lookup(name).Value.(flag.Getter).Get().(string) }
func (cl *call) bool(name string) bool  { return cl.fs.Lookup(name).Value.(flag.Getter).Get().(bool) }
func (cl *call) int(name string) int    { return cl.fs.Lookup(name).Value.(flag.Getter).Get().(int) }
func (cl *call) duration(name string) time.Duration {
	return cl.fs.Lookup(name).Value.(flag.Getter).Get().(time.Duration)
}
