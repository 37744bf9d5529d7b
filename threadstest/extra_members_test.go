package threadstest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/threadstest"
)

// WithExtraMembers adds its members to every object of every 2xx JSON
// answer, nested ones included, but not to free-form maps, streams or
// errors.
func TestWithExtraMembers(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithExtraMembers(map[string]any{"future": 1}))
	c := srv.Client()
	ctx := context.Background()
	th, err := c.Threads.Create(ctx, threads.CreateThreadParams{ProjectID: srv.ProjectID, Metadata: map[string]any{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Threads.AdvanceStream(ctx, th.ID, threads.AdvanceParams{Message: threads.UserMessage("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Collect(); err != nil {
		t.Fatal(err) // the stream's snapshots pass through unchanged
	}

	get := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+srv.APIKey)
		resp, err := srv.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, body := get("/threads/" + th.ID)
	var got struct {
		Future   int            `json:"future"`
		Metadata map[string]any `json:"metadata"`
		Messages []struct {
			Future  int `json:"future"`
			Content []struct {
				Future int `json:"future"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || status != 200 {
		t.Fatalf("%d %s: %v", status, body, err)
	}
	if got.Future != 1 || len(got.Messages) != 2 || got.Messages[1].Future != 1 || got.Messages[1].Content[0].Future != 1 {
		t.Errorf("members missing: %s", body)
	}
	if len(got.Metadata) != 1 {
		t.Errorf("metadata changed: %v", got.Metadata)
	}
	if !strings.HasSuffix(body, "}\n") {
		t.Errorf("the answer lost its final newline: %q", body)
	}
	status, body = get("/threads/thr_unknown.000000")
	if status == 200 || strings.Contains(body, "future") {
		t.Errorf("an error answer changed: %d %s", status, body)
	}
}
