// Command threads is a command-line client for the Conversation Threads API,
// built on the threads-go SDK: list, create, read and cancel threads, send a
// message and stream the reply, chat, and run a local fake of the service.
//
//	go install github.com/threadsapi/threads-go/cmd/threads@latest
//	threads fake > fake.env &           # a local fake; its lines set the environment
//	eval "$(cat fake.env)"
//	threads send --new "hello"
//
// It reads the SDK's environment: THREADS_BASE_URL, THREADS_API_KEY and
// THREADS_API_KEY_HEADER (and THREADS_PROJECT_ID, the project for new
// threads; default: the key's project). The key
// is read from the environment or, with --api-key-stdin, from the first line
// of the standard input; never from a flag, which would show in ps and in
// the shell's history.
//
// Exit status: 0 success, 1 the service refused or failed (one line on
// stderr), 2 a usage or configuration error, 130 interrupted (Ctrl-C).
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
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(interrupt)
	return run(args, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, interrupt: interrupt})
}
