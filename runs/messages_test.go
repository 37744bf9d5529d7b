package runs

import (
	"context"
	"errors"
	"reflect"
	"testing"

	threads "github.com/threadsapi/threads-go"
)

// Capture 31: the default page; 34, 35: newest first at limit 2, with
// order and cursor in the query.
func TestListMessagesCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "31")
	pg, err := r.client().ForUser("user-1").ListMessages(context.Background(), "thr_ypQeLf2s.25afbb", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Items) != 4 || pg.HasMore || pg.Items[2].Text() != "second question" {
		t.Errorf("31: %+v", pg)
	}
	r.check()

	r = replay(t, "34", "35")
	var ids []string
	for m, err := range r.client().ForUser("user-1").AllMessages(context.Background(), "thr_ypQeLf2s.25afbb", &ListMessagesParams{Limit: 2, Order: OrderDesc}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	want := []string{"msg_neC6H97.1d8f58", "msg_dJ0bWsPL.531cd4", "msg_Am2OeB88.52154b", "msg_klX5n0xa.979234"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("34-35: %v", ids)
	}
	r.check()
}

// Captures 32, 33: ascending pages repeat the boundary message
// (msg_dJ0bWsPL.531cd4 ends page 1 and starts page 2); ListMessages
// returns the pages as sent, AllMessages yields it once.
func TestAllMessagesSkipsBoundaryRepeat(t *testing.T) {
	t.Parallel()
	r := replay(t, "32", "33")
	c := r.client().ForUser("user-1")
	var ids []string
	for m, err := range c.AllMessages(context.Background(), "thr_ypQeLf2s.25afbb", &ListMessagesParams{Limit: 3}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	want := []string{"msg_klX5n0xa.979234", "msg_Am2OeB88.52154b", "msg_dJ0bWsPL.531cd4", "msg_neC6H97.1d8f58"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("32-33: %v, want %v", ids, want)
	}
	r.check()
}

// Captures 37, 38, 88, 99: a message; 404 for an unknown one; component
// parts with props and state.
func TestGetMessageCaptures(t *testing.T) {
	t.Parallel()
	r := replay(t, "37", "38", "99")
	c := r.client().ForUser("user-1")
	m, err := c.GetMessage(context.Background(), "thr_ypQeLf2s.25afbb", "msg_Am2OeB88.52154b")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "msg_Am2OeB88.52154b" || m.Role != RoleAssistant || len(m.Content) != 1 || m.Content[0].Type != ContentText {
		t.Errorf("37: %+v", m)
	}
	_, err = c.GetMessage(context.Background(), "thr_ypQeLf2s.25afbb", "msg_doesnotexist.123456")
	var p *threads.Problem
	if !errors.Is(err, threads.ErrNotFound) || !errors.As(err, &p) ||
		p.Detail != "Message msg_doesnotexist.123456 not found in thread thr_ypQeLf2s.25afbb" {
		t.Errorf("38: %v", err)
	}
	m, err = c.GetMessage(context.Background(), "thr_nZmVC5Tz.14fe20", "msg_qwtJaEpp.5e60ce")
	if err != nil {
		t.Fatal(err)
	}
	want := Content{Type: ContentComponent, ID: "message-GqTWYXDmwToHLHOA7Tn4J", Name: "WeatherCard",
		Props: map[string]any{"city": "Lisbon", "unit": "celsius", "temperature": float64(21)},
		State: map[string]any{"items": []any{float64(1), float64(2), float64(3)}, "expanded": false}}
	if len(m.Content) != 2 || m.Content[0].Text != " " || !reflect.DeepEqual(m.Content[1], want) {
		t.Errorf("99: %+v", m.Content)
	}
	r.check()

	r = replay(t, "88")
	pg, err := r.client().ForUser("user-1").ListMessages(context.Background(), "thr_nZmVC5Tz.14fe20", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Items) != 3 || pg.Items[1].Content[1].Type != ContentComponent || pg.Items[1].Content[1].State == nil {
		t.Errorf("88: %+v", pg.Items)
	}
	r.check()
}

// Unknown content types and roles decode without error, as sent.
func TestUnknownEnumsDecode(t *testing.T) {
	t.Parallel()
	srv := newStatic(t, 200, `{"id":"msg_1","role":"narrator","content":[{"type":"hologram","text":"x"}],"createdAt":"2026-11-24T05:28:31.784Z","isCancelled":true}`)
	m, err := newTestClient(t, srv).ForUser("u").GetMessage(context.Background(), "thr_1", "msg_1")
	if err != nil {
		t.Fatal(err)
	}
	if m.Role != "narrator" || m.Content[0].Type != "hologram" || !m.IsCancelled {
		t.Errorf("%+v", m)
	}
}
