package threads_test

import (
	"time"

	threads "github.com/threadsapi/threads-go"
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
