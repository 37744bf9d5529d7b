// Package aguischema holds one test: every AG-UI event type that the fake
// (package threadstest) writes validates against AG-UI's JSON Schema (the
// draft of runs/testdata/agui, JSON Schema 2020-12), with the exceptions
// the test lists: the pre-1.0 THINKING_* names the service still sends,
// and the service's own members of RUN_ERROR.
//
// It is a module of its own so that its validator
// (github.com/santhosh-tekuri/jsonschema/v6) never reaches the module
// graph of a program that uses the SDK. Run it with
//
//	cd threadstest/aguischema && go test ./...
package aguischema
