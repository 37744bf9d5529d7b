//go:build !unix

package scripttest

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// goRunFake: see gorun_unix_test.go; the scripts that use it are Unix
// only.
type goRunFake struct{}

func goRunFakeCmd(string) func(ts *testscript.TestScript, neg bool, args []string) {
	return unixOnly
}

func cmdKillGoRun(ts *testscript.TestScript, neg bool, args []string) { unixOnly(ts, neg, args) }

func fakeStops(*testing.T) func(ts *testscript.TestScript, neg bool, args []string) {
	return unixOnly
}

// unixOnly fails: a script that uses these commands starts with
// "[!unix] skip".
func unixOnly(ts *testscript.TestScript, _ bool, _ []string) {
	ts.Fatalf("needs a Unix process group and signals: start the script with [!unix] skip")
}
