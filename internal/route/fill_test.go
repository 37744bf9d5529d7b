package route

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every id that cannot name anything is refused, naming its kind, with an
// error that matches ErrInvalidID; ordinary ids (dots inside, spaces
// inside, slashes) are kept whole for Path to escape.
func TestCheckID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"":    `empty thread id`,
		" ":   `thread id " " is only white space`,
		"\t":  `thread id "\t" is only white space`,
		".":   `thread id "." is a dot segment, not an id`,
		"..":  `thread id ".." is a dot segment, not an id`,
		" ..": `thread id " .." is a dot segment, not an id`,
	} {
		err := CheckID("thread", id)
		require.Error(t, err, "%q", id)
		assert.Equal(t, want, err.Error())
		assert.ErrorIs(t, err, ErrInvalidID, "%q", id)
	}
	for _, id := range []string{"thr_1.a", "...", "a b", "a/b", "%2E%2E", ".a"} {
		assert.NoError(t, CheckID("thread", id), "%q", id)
	}
}

// Fill fills the placeholders in order, checks each id with CheckID under
// its kind, and refuses a count of ids that does not fit the template.
func TestFill(t *testing.T) {
	t.Parallel()
	r, err := Fill("GET", "/v1/threads/{threadId}/messages/{messageId}", "thr_1", "msg_1")
	require.NoError(t, err)
	assert.Equal(t, Route{Method: "GET", Template: "/v1/threads/{threadId}/messages/{messageId}",
		Values: map[string]string{"threadId": "thr_1", "messageId": "msg_1"}}, r)

	r, err = Fill("GET", "/projects")
	require.NoError(t, err)
	assert.Equal(t, Route{Method: "GET", Template: "/projects"}, r)

	_, err = Fill("GET", "/v1/threads/{threadId}/messages/{messageId}", "thr_1", "..")
	assert.EqualError(t, err, `message id ".." is a dot segment, not an id`)
	assert.ErrorIs(t, err, ErrInvalidID)

	_, err = Fill("DELETE", "/projects/{projectId}/api-key/{apiKeyId}", "p_1", " ")
	assert.EqualError(t, err, `API key id " " is only white space`)

	_, err = Fill("GET", "/threads/{id}")
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrInvalidID), "a missing id is the SDK's mistake: %v", err)
	_, err = Fill("GET", "/threads/{id}", "a", "b")
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrInvalidID), "an extra id is the SDK's mistake: %v", err)
}
