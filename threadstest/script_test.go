package threadstest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// TestScriptSnapshotsRewrite: Script.Snapshots streams a message whose text
// is rewritten, so a user can test how their code handles TextReset.
func TestScriptSnapshotsRewrite(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutListener())
	srv.PushScript(threadstest.Script{Snapshots: []string{"Hello wor", "Hello world", "Hi there"}})
	s, err := srv.Client().Threads.CreateAndAdvanceStream(t.Context(), threads.AdvanceParams{Message: threads.UserMessage("hi")})
	require.NoError(t, err)
	type step struct {
		delta string
		reset bool
	}
	var got []step
	shown, stage := "", threads.GenerationStage("")
	for ev, err := range s.All() {
		require.NoError(t, err)
		stage = ev.GenerationStage
		if ev.TextReset {
			shown = ""
		}
		shown += ev.TextDelta
		if ev.TextDelta != "" || ev.TextReset {
			got = append(got, step{ev.TextDelta, ev.TextReset})
		}
	}
	assert.Equal(t, []step{{"Hello wor", false}, {"ld", false}, {"Hi there", true}}, got)
	assert.Equal(t, "Hi there", shown)
	require.Len(t, s.Messages(), 1)
	assert.Equal(t, threads.GenerationStageComplete, stage)

	th, err := srv.Client().Threads.Get(t.Context(), srv.ThreadIDs()[0])
	require.NoError(t, err)
	require.Len(t, th.Messages, 2)
	assert.Equal(t, "Hi there", th.Messages[1].Text(), "stored with its last text")
}
