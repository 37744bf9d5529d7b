package runs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"
)

type item struct{ id string }

// fakePages serves pages[i] for cursor "c<i>" ("" is page 0), with
// nextCursor next[i].
func fakePages(pages [][]string, next []string, calls *int) func(string) ([]item, string, bool, error) {
	return func(cursor string) ([]item, string, bool, error) {
		*calls++
		i := 0
		if cursor != "" {
			i, _ = strconv.Atoi(cursor[1:])
		}
		var out []item
		for _, id := range pages[i] {
			out = append(out, item{id})
		}
		return out, next[i], next[i] != "", nil
	}
}

func collect(t *testing.T, seq func(func(item, error) bool)) ([]string, error) {
	t.Helper()
	var ids []string
	for it, err := range seq {
		if err != nil {
			return ids, err
		}
		ids = append(ids, it.id)
	}
	return ids, nil
}

func TestPagesSkipsRepeatedItems(t *testing.T) {
	t.Parallel()
	calls := 0
	seq := pages("", fakePages([][]string{{"a", "b", "c"}, {"c", "d", "e"}, {"e", "f"}}, []string{"c1", "c2", ""}, &calls), func(i item) string { return i.id })
	ids, err := collect(t, seq)
	if err != nil || !reflect.DeepEqual(ids, []string{"a", "b", "c", "d", "e", "f"}) || calls != 3 {
		t.Fatalf("ids %v err %v calls %d", ids, err, calls)
	}
}

func TestPagesStopsWhenCursorRepeats(t *testing.T) {
	t.Parallel()
	for name, next := range map[string][]string{
		"same cursor": {"c1", "c1"},       // page 1 gives its own cursor again (suggestions)
		"cycle":       {"c1", "c2", "c1"}, // a longer loop
	} {
		calls := 0
		pgs := [][]string{{"a"}, {"a", "b"}, {"b", "c"}}
		seq := pages("", fakePages(pgs[:len(next)], next, &calls), func(i item) string { return i.id })
		ids, err := collect(t, seq)
		if err != nil || calls != len(next) {
			t.Errorf("%s: ids %v err %v calls %d", name, ids, err, calls)
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Errorf("%s: %s twice", name, id)
			}
			seen[id] = true
		}
	}
}

func TestPagesBounded(t *testing.T) {
	t.Parallel()
	calls := 0
	seq := pages("", func(cursor string) ([]item, string, bool, error) {
		calls++
		return []item{{fmt.Sprint(calls)}}, fmt.Sprint("c", calls), true, nil
	}, func(i item) string { return i.id })
	ids, err := collect(t, seq)
	if !errors.Is(err, ErrTooManyPages) || calls != MaxPages || len(ids) != MaxPages {
		t.Fatalf("err %v calls %d items %d", err, calls, len(ids))
	}
}

func TestPagesErrorAndBreak(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	calls := 0
	seq := pages("", func(cursor string) ([]item, string, bool, error) {
		calls++
		if cursor == "c1" {
			return nil, "", false, boom
		}
		return []item{{"a"}, {"b"}}, "c1", true, nil
	}, func(i item) string { return i.id })
	ids, err := collect(t, seq)
	if !errors.Is(err, boom) || !reflect.DeepEqual(ids, []string{"a", "b"}) {
		t.Fatalf("ids %v err %v", ids, err)
	}
	calls = 0
	for range seq {
		break
	}
	if calls != 1 {
		t.Fatalf("break: %d calls", calls)
	}
}

// A server whose every page repeats its last thread and hands back the
// cursor it got: AllThreads yields each thread once and stops.
func TestAllThreadsAgainstLoopingServer(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		switch r.URL.Query().Get("cursor") {
		case "":
			fmt.Fprint(w, `{"threads":[{"id":"thr_a","runStatus":"idle","createdAt":"2026-11-24T05:28:11.912Z","updatedAt":"2026-11-24T05:28:11.912Z"},{"id":"thr_b","runStatus":"idle","createdAt":"2026-11-24T05:28:11.912Z","updatedAt":"2026-11-24T05:28:11.912Z"}],"nextCursor":"K1","hasMore":true}`)
		default:
			fmt.Fprint(w, `{"threads":[{"id":"thr_b","runStatus":"idle","createdAt":"2026-11-24T05:28:11.912Z","updatedAt":"2026-11-24T05:28:11.912Z"},{"id":"thr_c","runStatus":"idle","createdAt":"2026-11-24T05:28:11.912Z","updatedAt":"2026-11-24T05:28:11.912Z"}],"nextCursor":"K1","hasMore":true}`)
		}
	}))
	defer srv.Close()
	var ids []string
	for th, err := range newTestClient(t, srv.URL).ForUser("u").AllThreads(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, th.ID)
	}
	if !reflect.DeepEqual(ids, []string{"thr_a", "thr_b", "thr_c"}) || n.Load() != 2 {
		t.Fatalf("ids %v after %d requests", ids, n.Load())
	}
}
