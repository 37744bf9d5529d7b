package threadstest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/threadstest"
)

// Captures 30, 32 and 33: with the live habits, an unknown registry name
// is the framework's 500, deleting an unknown API key answers 200 false
// (as text/html), and deleting a provider key answers 200 the project
// whether or not the key existed. Without them the fake keeps its 404s.
// Before, the habits answered 404 to all three.
func TestCapturedSmallRoutes(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithLiveHabits())
	plain := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithAPIKeyHeader("x-api-key"))
	for _, n := range []string{"30", "32", "33"} {
		c := turn4(t, n)
		swap := map[string]string{"p_TTnR6jZ8.224411": srv.ProjectID, `"live4"`: `"Fake Project"`}
		status, ct, got, want := replay(t, srv, c, swap)
		assert.Equal(t, c.status, status, n)
		assert.Equal(t, c.contentType, ct, n)
		assert.JSONEq(t, want, got, n)

		status, _, _, _ = replay(t, plain, c, map[string]string{"p_TTnR6jZ8.224411": plain.ProjectID})
		assert.Equal(t, 404, status, n)
	}
	// A known provider key's delete answers the project too.
	status, _, body := rawCall(t, srv, "DELETE", "/projects/"+srv.ProjectID+"/provider-key/pk_FakeKey1.000001", "")
	assert.Equal(t, 200, status)
	assert.JSONEq(t, `{"id":"`+srv.ProjectID+`","name":"Fake Project"}`, body)
	status, _, body = rawCall(t, srv, "DELETE", "/projects/"+srv.ProjectID+"/api-key/ak_FakeKey1.000001", "")
	assert.Equal(t, 200, status)
	assert.Equal(t, "true\n", body)
}

// WithoutStorage: presign answers 503 as the service does without S3
// credentials (its storage controller), after the body's checks.
func TestWithoutStorage(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithAPIKeyHeader("x-api-key"), threadstest.WithoutStorage())
	status, _, body := rawCall(t, srv, "POST", "/storage/presign", `{"contentType":"text/plain","size":3}`)
	require.Equal(t, 503, status)
	assert.JSONEq(t, `{"message":"Storage is not configured. S3 credentials are required.","error":"Service Unavailable","statusCode":503}`, body)
	status, _, _ = rawCall(t, srv, "POST", "/storage/presign", `{"contentType":"text/plain","size":0}`)
	assert.Equal(t, 400, status)

	status, _, _ = rawCall(t, threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithAPIKeyHeader("x-api-key")), "POST", "/storage/presign", `{"contentType":"text/plain","size":3}`)
	assert.Equal(t, 201, status)
}
