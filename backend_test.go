package threads_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

func TestUploadPutsWithoutTheKeyAndReturnsURI(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	data := []byte("%PDF-1.7 fake")
	uri, err := c.Storage.Upload(context.Background(), bytes.NewReader(data), "application/pdf", int64(len(data)))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(uri, "attachment://"+srv.ProjectID+"/"), uri)
	got, hdr, ok := srv.Upload(uri)
	require.True(t, ok)
	assert.Equal(t, data, got)
	assert.Equal(t, "application/pdf", hdr.Get("Content-Type"))
	assert.Empty(t, hdr.Get("Authorization"), "no key to the storage host")
	for k, vs := range hdr {
		assert.NotContains(t, strings.Join(vs, " "), testKey, k)
	}

	msg := threads.UserMessage("what is this?")
	msg.Content = append(msg.Content, threads.AttachmentPart(uri, "application/pdf", "a.pdf"))
	th, err := c.Threads.Create(context.Background(), threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	_, err = c.Messages.Create(context.Background(), th.ID, msg)
	require.NoError(t, err)
	reqs := srv.Requests()
	assert.Contains(t, string(reqs[len(reqs)-1].Body), `"uri":"`+uri+`"`)
}

func TestUploadChecksBeforeSending(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	_, err := c.Storage.Upload(ctx, strings.NewReader("x"), "text/plain", threads.MaxAttachmentSize+1)
	require.ErrorContains(t, err, "must be 1 to")
	_, err = c.Storage.Upload(ctx, strings.NewReader("x"), "text/plain", 0)
	require.Error(t, err)
	_, err = c.Storage.Upload(ctx, strings.NewReader("x"), "not a type", 1)
	require.ErrorContains(t, err, "not a media type")
	_, err = c.Storage.Upload(ctx, strings.NewReader("abc"), "text/plain", 2)
	require.ErrorContains(t, err, "more than that")
	_, err = c.Storage.Upload(ctx, strings.NewReader("a"), "text/plain", 2)
	require.ErrorContains(t, err, "holds 1 bytes")
	_, err = c.Storage.Upload(ctx, iotest.ErrReader(errors.New("disk")), "text/plain", 2)
	require.ErrorContains(t, err, "disk")
	assert.Empty(t, srv.Requests(), "nothing sent")
}

func TestPresignAnswer(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	up, err := c.Storage.Presign(context.Background(), threads.PresignParams{ContentType: "image/png", Size: 10})
	require.NoError(t, err)
	assert.Equal(t, 3600, up.ExpiresIn)
	assert.Contains(t, up.UploadURL.Reveal(), "X-Amz-Signature")
	assert.NotContains(t, fmt.Sprintf("%v %+v", up, *up), "X-Amz-Signature", "the signed URL prints redacted")
}

func TestTranscribe(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	text, err := c.Audio.Transcribe(context.Background(), strings.NewReader("RIFF....WAVE"), "memo.wav")
	require.NoError(t, err)
	assert.Equal(t, "transcript of memo.wav (12 bytes)", text)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.True(t, strings.HasPrefix(reqs[0].Header.Get("Content-Type"), "multipart/form-data; boundary="))

	_, err = c.Audio.Transcribe(context.Background(), strings.NewReader("x"), "memo.txt")
	require.ErrorContains(t, err, "file name")
	_, err = c.Audio.Transcribe(context.Background(), bytes.NewReader(make([]byte, threads.MaxAudioSize+1)), "big.mp3")
	require.ErrorContains(t, err, "25 MB")
	assert.Len(t, srv.Requests(), 1, "nothing more sent")
}

func TestProjectKeys(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	p, err := c.Projects.Get(ctx, srv.ProjectID)
	require.NoError(t, err)
	assert.Equal(t, srv.ProjectID, p.ID)
	_, err = c.Projects.Get(ctx, "p_other.000000")
	require.ErrorIs(t, err, threads.ErrForbidden)

	keys, err := c.Projects.APIKeys(ctx, srv.ProjectID)
	require.NoError(t, err)
	require.Len(t, keys, 1)
	assert.NotEmpty(t, keys[0].PartiallyHiddenKey)
	assert.Equal(t, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), keys[0].CreatedAt.UTC(), "read from created")
	assert.True(t, keys[0].LastUsedAt.IsZero(), "null: never used")
	keys0 := keys[0].ID
	require.NoError(t, c.Projects.DeleteAPIKey(ctx, srv.ProjectID, keys0))
	keys, err = c.Projects.APIKeys(ctx, srv.ProjectID)
	require.NoError(t, err)
	assert.Empty(t, keys)
	require.ErrorIs(t, c.Projects.DeleteAPIKey(ctx, srv.ProjectID, "ak_gone"), threads.ErrNotFound)

	assert.Equal(t, 1, srv.Count(http.MethodDelete, "/projects/"+srv.ProjectID+"/api-key/"+keys0), "the delete's path is singular")

	pks, err := c.Projects.ProviderKeys(ctx, srv.ProjectID)
	require.NoError(t, err)
	require.Len(t, pks, 1)
	assert.Equal(t, "openai", pks[0].ProviderName)
	assert.NotEmpty(t, pks[0].PartiallyHiddenKey)
	require.NoError(t, c.Projects.DeleteProviderKey(ctx, srv.ProjectID, pks[0].ID))
	assert.Equal(t, 1, srv.Count(http.MethodDelete, "/projects/"+srv.ProjectID+"/provider-key/"+pks[0].ID))
	pks, err = c.Projects.ProviderKeys(ctx, srv.ProjectID)
	require.NoError(t, err)
	assert.Empty(t, pks)

	require.ErrorContains(t, c.Projects.DeleteAPIKey(ctx, srv.ProjectID, ".."), "dot segment")
}

func TestMCPAccessToken(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	tok, err := c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(tok.Token.Reveal(), "mcp_tok_"))
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v", tok, *tok, tok), tok.Token.Reveal())
	assert.WithinDuration(t, time.Now().Add(15*time.Minute), tok.ExpiresAt, time.Hour, "expiresAt read as epoch milliseconds")
	assert.False(t, tok.HasSession)

	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID})
	require.NoError(t, err)
	tok, err = c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ThreadID: th.ID})
	require.NoError(t, err)
	assert.True(t, tok.HasSession)
	reqs := srv.Requests()
	assert.JSONEq(t, `{"threadId":"`+th.ID+`"}`, string(reqs[len(reqs)-1].Body))
	_, err = c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ContextKey: "user-1"})
	require.NoError(t, err)
	reqs = srv.Requests()
	assert.JSONEq(t, `{"contextKey":"user-1"}`, string(reqs[len(reqs)-1].Body))
	_, err = c.Auth.MCPAccessToken(ctx, threads.MCPTokenParams{ThreadID: "thr_none"})
	require.ErrorIs(t, err, threads.ErrForbidden)
}

func TestMCPAccessTokenWithoutMCPServers(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutMCPServers())
	_, err := srv.Client().Auth.MCPAccessToken(context.Background(), threads.MCPTokenParams{})
	require.ErrorIs(t, err, threads.ErrNoMCPServers)
}

// TestMCPAccessTokenExpiry reads expiresAt in the forms a service may
// send: epoch milliseconds (its OpenAPI document), an RFC 3339 string,
// null or nothing; anything else is a decode error, never a panic.
func TestMCPAccessTokenExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		want time.Time
		bad  bool
	}{
		{`{"mcpAccessToken":"t","expiresAt":1767225600000}`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{`{"mcpAccessToken":"t","expiresAt":1767225600000.0}`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{`{"mcpAccessToken":"t","expiresAt":"2026-01-01T00:00:00Z"}`, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{`{"mcpAccessToken":"t","expiresAt":null}`, time.Time{}, false},
		{`{"mcpAccessToken":"t"}`, time.Time{}, false},
		{`{"mcpAccessToken":"t","expiresAt":-5}`, time.Time{}, true},
		{`{"mcpAccessToken":"t","expiresAt":1e300}`, time.Time{}, true},
		{`{"mcpAccessToken":"t","expiresAt":true}`, time.Time{}, true},
	} {
		c := cannedClient(t, serveCanned(t, http.StatusCreated, "application/json", []byte(tc.body)))
		tok, err := c.Auth.MCPAccessToken(context.Background(), threads.MCPTokenParams{})
		if tc.bad {
			require.ErrorIs(t, err, threads.ErrUnexpectedResponse, tc.body)
			continue
		}
		require.NoError(t, err, tc.body)
		assert.True(t, tc.want.Equal(tok.ExpiresAt), "%s: got %v", tc.body, tok.ExpiresAt)
	}
}

func TestRegistryGet(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	item, err := c.Registry.Get(context.Background(), "message-thread-full")
	require.NoError(t, err)
	assert.Equal(t, "message-thread-full", item["name"])
	_, err = c.Registry.Get(context.Background(), "nope")
	require.ErrorIs(t, err, threads.ErrNotFound)
}

func TestProblemErrorShowsRequestID(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	srv.Inject(threadstestFault(http.StatusBadRequest, "req_abc123"))
	_, err := c.Projects.Current(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(request id req_abc123)")
}

func threadstestFault(status int, reqID string) threadstest.Fault {
	return threadstest.Fault{Status: status, Header: http.Header{"X-Request-Id": {reqID}, "Content-Type": {"application/json"}},
		Body: `{"message":"bad","error":"Bad Request","statusCode":400}`}
}
