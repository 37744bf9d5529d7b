package runs_test

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

// Every JSON route against the fake, as it answers with and without the
// live habits.
func TestAgainstFake(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]threadstest.Option{"spec": nil, "live": {threadstest.WithLiveHabits()}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := threadstest.NewServer(t, opts...)
			base := runs.New(srv.Client())
			u := base.ForUser("user-1")

			th, err := u.CreateThread(ctx, runs.CreateThreadParams{Metadata: map[string]any{"n": 1}, InitialMessages: []runs.InitialMessage{
				{Role: runs.RoleUser, Content: []runs.Content{runs.Text("one")}},
				{Role: runs.RoleAssistant, Content: []runs.Content{runs.Text("two")}},
				{Role: runs.RoleUser, Content: []runs.Content{runs.Text("three")}},
			}})
			if err != nil || th.UserKey != "user-1" || th.RunStatus != runs.RunStatusIdle {
				t.Fatalf("create: %+v %v", th, err)
			}
			got, err := u.GetThread(ctx, th.ID)
			if err != nil || len(got.Messages) != 3 || got.Messages[2].Text() != "three" {
				t.Fatalf("get: %+v %v", got, err)
			}
			up, err := u.UpdateThread(ctx, th.ID, runs.UpdateThreadParams{Name: "renamed", Metadata: map[string]any{"topic": "x"}})
			if err != nil || up.Name != "renamed" || up.Metadata["n"] != nil || up.Metadata["topic"] != "x" {
				t.Fatalf("update: %+v %v", up, err)
			}
			var texts []string
			for m, err := range u.AllMessages(ctx, th.ID, &runs.ListMessagesParams{Limit: 2, Order: runs.OrderDesc}) {
				if err != nil {
					t.Fatal(err)
				}
				texts = append(texts, m.Text())
			}
			if len(texts) != 3 || texts[0] != "three" || texts[2] != "one" {
				t.Fatalf("messages: %v", texts)
			}
			msg := got.Messages[1]
			if m, err := u.GetMessage(ctx, th.ID, msg.ID); err != nil || m.Text() != "two" {
				t.Fatalf("get message: %+v %v", m, err)
			}
			if _, err := u.GetMessage(ctx, th.ID, "msg_nope.000000"); !errors.Is(err, threads.ErrNotFound) {
				t.Fatalf("unknown message: %v", err)
			}
			sg, err := u.GenerateSuggestions(ctx, th.ID, msg.ID, runs.GenerateSuggestionsParams{MaxSuggestions: 3})
			if err != nil || len(sg.Items) != 3 {
				t.Fatalf("generate: %+v %v", sg, err)
			}
			n := 0
			for _, err := range u.AllSuggestions(ctx, th.ID, msg.ID, &runs.ListSuggestionsParams{Limit: 1}) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != 3 {
				t.Fatalf("suggestions: %d", n)
			}
			if _, err := u.ListSuggestions(ctx, th.ID, msg.ID, &runs.ListSuggestionsParams{Cursor: "garbage"}); !errors.Is(err, runs.ErrInvalidCursor) {
				t.Fatalf("bad cursor: %v", err)
			}
			if _, err := u.SetComponentState(ctx, th.ID, "message-none", map[string]any{}); !errors.Is(err, threads.ErrNotFound) {
				t.Fatalf("component: %v", err)
			}
			// Another user, then a token user, cannot see the thread.
			if _, err := base.ForUser("user-2").GetThread(ctx, th.ID); !errors.Is(err, threads.ErrForbidden) {
				t.Fatalf("user-2: %v", err)
			}
			subject := "e30." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"https://idp.example.com","sub":"alice"}`)) + "."
			tok, err := base.ExchangeToken(ctx, subject)
			if err != nil || tok.ExpiresIn == 0 {
				t.Fatalf("exchange: %+v %v", tok, err)
			}
			alice := base.ForToken(tok.Token)
			if _, err := alice.GetThread(ctx, th.ID); !errors.Is(err, threads.ErrForbidden) {
				t.Fatalf("token user: %v", err)
			}
			at, err := alice.CreateThread(ctx, runs.CreateThreadParams{})
			if err != nil || at.UserKey != "oauth:user:idp.example.com:alice" {
				t.Fatalf("token create: %+v %v", at, err)
			}
			if _, err := base.ExchangeToken(ctx, "not-a-jwt"); !errors.Is(err, threads.ErrUnauthorized) {
				t.Fatalf("bad subject: %v", err)
			}
			if err := u.DeleteThread(ctx, th.ID); err != nil {
				t.Fatal(err)
			}
			if err := u.DeleteThread(ctx, th.ID); !errors.Is(err, threads.ErrForbidden) {
				t.Fatalf("delete again: %v", err)
			}
			// The key always travelled in x-api-key.
			for _, r := range srv.Requests() {
				if r.Header.Get("X-Api-Key") != srv.APIKey {
					t.Fatalf("%s %s without x-api-key", r.Method, r.Path)
				}
			}
		})
	}
}
