// Package scripttest holds the script tests of the threads command
// (testdata/script/*.txtar, run with testscript). It is a module of its
// own so that testscript and its dependencies (go-internal, x/tools,
// x/sys) stay out of the SDK's go.mod and so out of its users' builds:
//
//	cd cmd/threads/scripttest && go test ./...
//
// The tests build the command from this checkout (the replace directive in
// go.mod) and run it as "threads" against fakes started in the test
// process.
package scripttest
