package runs

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	threads "github.com/threadsapi/threads-go"
)

func ms(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Captures 01, 02: the user key travels in the body; the answer decodes.
func TestCreateThreadCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "01", "02")
	c := r.client().ForUser("user-1")
	got, err := c.CreateThread(context.Background(), CreateThreadParams{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Thread{ID: "thr_whwbaaBG.9b41b2", UserKey: "user-1", RunStatus: RunStatusIdle,
		CreatedAt: ms("2026-11-24T05:28:11.912Z"), UpdatedAt: ms("2026-11-24T05:28:11.912Z")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("01: got %+v\nwant %+v", got, want)
	}
	got, err = c.CreateThread(context.Background(), CreateThreadParams{Metadata: map[string]any{"topic": "demo", "n": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "thr_IIxXswsg.445172" || !reflect.DeepEqual(got.Metadata, map[string]any{"n": float64(1), "topic": "demo"}) {
		t.Errorf("02: got %+v", got)
	}
	r.check()
}

// Captures 03, 04, 05, 10, 17, 98 show the service's 400 for a call with no
// end user (or a blank key); the SDK refuses those before sending, naming
// both ways.
func TestNoIdentityRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	r := replay(t)
	ctx := context.Background()
	for name, c := range map[string]*Client{
		"none":        r.client(),
		"blank key":   r.client().ForUser("  "),
		"empty key":   r.client().ForUser(""),
		"empty token": r.client().ForToken(threads.Token{}),
	} {
		calls := map[string]error{}
		_, calls["CreateThread"] = c.CreateThread(ctx, CreateThreadParams{})
		_, calls["ListThreads"] = c.ListThreads(ctx, nil)
		_, calls["GetThread"] = c.GetThread(ctx, "thr_IIxXswsg.445172")
		_, calls["UpdateThread"] = c.UpdateThread(ctx, "thr_IIxXswsg.445172", UpdateThreadParams{Name: "x"})
		calls["DeleteThread"] = c.DeleteThread(ctx, "thr_IIxXswsg.445172")
		_, calls["ListMessages"] = c.ListMessages(ctx, "thr_1", nil)
		_, calls["GetMessage"] = c.GetMessage(ctx, "thr_1", "msg_1")
		_, calls["SetComponentState"] = c.SetComponentState(ctx, "thr_1", "message-1", map[string]any{"a": 1})
		_, calls["ListSuggestions"] = c.ListSuggestions(ctx, "thr_1", "msg_1", nil)
		_, calls["GenerateSuggestions"] = c.GenerateSuggestions(ctx, "thr_1", "msg_1", GenerateSuggestionsParams{})
		for call, err := range calls {
			if !errors.Is(err, ErrIdentity) {
				t.Errorf("%s: %s: err = %v, want ErrIdentity", name, call, err)
			}
		}
	}
	if n := r.requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	err := error(nil)
	_, err = r.client().ListThreads(ctx, nil)
	for _, s := range []string{"ForUser", "ForToken"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
}

// Captures 06-09: one page, then three pages at limit 2 with the cursor in
// the query, through ListThreads and AllThreads.
func TestListThreadsCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "06")
	pg, err := r.client().ForUser("user-1").ListThreads(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Items) != 5 || pg.HasMore || pg.NextCursor != "" || pg.Items[0].ID != "thr_IQmVyZw.db8558" ||
		!reflect.DeepEqual(pg.Items[0].Metadata, map[string]any{"i": float64(2)}) || pg.Items[4].Metadata != nil {
		t.Errorf("06: %+v", pg)
	}
	r.check()

	r = replay(t, "07", "08", "09")
	var ids []string
	for th, err := range r.client().ForUser("user-1").AllThreads(context.Background(), &ListThreadsParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, th.ID)
	}
	want := []string{"thr_IQmVyZw.db8558", "thr_yAuIjrSs.b5a532", "thr_47Xrffi5.ed375f", "thr_IIxXswsg.445172", "thr_whwbaaBG.9b41b2"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("07-09: %v, want %v", ids, want)
	}
	r.check()
}

// Captures 11-13 show the service's 400s for limit 0, abc and 101; the
// SDK refuses a limit outside 0..100 before sending (0 is the default).
func TestListLimitRefused(t *testing.T) {
	t.Parallel()
	r := replay(t)
	c := r.client().ForUser("user-1")
	for _, l := range []int{-1, 101} {
		if _, err := c.ListThreads(context.Background(), &ListThreadsParams{Limit: l}); err == nil || !strings.Contains(err.Error(), "limit") {
			t.Errorf("limit %d: %v", l, err)
		}
		if _, err := c.ListMessages(context.Background(), "thr_1", &ListMessagesParams{Limit: l}); err == nil {
			t.Errorf("messages limit %d: no error", l)
		}
	}
	if _, err := c.ListMessages(context.Background(), "thr_1", &ListMessagesParams{Order: "newest"}); err == nil || !strings.Contains(err.Error(), "order") {
		t.Errorf("order newest (capture 36): %v", err)
	}
	if _, err := c.GenerateSuggestions(context.Background(), "thr_1", "msg_1", GenerateSuggestionsParams{MaxSuggestions: 11}); err == nil {
		t.Errorf("maxSuggestions 11 (capture 108): no error")
	}
	if n := r.requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// Capture 14: a garbage cursor is the framework's 400 "Invalid cursor",
// which matches ErrInvalidCursor and threads.ErrBadRequest.
func TestListThreadsBadCursor(t *testing.T) {
	t.Parallel()
	r := replay(t, "14")
	_, err := r.client().ForUser("user-1").ListThreads(context.Background(), &ListThreadsParams{Cursor: "garbage"})
	var p *threads.Problem
	if !errors.Is(err, ErrInvalidCursor) || !errors.Is(err, threads.ErrBadRequest) || !errors.As(err, &p) || p.Status != 400 {
		t.Fatalf("err = %v", err)
	}
	r.check()
}

// Captures 15, 27: a thread with its messages; 16, 18, 24: another user's,
// an unknown and a deleted thread are all 403.
func TestGetThreadCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "15", "27")
	c := r.client().ForUser("user-1")
	got, err := c.GetThread(context.Background(), "thr_IIxXswsg.445172")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "thr_IIxXswsg.445172" || got.Messages == nil || len(got.Messages) != 0 {
		t.Errorf("15: %+v", got)
	}
	got, err = c.GetThread(context.Background(), "thr_ypQeLf2s.25afbb")
	if err != nil {
		t.Fatal(err)
	}
	if got.StatusMessage != "Complete" || got.LastCompletedRunID != "run_6tHcjYm.e4404e" || len(got.Messages) != 2 ||
		got.Messages[0].Role != RoleUser || got.Messages[0].Text() != "hello there" ||
		got.Messages[1].Role != RoleAssistant || got.Messages[1].Text() != "Hello from the fake model. You said: <User>hello there</User>" ||
		!got.Messages[1].CreatedAt.Equal(ms("2026-11-24T05:28:31.784Z")) {
		t.Errorf("27: %+v", got)
	}
	r.check()

	r = replay(t, "16", "18", "24")
	for user, id := range map[string]string{"user-2": "thr_IIxXswsg.445172"} {
		_, err := r.client().ForUser(user).GetThread(context.Background(), id)
		if !errors.Is(err, threads.ErrForbidden) {
			t.Errorf("16: %v", err)
		}
	}
	for _, id := range []string{"thr_doesnotexist.123456", "thr_47Xrffi5.ed375f"} {
		if _, err := r.client().ForUser("user-1").GetThread(context.Background(), id); !errors.Is(err, threads.ErrForbidden) {
			t.Errorf("%s: %v", id, err)
		}
	}
	r.check()
}

// Capture 19: PATCH with the user key in the query (capture 20 shows the
// service ignores it in the body), metadata replaced.
func TestUpdateThreadCapture(t *testing.T) {
	t.Parallel()
	r := replay(t, "19")
	got, err := r.client().ForUser("user-1").UpdateThread(context.Background(), "thr_IIxXswsg.445172",
		UpdateThreadParams{Name: "Renamed thread", Metadata: map[string]any{"topic": "changed"}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Renamed thread" || !reflect.DeepEqual(got.Metadata, map[string]any{"topic": "changed"}) ||
		!got.UpdatedAt.Equal(ms("2026-11-24T05:28:26.976Z")) {
		t.Errorf("19: %+v", got)
	}
	r.check()
}

// Captures 22, 23, 25: 204, then 403 for the same thread again and for
// another user's.
func TestDeleteThreadCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "22", "23", "25")
	c := r.client().ForUser("user-1")
	if err := c.DeleteThread(context.Background(), "thr_47Xrffi5.ed375f"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteThread(context.Background(), "thr_47Xrffi5.ed375f"); !errors.Is(err, threads.ErrForbidden) {
		t.Errorf("23: %v", err)
	}
	if err := c.ForUser("user-2").DeleteThread(context.Background(), "thr_yAuIjrSs.b5a532"); !errors.Is(err, threads.ErrForbidden) {
		t.Errorf("25: %v", err)
	}
	r.check()
}

// An empty id is refused before sending, naming the parameter.
func TestEmptyIDRefused(t *testing.T) {
	t.Parallel()
	r := replay(t)
	c := r.client().ForUser("u")
	if _, err := c.GetThread(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "threadId") {
		t.Errorf("GetThread(\"\"): %v", err)
	}
	if _, err := c.GetMessage(context.Background(), "thr_1", ""); err == nil || !strings.Contains(err.Error(), "messageId") {
		t.Errorf("GetMessage: %v", err)
	}
	if r.requests() != 0 {
		t.Fatal("sent")
	}
}

// Per-call options are threads.RequestOptions and reach the request.
func TestRequestOptionsPerCall(t *testing.T) {
	t.Parallel()
	r := replay(t, "06")
	if _, err := r.client().ForUser("user-1").ListThreads(context.Background(), nil, threads.WithHeader("X-Trace", "t-1")); err != nil {
		t.Fatal(err)
	}
	r.check()
	if got := r.got[0].Header.Get("X-Trace"); got != "t-1" {
		t.Errorf("X-Trace %q", got)
	}
}

// A *threads.Client not made by NewClient gives a Client whose calls fail.
func TestNewUnlinked(t *testing.T) {
	t.Parallel()
	if _, err := New(&threads.Client{}).ForUser("u").ListThreads(context.Background(), nil); err == nil {
		t.Fatal("no error")
	}
}

// Issue 30: an id that cannot name anything ("..", ".", " ", "") is
// refused on every /v1 route the way Threads.Get refuses it (the same
// words after the operation's name, and threads.ErrInvalidID), before
// anything is sent: GET /v1/threads/%2E%2E went out before.
func TestBadIDsRefusedAsThreadsGet(t *testing.T) {
	t.Parallel()
	var sent atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent.Add(1) }))
	t.Cleanup(srv.Close)
	tc, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(srv.URL),
		threads.WithAPIKey(testKey), threads.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	c := New(tc).ForUser("u")
	ctx := context.Background()
	// reason is what an error says after its operation's name.
	reason := func(err error) string {
		if err == nil {
			return "<nil>"
		}
		s := err.Error()
		return s[strings.LastIndex(s, ": ")+2:]
	}
	hi := RunParams{Content: []Content{Text("hi")}}
	for _, bad := range []string{"..", ".", " ", ""} {
		_, want := tc.Threads.Get(ctx, bad)
		if !errors.Is(want, threads.ErrInvalidID) {
			t.Fatalf("Threads.Get(%q): %v", bad, want)
		}
		calls := map[string]func() error{
			"GetThread":         func() error { _, err := c.GetThread(ctx, bad); return err },
			"UpdateThread":      func() error { _, err := c.UpdateThread(ctx, bad, UpdateThreadParams{Name: "n"}); return err },
			"DeleteThread":      func() error { return c.DeleteThread(ctx, bad) },
			"ListMessages":      func() error { _, err := c.ListMessages(ctx, bad, nil); return err },
			"GetMessage thread": func() error { _, err := c.GetMessage(ctx, bad, "msg_1"); return err },
			"ListSuggestions":   func() error { _, err := c.ListSuggestions(ctx, bad, "msg_1", nil); return err },
			"GenerateSuggestions": func() error {
				_, err := c.GenerateSuggestions(ctx, bad, "msg_1", GenerateSuggestionsParams{})
				return err
			},
			"Run":               func() error { _, err := c.Run(ctx, bad, hi); return err },
			"Cancel thread":     func() error { return c.Cancel(ctx, bad, "run_1") },
			"SetComponentState": func() error { _, err := c.SetComponentState(ctx, bad, "cmp_1", map[string]any{}); return err },
		}
		for name, call := range calls {
			err := call()
			if !errors.Is(err, threads.ErrInvalidID) || reason(err) != reason(want) {
				t.Errorf("%s(%q): %v; want %q as Threads.Get", name, bad, err, reason(want))
			}
		}
		// The second id of a route is checked the same way, as a
		// message, run or component id.
		for name, err := range map[string]error{
			"GetMessage":        func() error { _, err := c.GetMessage(ctx, "thr_1", bad); return err }(),
			"Cancel":            c.Cancel(ctx, "thr_1", bad),
			"SetComponentState": func() error { _, err := c.SetComponentState(ctx, "thr_1", bad, map[string]any{}); return err }(),
		} {
			if !errors.Is(err, threads.ErrInvalidID) {
				t.Errorf("%s(second id %q): %v", name, bad, err)
			}
		}
	}
	if n := sent.Load(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}
