package threads_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// addBackendValues adds a value of each type of the storage, audio, key,
// token and registry calls to FuzzFormatSecrets' set: the presigned URL
// and the MCP token are secrets and must print redacted.
func addBackendValues(out map[string]any, key, tok string) {
	out["threads.StorageService"] = &threads.StorageService{}
	out["threads.AudioService"] = &threads.AudioService{}
	out["threads.AuthService"] = &threads.AuthService{}
	out["threads.RegistryService"] = &threads.RegistryService{}
	out["threads.PresignParams"] = threads.PresignParams{ContentType: "text/plain", Size: 1}
	out["threads.PresignedUpload"] = &threads.PresignedUpload{UploadURL: threads.NewToken("https://s3/x?X-Amz-Signature=" + tok), AttachmentURI: "attachment://p/x"}
	out["threads.MCPTokenParams"] = threads.MCPTokenParams{ThreadID: "thr_1"}
	out["threads.MCPAccessToken"] = &threads.MCPAccessToken{Token: threads.NewToken(tok), ExpiresAt: time.Unix(0, 0)}
	out["threads.APIKey"] = threads.APIKey{ID: "ak_1", PartiallyHiddenKey: "tambo_…wxyz"}
	out["threads.ProviderKey"] = threads.ProviderKey{ID: "pk_1"}
	out["threads.RegistryItem"] = threads.RegistryItem{"name": "x"}
}

// TestTokenAnswerDecodeErrorHidesToken: an answer that holds a token
// (the MCP access token; a thread snapshot's mcpAccessToken) but does not
// decode must not quote the token in the error's excerpt of the body.
func TestTokenAnswerDecodeErrorHidesToken(t *testing.T) {
	t.Parallel()
	const tok = "mcp_tok_SECRETSECRET0123456789"
	c, srv := setup(t)
	srv.Inject(threadstest.Fault{Method: http.MethodPost, Path: "/auth/mcp/access-token", Status: http.StatusCreated,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   `{"accessToken":"` + tok + `","mcpAccessToken":5}`})
	_, err := c.Auth.MCPAccessToken(context.Background(), threads.MCPTokenParams{})
	require.ErrorIs(t, err, threads.ErrUnexpectedResponse)
	assert.NotContains(t, err.Error(), "SECRETSECRET")
}
