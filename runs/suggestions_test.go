package runs

import (
	"context"
	"errors"
	"reflect"
	"testing"

	threads "github.com/threadsapi/threads-go"
)

const (
	sugThread = "thr_ypQeLf2s.25afbb"
	sugMsg    = "msg_neC6H97.1d8f58"
)

// Captures 100, 101, 102, 109: none yet, generate (key and
// maxSuggestions in the body), list, generate again (new ids).
func TestSuggestionsCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "100", "101", "102", "109")
	c := r.client().ForUser("user-1")
	ctx := context.Background()
	pg, err := c.ListSuggestions(ctx, sugThread, sugMsg, nil)
	if err != nil || len(pg.Items) != 0 || pg.HasMore {
		t.Fatalf("100: %+v %v", pg, err)
	}
	pg, err = c.GenerateSuggestions(ctx, sugThread, sugMsg, GenerateSuggestionsParams{MaxSuggestions: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := Suggestion{ID: "sug_Pc1DqeMP.7149fe", MessageID: sugMsg, Title: "First idea",
		Description: "Tell me more about the first idea", DetailedSuggestion: "Tell me more about the first idea",
		CreatedAt: ms("2026-11-24T05:31:17.833Z")}
	if len(pg.Items) != 2 || !reflect.DeepEqual(pg.Items[0], want) {
		t.Errorf("101: %+v", pg)
	}
	if pg, err = c.ListSuggestions(ctx, sugThread, sugMsg, nil); err != nil || len(pg.Items) != 2 {
		t.Errorf("102: %+v %v", pg, err)
	}
	if pg, err = c.GenerateSuggestions(ctx, sugThread, sugMsg, GenerateSuggestionsParams{}); err != nil || pg.Items[0].ID != "sug_r6cV0CrZ.d3d787" {
		t.Errorf("109: %+v %v", pg, err)
	}
	r.check()
}

// Captures 103, 104: the second page repeats the first page's item and
// cursor (forever, on the live service). AllSuggestions asks that cursor
// once more with a page of 2, answered here with both suggestions (102,
// the message's whole list), and yields each once: it stopped after the
// first, silently, before.
func TestAllSuggestionsStopsOnRepeatedCursor(t *testing.T) {
	t.Parallel()
	r := replay(t, "103", "104", "102")
	var ids []string
	for s, err := range r.client().ForUser("user-1").AllSuggestions(context.Background(), sugThread, sugMsg, &ListSuggestionsParams{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	if !reflect.DeepEqual(ids, []string{"sug_Pc1DqeMP.7149fe", "sug_pGo0VEqe.58665c"}) {
		t.Errorf("ids %v", ids)
	}
	if n := r.requests(); n != 3 {
		t.Fatalf("%d requests", n)
	}
	q2, q3 := r.got[1].URL.Query(), r.got[2].URL.Query()
	if q3.Get("limit") != "2" || q3.Get("cursor") != q2.Get("cursor") {
		t.Errorf("third request %v, want page 2's cursor with limit 2", q3)
	}
}

// Captures 105, 106: a cursor of another message, or garbage, is the
// invalid_cursor problem; 107: an unknown message is 404.
func TestSuggestionsErrors(t *testing.T) {
	t.Parallel()
	r := replay(t, "105", "106", "107")
	c := r.client().ForUser("user-1")
	ctx := context.Background()
	cur := loadCapture(t, "105").query.Get("cursor")
	_, err := c.ListSuggestions(ctx, sugThread, "msg_Am2OeB88.52154b", &ListSuggestionsParams{Limit: 1, Cursor: cur})
	var p *threads.Problem
	if !errors.Is(err, ErrInvalidCursor) || !errors.As(err, &p) || p.Detail != "Cursor does not belong to this message" {
		t.Errorf("105: %v", err)
	}
	if _, err = c.ListSuggestions(ctx, sugThread, sugMsg, &ListSuggestionsParams{Cursor: "garbage"}); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("106: %v", err)
	}
	if _, err = c.GenerateSuggestions(ctx, sugThread, "msg_doesnotexist.123456", GenerateSuggestionsParams{}); !errors.Is(err, threads.ErrNotFound) {
		t.Errorf("107: %v", err)
	}
	r.check()
}
