package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/chatui"
)

var sendCmd = &command{
	name:    "send",
	args:    "ID TEXT | --new TEXT",
	summary: "send a message and stream the reply",
	long: "Send TEXT to thread ID (or, with --new, to a new thread) and stream the reply to stdout as it\n" +
		"arrives. TEXT - reads the message from stdin (less the line break that ends it). Ctrl-C stops\n" +
		"the reply and cancels the generation on the service (exit status 130). A reply cancelled\n" +
		"elsewhere (threads cancel ID, another client) says so on stderr and exits 3; one that\n" +
		"failed exits 1.",
	example: `  threads send --new "Write a haiku about Go."
  threads send thr_aB3dE9xZ.1f2e3d "And another one."
  git log -1 --format=%B | threads send --new -
  threads send --new --json "hi" | jq -r ".textDelta // empty"`,
	flags: func(fs *flag.FlagSet) {
		fs.Bool("new", false, "start a new thread (its id is printed on stderr)")
		fs.String("context-key", "", "the thread's context key")
		fs.Bool("json", false, "print each event as one JSON line (NDJSON) instead of the text")
	},
	run: runSend,
}

func runSend(e *env, cl *call) int {
	isNew := cl.bool("new")
	var id, text string
	switch {
	case isNew && len(cl.args) == 1:
		text = cl.args[0]
	case !isNew && len(cl.args) == 2:
		id, text = cl.args[0], cl.args[1]
	default:
		return cl.usageError(e, "want ID TEXT, or --new TEXT")
	}
	if text == "-" {
		if cl.keyFromStdin {
			return cl.usageError(e, "TEXT - and --api-key-stdin both read stdin")
		}
		var err error
		if text, err = readMessage(e.stdin); err != nil {
			return cl.usageError(e, "reading the message from stdin: %v", err)
		}
	}
	if strings.TrimSpace(text) == "" {
		return cl.usageError(e, "the message is empty")
	}
	client, ok := cl.client(e)
	if !ok {
		return exitUsage
	}

	ctx, stop := interruptible(e)
	params := threads.AdvanceParams{Message: threads.UserMessage(text), ContextKey: cl.str("context-key")}
	var stream *threads.Stream
	var err error
	if isNew {
		stream, err = client.Threads.CreateAndAdvanceStream(ctx, params)
	} else {
		stream, err = client.Threads.AdvanceStream(ctx, id, params)
	}
	var last threads.StreamEvent
	if err == nil {
		id, last, err = printStream(e, stream, id, cl.bool("json"))
	}
	interrupted := stop()
	if isNew && id != "" && !cl.bool("json") {
		fmt.Fprintf(e.stderr, "[thread %s]\n", field(id))
	}
	if !interrupted {
		if err != nil {
			return fail(e, err)
		}
		return replyEnd(e, id, last)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return fail(e, err)
	}
	// Hanging up does not stop the service; Cancel does.
	if id == "" {
		fmt.Fprintln(e.stderr, "threads: interrupted before the service named the thread; nothing to cancel")
		return exitInterrupted
	}
	ctx, stop = interruptible(e) // a second Ctrl-C gives up on cancelling
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := client.Threads.Cancel(ctx, id); err != nil {
		fail(e, fmt.Errorf("threads: stopped the reply, but cancelling the generation failed: %w", err))
		return exitInterrupted
	}
	fmt.Fprintf(e.stderr, "threads: interrupted; generation cancelled on thread %s\n", field(id))
	return exitInterrupted
}

// printStream prints the reply as it arrives and returns the thread's id
// (from the events, for a new thread), the last event (whose stage says
// how the reply ended) and the stream's error.
func printStream(e *env, stream *threads.Stream, id string, asJSON bool) (string, threads.StreamEvent, error) {
	defer stream.Close()
	enc := json.NewEncoder(e.stdout)
	p := chatui.NewPrinter(e.stdout)
	var last threads.StreamEvent
	for stream.Next() {
		last = stream.Current()
		if id == "" {
			id = last.Message.ThreadID
		}
		if asJSON {
			if err := enc.Encode(last); err != nil {
				return id, last, err
			}
			continue
		}
		p.Print(last)
	}
	p.EndLine()
	return id, last, stream.Err()
}

// replyEnd is the exit status of a reply whose stream ended without an
// error, from the stage of its last snapshot: CANCELLED (threads cancel,
// or another client, stopped the generation) and ERROR say so on stderr.
func replyEnd(e *env, id string, last threads.StreamEvent) int {
	what := "the reply"
	if id != "" {
		what += " on thread " + field(id)
	}
	switch last.GenerationStage {
	case threads.GenerationStageCancelled:
		return cancelled(e, what)
	case threads.GenerationStageError:
		msg := what + " failed"
		if s := field(last.StatusMessage); s != "" {
			msg += ": " + s
		}
		fmt.Fprintf(e.stderr, "threads: %s\n", msg)
		return exitFailed
	}
	return exitOK
}

var chatCmd = &command{
	name:    "chat",
	args:    "[ID]",
	summary: "chat interactively on a new thread or thread ID",
	long: "Chat on thread ID, or on a new thread: each line you type is sent and the reply streams back.\n" +
		"/new starts a new thread; Ctrl-C stops a reply (and cancels its generation); Ctrl-D, or Ctrl-C\n" +
		"at the prompt, exits.",
	example: `  threads chat
  threads chat thr_aB3dE9xZ.1f2e3d`,
	flags: func(fs *flag.FlagSet) {
		fs.String("project", "", "the project for new threads (default $THREADS_PROJECT_ID, else the key's project)")
	},
	run: func(e *env, cl *call) int {
		if !cl.nargs(e, 0, 1) {
			return exitUsage
		}
		if cl.keyFromStdin {
			return cl.usageError(e, "chat reads stdin: set THREADS_API_KEY instead of --api-key-stdin")
		}
		client, ok := cl.client(e)
		if !ok {
			return exitUsage
		}
		cfg := chatui.Config{Client: client, In: e.stdin, Out: e.stdout, Interrupt: e.interrupt}
		if len(cl.args) == 1 {
			cfg.ThreadID = cl.args[0]
		}
		if p := cl.str("project"); p != "" {
			cfg.ProjectID = p
		} else {
			cfg.ProjectID = strings.TrimSpace(envProject())
		}
		if err := chatui.Run(cfg); err != nil {
			return fail(e, err)
		}
		return exitOK
	},
}
