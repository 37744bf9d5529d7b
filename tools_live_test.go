package threads_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

type liveTicketArgs struct {
	Title    string `json:"title" description:"A short title for the ticket"`
	Priority string `json:"priority" description:"The ticket's urgency. prio-1-top is the most urgent, prio-3-low the least." enum:"prio-3-low,prio-2-mid,prio-1-top"`
}

// Against the live service (see live_test.go): a tool with an enum
// parameter is called with one of its enum values, which the model can
// only know if the enum reached it (a made-up name like "prio-1-top" is
// not guessed from "priority": {"type": "string"}); the tool's arguments
// decode, so the tool runs and the run completes.
func TestLiveToolEnum(t *testing.T) {
	c, ctx := liveClient(t)
	th := liveThread(t, c, ctx)
	var got []any // each call's priority argument, before NewTool checks it
	tool := threads.NewTool("file_ticket", "Files a support ticket.", func(_ context.Context, a liveTicketArgs) (string, error) {
		return "ticket T-1 filed", nil
	})
	decode := tool.Call
	tool.Call = func(ctx context.Context, call threads.ToolCall) (string, error) {
		got = append(got, call.Arguments["priority"])
		return decode(ctx, call)
	}
	s, err := c.Threads.RunStream(ctx, th.ID, threads.AdvanceParams{
		Message:         threads.UserMessage("The production database is down. File a ticket with the most urgent priority. Use the tool."),
		ForceToolChoice: "file_ticket",
	}, []threads.Tool{tool}, threads.WithMaxToolRounds(2))
	require.NoError(t, err)
	msgs, err := s.Collect()
	require.NoError(t, err)
	require.NotEmpty(t, msgs)
	if len(got) == 0 {
		t.Skip("the model answered without calling the tool")
	}
	assert.True(t, slices.Contains([]any{"prio-3-low", "prio-2-mid", "prio-1-top"}, got[0]), "the model passed %#v, not one of the enum's values", got[0])
	assert.Equal(t, "prio-1-top", got[0], "the model read the description")
}
