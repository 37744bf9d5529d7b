package threadstest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// Reasoning scripted under each set of names reaches a runs client as
// the same Go types, and the Result's text is the reply alone, the
// reasoning the reply's.
func TestScriptReasoningEachName(t *testing.T) {
	t.Parallel()
	type script struct {
		names threadstest.ReasoningNames
		phase bool
		enc   string
	}
	for _, tc := range []struct {
		names script
		types []string
		parts int
	}{
		{script{threadstest.ReasoningThinking, true, ""}, []string{
			"THINKING_START", "THINKING_TEXT_MESSAGE_START", "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END",
			"THINKING_TEXT_MESSAGE_START", "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END", "THINKING_END"}, 2},
		{script{threadstest.ReasoningAGUI, true, "enc"}, []string{
			"REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END",
			"REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END", "REASONING_ENCRYPTED_VALUE", "REASONING_END"}, 2},
		{script{threadstest.ReasoningChunks, false, ""}, []string{
			"REASONING_MESSAGE_CHUNK", "REASONING_MESSAGE_CHUNK"}, 1},
	} {
		srv := threadstest.Start()
		defer srv.Close()
		srv.PushRunScript(threadstest.RunScript{Text: "Hi there", Reasoning: &threadstest.RunReasoning{
			Names: tc.names.names, Phase: tc.names.phase, EncryptedValue: tc.names.enc, Blocks: []string{"Think", "Answer"}}})
		s, err := runs.New(srv.Client()).ForUser("u").CreateAndRun(context.Background(),
			runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hello")}}})
		require.NoError(t, err)
		var got []string
		for ev, err := range s.All() {
			require.NoError(t, err)
			switch ev.(type) {
			case runs.ReasoningStart, runs.ReasoningMessageStart, runs.ReasoningMessageContent, runs.ReasoningMessageEnd,
				runs.ReasoningEnd, runs.ReasoningEncryptedValue:
				got = append(got, ev.EventType())
			case runs.UnknownEvent:
				t.Errorf("%v: an unknown event %s", tc.names, ev.EventType())
			}
		}
		assert.Equal(t, tc.types, got, "%v", tc.names)
		r, err := s.Collect() // after All: the Result of what it read
		require.NoError(t, err)
		require.Len(t, r.Messages, 1)
		assert.Equal(t, "Hi there", r.Messages[0].Text())
		require.Len(t, r.Reasoning, 1, "%v", tc.names)
		assert.Equal(t, r.Messages[0].ID, r.Reasoning[0].MessageID)
		assert.Len(t, r.Reasoning[0].Parts, tc.parts)
		assert.Equal(t, "Think\n\nAnswer", r.Reasoning[0].Text(), "%v", tc.names)
	}
}

// A reply with a parent: the parent event comes before each of its
// events, the Result and the stored message carry the parent.
func TestScriptParentMessage(t *testing.T) {
	t.Parallel()
	srv := threadstest.Start()
	defer srv.Close()
	srv.PushRunScript(threadstest.RunScript{Text: "Child reply", ParentMessageID: "msg_parent",
		Reasoning: &threadstest.RunReasoning{Blocks: []string{"why"}}})
	_, evs, _ := rawRun(t, srv, "/v1/threads/runs", `{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"thread":{"userKey":"u"}}`)
	want := []string{"RUN_STARTED"}
	for _, typ := range []string{"THINKING_TEXT_MESSAGE_START", "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END",
		"TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"} {
		want = append(want, "CUSTOM tambo.message.parent", typ)
	}
	want = append(want, "RUN_FINISHED")
	require.Equal(t, want, types(evs))
	msgID := evs[8]["messageId"]
	assert.Equal(t, map[string]any{"messageId": msgID, "parentMessageId": "msg_parent"}, evs[1]["value"])
	_, hasID := evs[2]["messageId"]
	assert.False(t, hasID, "THINKING_* events name no message, as the service's")

	alice := runs.New(srv.Client()).ForUser("u")
	srv.PushRunScript(threadstest.RunScript{Text: "Again", ParentMessageID: "msg_parent"})
	s, err := alice.CreateAndRun(context.Background(), runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("hi")}}})
	require.NoError(t, err)
	r, err := s.Collect()
	require.NoError(t, err)
	require.Len(t, r.Messages, 1)
	assert.Equal(t, "msg_parent", r.Messages[0].ParentMessageID)
	assert.Equal(t, "Again", r.Messages[0].Text())
	m, err := alice.GetMessage(context.Background(), r.ThreadID, r.Messages[0].ID)
	require.NoError(t, err)
	assert.Equal(t, "msg_parent", m.ParentMessageID)
	assert.Equal(t, "Again", m.Text())
}
