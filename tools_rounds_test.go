package threads_test

// RunStream's bound on tool rounds, against a hostile server.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/redact"
)

// TestAttackToolRoundsErrorCleaned: the unanswered call's id and name come
// from the server; the error shows them on one short line, without the key.
func TestAttackToolRoundsErrorCleaned(t *testing.T) {
	t.Parallel()
	// As long as RunStream echoes (1 KiB): a longer id is refused before
	// the rounds are counted.
	id := "call\x1b]0;pwned\x07\x1b[2J\r\nFAKE LOG LINE " + atkKey + " " + strings.Repeat("A", 900)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		jid, _ := json.Marshal(id)
		fmt.Fprintf(w, "data: {\"responseMessageDto\":{\"id\":\"m\",\"threadId\":\"t\",\"role\":\"assistant\",\"content\":[],\"tool_call_id\":%s,\"toolCallRequest\":{\"toolName\":\"x\",\"parameters\":[]}},\"generationStage\":\"FETCHING_CONTEXT\"}\n\ndata: DONE\n\n", jid)
	}))
	t.Cleanup(srv.Close)
	c := atkClient(t, srv.URL)
	tool := threads.Tool{Name: "x", Call: func(context.Context, threads.ToolCall) (string, error) { return "ok", nil }}
	st, err := c.Threads.RunStream(context.Background(), "t", threads.AdvanceParams{Message: threads.UserMessage("hi")}, []threads.Tool{tool}, threads.WithMaxToolRounds(1))
	require.NoError(t, err)
	_, err = st.Collect()
	var tre *threads.ToolRoundsError
	require.ErrorAs(t, err, &tre)
	s := err.Error()
	assert.Less(t, len(s), 1024, "the error is cut short")
	assert.NotContains(t, s, "\x1b")
	assert.NotContains(t, s, "\r")
	assert.NotContains(t, s, "\n")
	assert.False(t, redact.Contains(s, atkKey), "the key is in %q", s)
	assert.Equal(t, id, tre.Call.ID, "the field keeps the id as sent")
}
