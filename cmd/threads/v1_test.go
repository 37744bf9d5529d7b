package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// v1-run shows the model's reasoning only with --reasoning: on stderr,
// or as "reasoning" lines with --json; stdout's reply never holds it.
func TestV1RunReasoning(t *testing.T) {
	srv := threadstest.Start()
	t.Cleanup(srv.Close)
	t.Setenv(threads.EnvBaseURL, srv.URL)
	t.Setenv(threads.EnvAPIKey, srv.APIKey)
	t.Setenv(threads.EnvAPIKeyHeader, "")
	v1Run := func(args ...string) (string, string) {
		t.Helper()
		srv.PushRunScript(threadstest.RunScript{Text: "Hello!", Reasoning: &threadstest.RunReasoning{Blocks: []string{"Greet back.", "Keep it short."}}})
		var stdout, stderr bytes.Buffer
		status := run(append([]string{"v1-run", "--user-key", "u"}, args...), &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, interrupt: make(chan os.Signal)})
		assert.Equal(t, exitOK, status, stderr.String())
		return stdout.String(), stderr.String()
	}

	out, errOut := v1Run("--new", "hi")
	assert.Equal(t, "Hello!\n", out)
	assert.NotContains(t, errOut, "Greet")

	out, errOut = v1Run("--new", "--reasoning", "hi")
	assert.Equal(t, "Hello!\n", out)
	assert.Regexp(t, `^thread thr_\S+ run run_\S+\nGreet back\.\nKeep it short\.\n$`, errOut)

	out, _ = v1Run("--new", "--json", "hi")
	assert.NotContains(t, out, `"reasoning"`)
	out, _ = v1Run("--new", "--json", "--reasoning", "hi")
	assert.Contains(t, out, `{"kind":"reasoning","delta":"Greet "}`+"\n")
	assert.Equal(t, 5, strings.Count(out, `"kind":"reasoning"`)) // one per word
	assert.Equal(t, 1, strings.Count(out, `"kind":"text"`))
}

// A 403 on a thread's route hints that the thread may be unknown or
// another end user's, whatever the thread's id: the route comes from the
// error, so an id that spells another route ("runs": GET
// /v1/threads/runs) is still a thread's.
func TestV1ForbiddenThreadHint(t *testing.T) {
	srv := threadstest.Start()
	t.Cleanup(srv.Close)
	t.Setenv(threads.EnvBaseURL, srv.URL)
	t.Setenv(threads.EnvAPIKey, srv.APIKey)
	t.Setenv(threads.EnvAPIKeyHeader, "")
	for _, id := range []string{"thr_unknown.1", "runs"} {
		var stdout, stderr bytes.Buffer
		status := run([]string{"v1-get", "--user-key", "u", id}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, interrupt: make(chan os.Signal)})
		assert.NotEqual(t, exitOK, status)
		assert.Contains(t, stderr.String(), "the thread may not exist or may belong to another end user", id)
	}
}
