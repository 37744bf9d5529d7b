// Command threads is a command-line client for the Conversation Threads API,
// built on the threads-go SDK: list, create, read and cancel threads, send a
// message and stream the reply, chat, the same for the /v1 API (v1-list,
// v1-create, v1-get, v1-messages, v1-run, v1-cancel, v1-delete), and run a
// local fake of the service.
//
//	go install github.com/threadsapi/threads-go/cmd/threads@latest
//	threads fake > fake.env &           # a local fake; its lines set the environment
//	eval "$(cat fake.env)"
//	threads send --new "hello"
//
// It reads the SDK's environment: THREADS_BASE_URL, THREADS_API_KEY and
// THREADS_API_KEY_HEADER (and THREADS_PROJECT_ID, the project for new
// threads; default: the key's project; THREADS_USER_KEY, the end user of
// the v1 commands). The key
// is read from the environment or, with --api-key-stdin, from the first line
// of the standard input; never from a flag, which would show in ps and in
// the shell's history.
//
// Exit status: 0 success; 1 the service refused or failed, or a run or
// reply failed (one line on stderr); 2 a usage or configuration error; 3 a
// run or reply that ended cancelled (by "threads cancel", "threads
// v1-cancel" or another client; one line on stderr); 130 interrupted
// (Ctrl-C).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(threadsMain(os.Args[1:])) }

// threadsMain runs the command line args with the process's standard
// streams and signals, and returns the exit status.
func threadsMain(args []string) int {
	ppid := os.Getppid() // first: see parentWatcher
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(interrupt)
	return run(args, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, interrupt: interrupt, watchParent: parentWatcher(ppid)})
}
