package threads_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// turn4Answer is the recorded answer of testdata/captures-turn4's capture
// num: status, Content-Type and body.
type turn4Answer struct {
	status int
	ctype  string
	body   []byte
}

func loadTurn4Answer(t *testing.T, num string) turn4Answer {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "captures-turn4", num+"-*.txt"))
	require.Len(t, files, 1, num)
	raw, err := os.ReadFile(files[0])
	require.NoError(t, err)
	s := string(raw)
	_, head, _ := strings.Cut(s, "===== RESPONSE HEAD (status line + headers, in wire order) =====\n")
	head, _, _ = strings.Cut(head, "\n\n")
	lines := strings.Split(head, "\n")
	a := turn4Answer{}
	a.status, err = strconv.Atoi(strings.Fields(lines[0])[1])
	require.NoError(t, err)
	for _, l := range lines[1:] {
		if v, ok := strings.CutPrefix(l, "Content-Type: "); ok {
			a.ctype = v
		}
	}
	_, body, _ := strings.Cut(s, "===== RESPONSE BODY (transfer-encoding removed; exact bytes) =====\n")
	body, _, ok := strings.Cut(body, "\n===== END BODY")
	require.True(t, ok, num)
	a.body = []byte(body)
	return a
}

// serveTurn4 answers every request with capture num's answer and counts
// the requests.
func serveTurn4(t *testing.T, num string) (*threads.Client, *atomic.Int32) {
	t.Helper()
	a := loadTurn4Answer(t, num)
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", a.ctype)
		w.WriteHeader(a.status)
		w.Write(a.body)
	}))
	t.Cleanup(srv.Close)
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithRetryWait(time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	return c, &n
}

// Other routes still retry a GET's 500 (the registry does not: registry_test.go).
func TestGetStillRetries500(t *testing.T) {
	t.Parallel()
	c, n := serveTurn4(t, "30")
	_, err := c.Projects.Get(context.Background(), "p_TTnR6jZ8.224411")
	require.ErrorIs(t, err, threads.ErrServer)
	assert.EqualValues(t, 3, n.Load(), "requests: the first and two retries")
}

// Capture 32: deleting an unknown API key id answers 200 with the body
// false. That is no success: DeleteAPIKey returns an error matching
// ErrNotFound (it returned nil before).
func TestDeleteAPIKeyAnsweredFalseCapture32(t *testing.T) {
	t.Parallel()
	c, n := serveTurn4(t, "32")
	err := c.Projects.DeleteAPIKey(context.Background(), "p_TTnR6jZ8.224411", "00000000-0000-0000-0000-000000000000")
	require.ErrorIs(t, err, threads.ErrNotFound)
	assert.Contains(t, err.Error(), "00000000-0000-0000-0000-000000000000")
	assert.EqualValues(t, 1, n.Load(), "a DELETE is not re-sent")
}

// Capture 33: deleting an unknown provider key id answers 200 with the
// project, as a delete that worked does: DeleteProviderKey cannot tell
// them apart and returns nil, as its doc says.
func TestDeleteProviderKeyCapture33(t *testing.T) {
	t.Parallel()
	c, n := serveTurn4(t, "33")
	require.NoError(t, c.Projects.DeleteProviderKey(context.Background(), "p_TTnR6jZ8.224411", "00000000-0000-0000-0000-000000000000"))
	assert.EqualValues(t, 1, n.Load())
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

// Projects.Delete sends DELETE /projects/{id} once and reads the boolean
// the service's document gives as its answer: false is ErrNotFound.
func TestProjectsDelete(t *testing.T) {
	t.Parallel()
	c, srv := setup(t)
	ctx := context.Background()
	path := "/projects/" + srv.ProjectID
	for body, want := range map[string]error{"true": nil, "false": threads.ErrNotFound} {
		srv.Inject(threadstest.Fault{Method: "DELETE", Path: path, Status: http.StatusOK,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: body})
		err := c.Projects.Delete(ctx, srv.ProjectID)
		if want == nil {
			require.NoError(t, err)
		} else {
			require.ErrorIs(t, err, want)
			assert.Contains(t, err.Error(), srv.ProjectID)
		}
	}
	srv.Inject(threadstest.Fault{Method: "DELETE", Path: path, Status: http.StatusServiceUnavailable})
	srv.Inject(threadstest.Fault{Method: "DELETE", Path: path, Status: http.StatusOK, Body: "true"})
	require.NoError(t, c.Projects.Delete(ctx, srv.ProjectID), "a 503 did not act: retried")
	assert.Equal(t, 4, srv.Count("DELETE", path))

	err := c.Projects.Delete(ctx, "..")
	assert.ErrorIs(t, err, threads.ErrInvalidID)
	assert.Equal(t, 4, srv.Count("DELETE", path))
}
