package threadstest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// capture is one recorded exchange with the live service, as the files in
// testdata/captures-routes hold it (copied from the spec's captures).
type capture struct {
	method, path, reqBody string
	reqType               string // the request's Content-Type
	status                int
	contentType           string // the media type, without parameters
	body                  string
}

func readCapture(t *testing.T, name string) capture {
	t.Helper()
	return readCaptureFile(t, filepath.Join("testdata", "captures-routes", name+".txt"))
}

// turn4 reads capture number n of testdata/captures-turn4 (copied from the
// spec's captures-turn4).
func turn4(t *testing.T, n string) capture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "captures-turn4", n+"-*.txt"))
	require.NoError(t, err)
	require.Len(t, files, 1, "capture %s", n)
	return readCaptureFile(t, files[0])
}

func readCaptureFile(t *testing.T, file string) capture {
	t.Helper()
	name := filepath.Base(file)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	find := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i
			}
		}
		t.Fatalf("%s: no %q line", name, prefix)
		return 0
	}
	var c capture
	req := find("===== REQUEST")
	f := strings.Fields(lines[req+1])
	c.method, c.path = f[0], f[1]
	head := find("===== RESPONSE HEAD")
	i := req + 2
	for i < head && lines[i] != "" { // the request's headers
		if v, ok := strings.CutPrefix(lines[i], "Content-Type: "); ok {
			c.reqType = v
		}
		i++
	}
	c.reqBody = strings.TrimSpace(strings.Join(lines[i:head], "\n"))
	c.status, err = strconv.Atoi(strings.Fields(lines[head+1])[1])
	require.NoError(t, err)
	for _, l := range lines[head+1 : find("===== RESPONSE BODY")] {
		if v, ok := strings.CutPrefix(l, "Content-Type: "); ok {
			c.contentType, _, err = mime.ParseMediaType(v)
			require.NoError(t, err)
		}
	}
	body := find("===== RESPONSE BODY")
	c.body = strings.Join(lines[body+1:find("===== END BODY")], "\n")
	return c
}

// replay sends the capture's request to srv, with the capture's ids
// replaced by the fake's (ids maps one to the other), and returns the
// fake's status, media type and body; the capture's body gets the same
// replacement, so the two compare as JSON.
func replay(t *testing.T, srv *threadstest.Server, c capture, ids map[string]string) (status int, contentType, body, want string) {
	t.Helper()
	swap := func(s string) string {
		for from, to := range ids {
			s = strings.ReplaceAll(s, from, to)
		}
		return s
	}
	req, err := http.NewRequestWithContext(t.Context(), c.method, srv.URL+swap(c.path), strings.NewReader(swap(c.reqBody)))
	require.NoError(t, err)
	req.Header.Set("x-api-key", srv.APIKey)
	if c.reqType != "" {
		req.Header.Set("Content-Type", c.reqType)
	} else if c.reqBody != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	contentType, _, err = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	require.NoError(t, err)
	return resp.StatusCode, contentType, string(b), swap(c.body)
}

// captureSetup makes a fake like the live deployment, a thread and (unless
// bare) one message on it, and maps the capture's ids to the fake's.
func captureSetup(t *testing.T, captureThread, captureMessage string, bare bool) (*threadstest.Server, map[string]string) {
	t.Helper()
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithLiveHabits())
	status, _, body := rawCall(t, srv, "POST", "/threads", `{"projectId":"`+srv.ProjectID+`"}`)
	require.Equal(t, 201, status, body)
	var th struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &th))
	ids := map[string]string{captureThread: th.ID, "p_0MDTL6rs.2f6789": srv.ProjectID}
	if !bare {
		status, _, body = rawCall(t, srv, "POST", "/threads/"+th.ID+"/messages", `{"role":"assistant","content":[{"type":"text","text":"hi"}]}`)
		require.Equal(t, 201, status, body)
		var m struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(body), &m))
		ids[captureMessage] = m.ID
	}
	return srv, ids
}

// The rows of issue 21 where the fake disagreed with the live service: each
// replays the capture's request and expects the capture's status, media type
// and body.
func TestCapturedErrorAnswers(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"07-get-suggestions-none-yet",             // 404 SUGGESTION_NOT_FOUND (was 200 [])
		"10-get-suggestions-unknown-message",      // 400 INVALID_SUGGESTION_REQUEST (was 404)
		"11-generate-suggestions-unknown-message", // 500 SUGGESTION_GENERATION_FAILED (was 404)
		"13-put-component-state-unknown-message",  // 500 (was 404)
		"15-generate-name-no-messages",            // 404 (was 201 "New conversation")
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := readCapture(t, name)
			captureThread := strings.Split(c.path, "/")[2]
			srv, ids := captureSetup(t, captureThread, "msg_BOuCO3Ka.93f81a", strings.Contains(name, "no-messages"))
			status, ct, body, want := replay(t, srv, c, ids)
			assert.Equal(t, c.status, status)
			assert.Equal(t, c.contentType, ct)
			assert.JSONEq(t, want, body)
		})
	}
}

// Capture 03: PUT /threads/{id} with a contextKey answers 200 and does not
// store it: the answer's contextKey is null, and the thread still lists
// under no contextKey.
func TestCapturedUpdateIgnoresContextKey(t *testing.T) {
	t.Parallel()
	c := readCapture(t, "03-update-thread-contextkey-ignored")
	require.Contains(t, c.reqBody, `"contextKey":"user-upd"`)
	srv, ids := captureSetup(t, "thr_xOQw1LE.a14146", "", true)
	status, ct, body, want := replay(t, srv, c, ids)
	assert.Equal(t, c.status, status)
	assert.Equal(t, c.contentType, ct)
	var got, live map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.NoError(t, json.Unmarshal([]byte(want), &live))
	for _, k := range []string{"id", "projectId", "contextKey", "runStatus", "currentRunId", "sdkVersion"} {
		assert.Contains(t, got, k)
		assert.Equal(t, live[k], got[k], k)
	}

	_, _, list := rawCall(t, srv, "GET", "/threads/project/"+srv.ProjectID, "")
	assert.Contains(t, list, ids["thr_xOQw1LE.a14146"], "still a thread without a contextKey")
	_, _, keyed := rawCall(t, srv, "GET", "/threads/project/"+srv.ProjectID+"?contextKey=user-upd", "")
	assert.NotContains(t, keyed, ids["thr_xOQw1LE.a14146"])
}

// sseEvents decodes the "data:" lines of an event stream.
func sseEvents(t *testing.T, body string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, l := range strings.Split(body, "\n") {
		if data, ok := strings.CutPrefix(l, "data: "); ok {
			var ev map[string]any
			require.NoError(t, json.Unmarshal([]byte(data), &ev), data)
			evs = append(evs, ev)
		}
	}
	return evs
}

// keysInOrder lists a JSON object's keys in the order they are written.
func keysInOrder(t *testing.T, obj string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(obj))
	_, err := dec.Token() // {
	require.NoError(t, err, obj)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err, obj)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

// livePage is a /v1 page as the captures show it, items by id.
type livePage struct {
	Items      []string
	NextCursor string
	HasMore    bool
}

func decodePage(t *testing.T, body, items string) livePage {
	t.Helper()
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(body), &raw), body)
	var list []struct{ ID string }
	require.NoError(t, json.Unmarshal(raw[items], &list), body)
	var p livePage
	for _, it := range list {
		p.Items = append(p.Items, it.ID)
	}
	json.Unmarshal(raw["nextCursor"], &p.NextCursor)
	json.Unmarshal(raw["hasMore"], &p.HasMore)
	return p
}

// followPages replays the captures' page requests against the fake,
// following the fake's own cursors, and checks each page against the
// capture's: the same items (by their place in the list: liveIDs and
// fakeIDs are the two lists in order), hasMore, a cursor when the
// capture has one, and a repeated cursor where the capture repeats it.
func followPages(t *testing.T, srv *threadstest.Server, names []string, swap map[string]string, items string, liveIDs, fakeIDs []string) {
	t.Helper()
	var cursor, lastLive, lastGot string
	for _, n := range names {
		c := turn4(t, n)
		u, err := url.Parse(c.path)
		require.NoError(t, err)
		q := u.Query()
		if q.Has("cursor") {
			q.Set("cursor", cursor)
		}
		path := u.Path
		for from, to := range swap {
			path = strings.ReplaceAll(path, from, to)
		}
		status, _, body := rawCall(t, srv, "GET", path+"?"+q.Encode(), "")
		require.Equal(t, c.status, status, body)
		live, got := decodePage(t, c.body, items), decodePage(t, body, items)
		var want []string
		for _, id := range live.Items {
			want = append(want, fakeIDs[slices.Index(liveIDs, id)])
		}
		assert.Equal(t, want, got.Items, "capture %s", n)
		assert.Equal(t, live.HasMore, got.HasMore, "capture %s", n)
		assert.Equal(t, live.NextCursor != "", got.NextCursor != "", "capture %s", n)
		assert.Equal(t, live.NextCursor == lastLive, got.NextCursor == lastGot, "capture %s: the cursor repeats", n)
		cursor, lastLive, lastGot = got.NextCursor, live.NextCursor, got.NextCursor
	}
}

// Captures 08-21: with overlapping pages (a live habit), an ascending
// page of messages starts at its cursor's message: with limit=1 the same
// message and the same cursor come back on every page, hasMore true;
// with limit=2 each page repeats the previous page's last message and the
// listing ends after 5 pages of 6 messages. Suggestions made together
// page the same way. Before, the fake's pages followed the cursor's item.
func TestCapturedOverlappingPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithOverlappingPages())
	u := runs.New(srv.Client()).ForUser("user-1")
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("first question")}}})
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)
	for _, q := range []string{"second question", "third question"} {
		s, err = u.Run(ctx, s.ThreadID(), runs.RunParams{AfterLastRun: true, Content: []runs.Content{runs.Text(q)}})
		require.NoError(t, err)
		_, err = s.Collect()
		require.NoError(t, err)
	}
	all, err := u.ListMessages(ctx, s.ThreadID(), nil)
	require.NoError(t, err)
	require.Len(t, all.Items, 6)
	var fakeIDs, liveIDs []string
	for _, m := range all.Items {
		fakeIDs = append(fakeIDs, m.ID)
	}
	for _, n := range []string{"12", "13", "14", "15", "16"} {
		for _, id := range decodePage(t, turn4(t, n).body, "messages").Items {
			if !slices.Contains(liveIDs, id) {
				liveIDs = append(liveIDs, id)
			}
		}
	}
	require.Len(t, liveIDs, 6)
	swap := map[string]string{"thr_hMWOz9U.6ef30a": s.ThreadID()}
	followPages(t, srv, []string{"08", "09", "10", "11"}, swap, "messages", liveIDs, fakeIDs)
	followPages(t, srv, []string{"12", "13", "14", "15", "16"}, swap, "messages", liveIDs, fakeIDs)

	// The cursor names the page's last message, as live.
	var cur struct{ CreatedAt, ID string }
	raw, err := base64.RawURLEncoding.DecodeString(decodePage(t, turn4(t, "08").body, "messages").NextCursor)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &cur))
	assert.Equal(t, liveIDs[0], cur.ID)

	// 17-21: two suggestions, listed one at a time.
	last := fakeIDs[5]
	status, _, body := rawCall(t, srv, "POST", "/v1/threads/"+s.ThreadID()+"/messages/"+last+"/suggestions", turn4(t, "17").reqBody)
	require.Equal(t, 201, status, body)
	gen := decodePage(t, body, "suggestions")
	liveSug := decodePage(t, turn4(t, "17").body, "suggestions")
	swap["msg_dmjGCaIR.f24220"] = last
	followPages(t, srv, []string{"18", "19", "20", "21"}, swap, "suggestions", liveSug.Items, gen.Items)

	// Descending messages and thread listings page as before.
	desc, err := u.ListMessages(ctx, s.ThreadID(), &runs.ListMessagesParams{Limit: 1, Order: runs.OrderDesc})
	require.NoError(t, err)
	next, err := u.ListMessages(ctx, s.ThreadID(), &runs.ListMessagesParams{Limit: 1, Order: runs.OrderDesc, Cursor: desc.NextCursor})
	require.NoError(t, err)
	assert.Equal(t, fakeIDs[4], next.Items[0].ID)
}

// timeless decodes a JSON body without its createdAt and updatedAt
// members, at any depth, for comparing a capture's body with the fake's.
func timeless(t *testing.T, body string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(body), &v), body)
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "createdAt")
			delete(v, "updatedAt")
			for _, e := range v {
				strip(e)
			}
		case []any:
			for _, e := range v {
				strip(e)
			}
		}
	}
	strip(v)
	return v
}

// Captures 22-29: a /v1 run cancelled by DELETE from another connection
// after its third delta. The stream ends with one RUN_ERROR CANCELLED
// (22), with the live habits too (the service's end of a cancel during
// streaming: before, the live habits ended it RUN_FINISHED, its rare
// race), or, with WithCancelledRunsFinished, with RUN_FINISHED (26);
// either way no TEXT_MESSAGE_END. The DELETE answers
// 200 cancelled (23, 27); the thread says lastRunCancelled with
// statusMessage still "Streaming response..." (24, 28); the message is
// isCancelled with the streamed text without its trailing space (25), or
// without the last delta too (29). Before, the fake always ended
// RUN_ERROR and stored "word0 word1 word2 ".
func TestCapturedCancelFromAnotherConnection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		captures [4]string // stream, delete, thread, messages
		opts     []threadstest.Option
		script   string // RunScript.CancelEnd
	}{
		{"run-error", [4]string{"22", "23", "24", "25"}, nil, ""},
		{"run-finished", [4]string{"26", "27", "28", "29"}, []threadstest.Option{threadstest.WithCancelledRunsFinished()}, ""},
		{"live-habits", [4]string{"22", "23", "24", "25"}, []threadstest.Option{threadstest.WithLiveHabits(), threadstest.WithThrottle(0)}, ""},
		{"live-habits-finished", [4]string{"26", "27", "28", "29"}, []threadstest.Option{threadstest.WithLiveHabits(), threadstest.WithCancelledRunsFinished(), threadstest.WithThrottle(0)}, ""},
		{"script-error", [4]string{"22", "23", "24", "25"}, []threadstest.Option{threadstest.WithCancelledRunsFinished()}, "RUN_ERROR"},
		{"script-finished", [4]string{"26", "27", "28", "29"}, nil, "RUN_FINISHED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cancelFromAnotherConnection(t, tc.captures, tc.opts, tc.script)
		})
	}
}

func cancelFromAnotherConnection(t *testing.T, captures [4]string, opts []threadstest.Option, cancelEnd string) {
	stream, del, thread, messages := turn4(t, captures[0]), turn4(t, captures[1]), turn4(t, captures[2]), turn4(t, captures[3])
	srv := threadstest.NewServer(t, append([]threadstest.Option{threadstest.WithoutListener()}, opts...)...)
	held, hold := make(chan struct{}), make(chan struct{})
	defer close(hold)
	var story []string
	for i := range 40 {
		story = append(story, fmt.Sprint("word", i))
	}
	srv.PushRunScript(threadstest.RunScript{Text: strings.Join(story, " "), Hold: hold, HoldAfter: 4,
		OnHold: func() { close(held) }, CancelEnd: cancelEnd})
	var body string
	read := make(chan struct{})
	go func() { // the stream's connection
		defer close(read)
		_, _, body, _ = replay(t, srv, stream, nil)
	}()
	<-held
	liveEvs := sseEvents(t, stream.body)
	liveThread, liveRun := liveEvs[0]["threadId"].(string), liveEvs[0]["runId"].(string)
	// The other connection: the thread and run ids come from the fake's
	// listing of the end user's threads.
	status, _, list := rawCall(t, srv, "GET", "/v1/threads?userKey=user-1", "")
	require.Equal(t, 200, status, list)
	var threads struct {
		Threads []struct{ ID, CurrentRunID string }
	}
	require.NoError(t, json.Unmarshal([]byte(list), &threads))
	require.Len(t, threads.Threads, 1)
	swap := map[string]string{liveThread: threads.Threads[0].ID, liveRun: threads.Threads[0].CurrentRunID}
	status, _, got, want := replay(t, srv, del, swap)
	assert.Equal(t, del.status, status)
	assert.JSONEq(t, want, got)
	<-read

	gotEvs := sseEvents(t, body)
	assert.Equal(t, types(liveEvs), types(gotEvs))
	for i := range liveEvs {
		delete(liveEvs[i], "timestamp")
		delete(gotEvs[i], "timestamp")
		for _, k := range []string{"threadId", "runId", "messageId"} {
			if id, ok := liveEvs[i][k].(string); ok {
				if swap[id] == "" {
					swap[id] = gotEvs[i][k].(string)
				}
				liveEvs[i][k] = swap[id]
			}
		}
	}
	assert.Equal(t, liveEvs, gotEvs)

	// The thread and the messages, read afterwards (the user message's
	// id is mapped by its place).
	var liveMsgs, fakeMsgs struct{ Messages []struct{ ID string } }
	require.NoError(t, json.Unmarshal([]byte(messages.body), &liveMsgs))
	_, _, fm := rawCall(t, srv, "GET", "/v1/threads/"+swap[liveThread]+"/messages?userKey=user-1", "")
	require.NoError(t, json.Unmarshal([]byte(fm), &fakeMsgs))
	require.Len(t, fakeMsgs.Messages, 2)
	swap[liveMsgs.Messages[0].ID] = fakeMsgs.Messages[0].ID
	for _, c := range []capture{thread, messages} {
		status, _, got, want := replay(t, srv, c, swap)
		assert.Equal(t, c.status, status)
		assert.Equal(t, timeless(t, want), timeless(t, got), c.path)
	}
}

// Captures 91 and 92 of spec/v1: a JSON Patch that fails answers the
// service's problem, whose detail is several lines: the message, the
// error's name and index, and the operation and the state tree as
// JSON.stringify(v, null, 2) writes them, keys in their own order.
// Before, the detail was the one line "Invalid JSON Patch: <message>".
func TestCapturedPatchFailureDetail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := threadstest.NewServer(t, threadstest.WithoutListener())
	srv.PushRunScript(threadstest.RunScript{Component: &threadstest.RunComponent{Name: "List", Props: map[string]any{}}})
	u := runs.New(srv.Client()).ForUser("user-1")
	s, err := u.CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{Content: []runs.Content{runs.Text("a list")}}})
	require.NoError(t, err)
	var compID string
	for ev, err := range s.All() {
		require.NoError(t, err)
		if c, ok := ev.(runs.ComponentStart); ok {
			compID = c.ComponentID
		}
	}
	path := "/v1/threads/" + s.ThreadID() + "/components/" + compID + "/state"
	status, _, body := rawCall(t, srv, "POST", path, `{"userKey":"user-1","state":{"items":[1,2,3],"expanded":false}}`)
	require.Equal(t, 201, status, body)
	assert.JSONEq(t, `{"state":{"items":[1,2,3],"expanded":false}}`, body)
	for _, name := range []string{"91-component-state-patch-invalid-path", "92-component-state-patch-test-fails"} {
		c := readCaptureFile(t, filepath.Join("testdata", "captures-v1", name+".txt"))
		status, ct, got, want := replay(t, srv, c, map[string]string{"thr_nZmVC5Tz.14fe20": s.ThreadID(), "message-GqTWYXDmwToHLHOA7Tn4J": compID})
		assert.Equal(t, c.status, status, name)
		assert.Equal(t, c.contentType, ct, name)
		var g, w map[string]any
		require.NoError(t, json.Unmarshal([]byte(got), &g))
		require.NoError(t, json.Unmarshal([]byte(want), &w))
		assert.Equal(t, w["detail"], g["detail"], name)
		assert.Regexp(t, `^urn:tambo:error-instance:`, g["instance"])
		delete(g, "instance")
		delete(w, "instance")
		assert.Equal(t, w, g, name)
		assert.Contains(t, got, `"errors":{"name":`, "the errors member in the service's key order")
	}
}

// Capture 35, and v1-api.md section 1: the token exchange per OAuth
// validation mode. Mode none takes an opaque subject token (201, the
// issued token's sub "opaque:<SHA-256 hex>", iss the project, aud tambo,
// no original_iss); the verifying mode the service starts projects in
// refuses every token the fake cannot verify (401); without the option
// a JWT is read and an opaque token refused, as before. Capture 34: there
// is no /v1/auth/token. Before, mode none did not exist: the opaque token
// was a 401.
func TestCapturedTokenExchangeModes(t *testing.T) {
	t.Parallel()
	c34, c35 := turn4(t, "34"), turn4(t, "35")
	const refused = `{"message":"Invalid OAuth subject token","statusCode":401}`
	jwt := "e30." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"https://idp.example.com","sub":"alice"}`)) + "."
	jwtForm := strings.Replace(c35.reqBody, "opaque-garbage-token-7f3a9c", jwt, 1)

	none := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithOAuthValidation(threadstest.OAuthValidationNone))
	status, ct, got, want := replay(t, none, c35, nil)
	require.Equal(t, c35.status, status, got)
	assert.Equal(t, c35.contentType, ct)
	liveClaims, gotClaims := tokenClaims(t, want), tokenClaims(t, got)
	assert.Equal(t, liveClaims["sub"], gotClaims["sub"])
	assert.Equal(t, none.ProjectID, gotClaims["iss"])
	assert.Equal(t, liveClaims["aud"], gotClaims["aud"])
	assert.Equal(t, liveClaims["exp"].(float64)-liveClaims["iat"].(float64), gotClaims["exp"].(float64)-gotClaims["iat"].(float64))
	assert.NotContains(t, gotClaims, "original_iss")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.Unmarshal([]byte(got), &tok))
	u := runs.New(none.Client()).ForToken(threads.NewToken(tok.AccessToken))
	th, err := u.CreateThread(context.Background(), runs.CreateThreadParams{})
	require.NoError(t, err)
	assert.Equal(t, "oauth:user:"+liveClaims["sub"].(string), th.UserKey)
	c := c35
	c.reqBody = jwtForm
	_, _, got, _ = replay(t, none, c, nil)
	assert.Equal(t, "https://idp.example.com", tokenClaims(t, got)["original_iss"])

	status, _, got, _ = replay(t, none, c34, nil)
	assert.Equal(t, c34.status, status)
	assert.JSONEq(t, c34.body, got)

	auto := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithOAuthValidation(threadstest.OAuthValidationAsymmetricAuto))
	for _, body := range []string{c35.reqBody, jwtForm} {
		c.reqBody = body
		status, _, got, _ = replay(t, auto, c, nil)
		assert.Equal(t, 401, status)
		assert.JSONEq(t, refused, got)
	}

	plain := threadstest.NewServer(t, threadstest.WithoutListener())
	status, _, got, _ = replay(t, plain, c35, nil)
	assert.Equal(t, 401, status)
	assert.JSONEq(t, refused, got)
	c.reqBody = jwtForm
	status, _, _, _ = replay(t, plain, c, nil)
	assert.Equal(t, 201, status)
}

// tokenClaims decodes the claims of the access token in an exchange's
// answer.
func tokenClaims(t *testing.T, body string) map[string]any {
	t.Helper()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &tok), body)
	parts := strings.Split(tok.AccessToken, ".")
	require.Len(t, parts, 3)
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, json.Unmarshal(raw, &claims))
	return claims
}
