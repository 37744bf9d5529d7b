package runs

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

type item struct{ id string }

// fakePages serves pages[i] for cursor "c<i>" ("" is page 0), with
// nextCursor next[i], whatever the limit; it records the limits asked.
func fakePages(pages [][]string, next []string, limits *[]int) func(string, int) ([]item, string, bool, error) {
	return func(cursor string, limit int) ([]item, string, bool, error) {
		*limits = append(*limits, limit)
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

// servicePages pages ids as the service pages ascending messages
// (captures-turn4 08-16): a page starts at its cursor's own item and its
// cursor is its last item, so a page of one never moves on.
func servicePages(ids []string, limits *[]int) func(string, int) ([]item, string, bool, error) {
	return func(cursor string, limit int) ([]item, string, bool, error) {
		*limits = append(*limits, limit)
		start := 0
		if cursor != "" {
			start = slices.Index(ids, cursor)
		}
		end := min(start+limit, len(ids))
		var out []item
		for _, id := range ids[start:end] {
			out = append(out, item{id})
		}
		if end == len(ids) {
			return out, "", false, nil
		}
		return out, ids[end-1], true, nil
	}
}

func byID(i item) string { return i.id }

// collect returns the ids of what seq yields up to its error.
func collect[T any](t *testing.T, seq iter.Seq2[T, error], id func(T) string) ([]string, error) {
	t.Helper()
	var ids []string
	for it, err := range seq {
		if err != nil {
			return ids, err
		}
		ids = append(ids, id(it))
	}
	return ids, nil
}

func TestPagesSkipsRepeatedItems(t *testing.T) {
	t.Parallel()
	var limits []int
	seq := pages("", 3, fakePages([][]string{{"a", "b", "c"}, {"c", "d", "e"}, {"e", "f"}}, []string{"c1", "c2", ""}, &limits), byID)
	ids, err := collect(t, seq, byID)
	if err != nil || !reflect.DeepEqual(ids, []string{"a", "b", "c", "d", "e", "f"}) || !reflect.DeepEqual(limits, []int{3, 3, 3}) {
		t.Fatalf("ids %v err %v limits %v", ids, err, limits)
	}
}

// A page of one on the service never moves on (the same item and cursor
// forever): the repeated cursor is asked with a page of two, which the
// rest of the listing keeps, and every item comes back once. It stopped
// after the first item, with no error, before.
func TestPagesRepeatedCursorAskedWithLargerPage(t *testing.T) {
	t.Parallel()
	var limits []int
	all := []string{"a", "b", "c", "d", "e", "f"}
	ids, err := collect(t, pages("", 1, servicePages(all, &limits), byID), byID)
	if err != nil || !reflect.DeepEqual(ids, all) {
		t.Fatalf("ids %v err %v", ids, err)
	}
	if want := []int{1, 1, 2, 2, 2, 2, 2}; !reflect.DeepEqual(limits, want) {
		t.Errorf("limits %v, want %v", limits, want)
	}
	// The service's default page (0) grows to the largest, 100.
	limits = nil
	many := make([]string, 60)
	for i := range many {
		many[i] = fmt.Sprint("m", i)
	}
	stuck := func(cursor string, limit int) ([]item, string, bool, error) {
		if limit == 0 {
			limit = 1 // a default too small to move on
		}
		return servicePages(many, &limits)(cursor, limit)
	}
	ids, err = collect(t, pages("", 0, stuck, byID), byID)
	if err != nil || len(ids) != 60 || limits[len(limits)-1] != 100 {
		t.Fatalf("default page: %d ids, err %v, limits %v", len(ids), err, limits)
	}
}

// A repeated cursor that the larger page does not move past either ends
// the listing with ErrStoppedShort, within a few requests: a cursor that
// comes back at once, a longer cycle, and a page that cannot grow.
func TestPagesStoppedShort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		limit  int
		next   []string
		limits []int
	}{
		{"same cursor", 1, []string{"c1", "c1"}, []int{1, 1, 2}},
		{"cycle", 5, []string{"c1", "c2", "c1"}, []int{5, 5, 5, 10}},
		{"largest page", 100, []string{"c1", "c1"}, []int{100, 100}},
	} {
		var limits []int
		pgs := [][]string{{"a"}, {"a", "b"}, {"b", "c"}}
		ids, err := collect(t, pages("", tc.limit, fakePages(pgs[:len(tc.next)], tc.next, &limits), byID), byID)
		if !errors.Is(err, ErrStoppedShort) || !reflect.DeepEqual(limits, tc.limits) {
			t.Errorf("%s: ids %v err %v limits %v, want limits %v", tc.name, ids, err, limits, tc.limits)
		}
		if n := len(ids); n != len(slices.Compact(slices.Sorted(slices.Values(ids)))) {
			t.Errorf("%s: an id twice in %v", tc.name, ids)
		}
	}
}

// Fresh cursors end at MaxPages, whether they bring new items or none.
func TestPagesBounded(t *testing.T) {
	t.Parallel()
	for _, fresh := range []bool{true, false} {
		calls := 0
		seq := pages("", 0, func(cursor string, _ int) ([]item, string, bool, error) {
			calls++
			id := "same"
			if fresh {
				id = fmt.Sprint(calls)
			}
			return []item{{id}}, fmt.Sprint("c", calls), true, nil
		}, byID)
		ids, err := collect(t, seq, byID)
		want := 1
		if fresh {
			want = MaxPages
		}
		if !errors.Is(err, ErrTooManyPages) || calls != MaxPages || len(ids) != want {
			t.Fatalf("fresh items %v: err %v calls %d items %d", fresh, err, calls, len(ids))
		}
	}
}

// Pages fuller than the service's largest cannot make the iterator keep
// more than MaxPages×100 ids: it stops there with ErrTooManyPages.
func TestPagesItemsBounded(t *testing.T) {
	t.Parallel()
	calls := 0
	seq := pages("", 0, func(cursor string, _ int) ([]item, string, bool, error) {
		out := make([]item, 5000)
		for i := range out {
			out[i] = item{strconv.Itoa(calls*5000 + i)}
		}
		calls++
		return out, fmt.Sprint("c", calls), true, nil
	}, byID)
	ids, err := collect(t, seq, byID)
	if !errors.Is(err, ErrTooManyPages) || len(ids) != MaxPages*100 || calls != MaxPages*100/5000+1 {
		t.Fatalf("err %v, %d items after %d pages", err, len(ids), calls)
	}
}

// The attack round's finding: ids were kept whole to skip repeats, so
// pages of one 1 MiB id each grew the heap by a MiB a page (~4 GiB at the
// page limit). Kept by hash, 48 such pages leave the heap where it was.
// Not parallel: it reads the heap.
func TestPagesKeepIDsByHash(t *testing.T) {
	const pagesN, size = 48, 1 << 20
	calls := 0
	seq := pages("", 0, func(cursor string, _ int) ([]item, string, bool, error) {
		calls++
		id := strings.Repeat(string(rune('a'+calls%26)), size-8) + fmt.Sprintf("%08d", calls)
		more := calls < pagesN
		return []item{{id}}, fmt.Sprint("c", calls), more, nil
	}, byID)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	for _, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == pagesN {
			var now runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&now)
			if grew := int64(now.HeapAlloc) - int64(before.HeapAlloc); grew > 12<<20 {
				t.Fatalf("the heap grew by %d MiB over %d pages of one 1 MiB id", grew>>20, pagesN)
			}
		}
	}
	if n != pagesN {
		t.Fatalf("%d items", n)
	}
}

func TestPagesErrorAndBreak(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	calls := 0
	seq := pages("", 0, func(cursor string, _ int) ([]item, string, bool, error) {
		calls++
		if cursor == "c1" {
			return nil, "", false, boom
		}
		return []item{{"a"}, {"b"}}, "c1", true, nil
	}, byID)
	ids, err := collect(t, seq, byID)
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
// cursor it got, also for a larger page: AllThreads yields each thread
// once and ends with ErrStoppedShort after three requests (the third asks
// K1 with a page of 100, the service's default of 20 doubled up to the
// largest), not in silence.
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
	var last error
	for th, err := range newTestClient(t, srv.URL).ForUser("u").AllThreads(context.Background(), nil) {
		if err != nil {
			last = err
			continue
		}
		ids = append(ids, th.ID)
	}
	if !reflect.DeepEqual(ids, []string{"thr_a", "thr_b", "thr_c"}) || n.Load() != 3 || !errors.Is(last, ErrStoppedShort) {
		t.Fatalf("ids %v after %d requests, err %v", ids, n.Load(), last)
	}
}

// pagedServer answers each GET with the recorded page (turn-4 captures)
// whose request had the same path, limit and cursor, and counts the
// requests; extra maps a (limit, cursor) no capture asked to the capture
// whose answer the service gives it (see its callers).
type pagedServer struct {
	URL   string
	n     atomic.Int32
	pages map[string]capture
}

func servePages(t *testing.T, names []string, extra map[[2]string]string) *pagedServer {
	t.Helper()
	s := &pagedServer{pages: map[string]capture{}}
	key := func(path, limit, cursor string) string { return path + "?" + limit + "&" + cursor }
	byName := map[string]capture{}
	var path string
	for _, n := range names {
		c := loadCaptureIn(t, "captures-turn4", n)
		byName[n] = c
		if c.method != http.MethodGet {
			continue
		}
		path = c.path
		k := key(c.path, c.query.Get("limit"), c.query.Get("cursor"))
		if _, ok := s.pages[k]; !ok {
			s.pages[k] = c
		}
	}
	for lc, n := range extra {
		s.pages[key(path, lc[0], lc[1])] = byName[n]
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.n.Add(1)
		q := r.URL.Query()
		c, ok := s.pages[key(r.URL.EscapedPath(), q.Get("limit"), q.Get("cursor"))]
		if !ok || q.Get("userKey") != "user-1" {
			http.Error(w, "no capture for "+r.URL.String(), http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", c.respHeader.Get("Content-Type"))
		w.Write(c.respBody)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Issue 31, captures 08-16: with limit=1 the service answers the first
// message and the same cursor forever (hasMore true); asked that cursor
// with a larger page it moves on (each page of 2 repeats the previous
// page's last message). AllMessages(Limit 1) over the six messages
// yields all six, each once: it stopped after the first, silently, before.
// The service's answer to limit=2 from the first message's cursor is
// page 12's: its pages include the cursor's own message (08-16).
func TestAllMessagesLimit1Captures(t *testing.T) {
	t.Parallel()
	const first = "eyJjcmVhdGVkQXQiOiIyMDI2LTExLTI1VDE4OjU3OjI2LjcyM1oiLCJpZCI6Im1zZ185WDJwQmdLTC5lODkxNGUifQ"
	s := servePages(t, []string{"08", "09", "10", "11", "12", "13", "14", "15", "16"}, map[[2]string]string{{"2", first}: "12"})
	c := newTestClient(t, s.URL).ForUser("user-1")
	ids, err := collect(t, c.AllMessages(context.Background(), "thr_hMWOz9U.6ef30a", &ListMessagesParams{Limit: 1}), func(m Message) string { return m.ID })
	if err != nil {
		t.Fatalf("after %v: %v", ids, err)
	}
	want := []string{"msg_9X2pBgKL.e8914e", "msg_ZxgbTQvy.7d2ffd", "msg_QZlbgUkQ.5888cf", "msg_Yq2zOxBK.428ce5", "msg_v2LbnKvf.8d233a", "msg_dmjGCaIR.f24220"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids %v, want %v", ids, want)
	}
	// 08, 09 (the repeat), 09's cursor with limit 2, then 13-16.
	if n := s.n.Load(); n != 7 {
		t.Errorf("%d requests, want 7", n)
	}
}

// Captures 17-21: two suggestions made together share a timestamp, so
// limit=1 repeats the first suggestion and its cursor forever.
// AllSuggestions(Limit 1) asks the repeated cursor with a larger page and
// yields both (it stopped after the first, silently, before): the answer
// to limit=2 is the message's two suggestions, as 17 made them. Served
// with no page larger than 1 (19 again), the larger page makes no
// progress either, and the listing ends with ErrStoppedShort after the
// one suggestion, not in silence.
func TestAllSuggestionsLimit1Captures(t *testing.T) {
	t.Parallel()
	const cur = "eyJjcmVhdGVkQXQiOiIyMDI2LTExLTI1VDE4OjU3OjI4LjA4OFoiLCJpZCI6InN1Z19JNVhaWmZzVy5jZTQzZDgiLCJtZXNzYWdlSWQiOiJtc2dfZG1qR0NhSVIuZjI0MjIwIn0"
	for _, tc := range []struct {
		larger  string // the capture that answers limit=2
		want    []string
		wantErr error
	}{
		{"17", []string{"sug_I5XZZfsW.ce43d8", "sug_SVRmB28d.687a86"}, nil},
		{"19", []string{"sug_I5XZZfsW.ce43d8"}, ErrStoppedShort},
	} {
		s := servePages(t, []string{"17", "18", "19", "20", "21"}, map[[2]string]string{{"2", cur}: tc.larger})
		c := newTestClient(t, s.URL).ForUser("user-1")
		ids, err := collect(t, c.AllSuggestions(context.Background(), "thr_hMWOz9U.6ef30a", "msg_dmjGCaIR.f24220", &ListSuggestionsParams{Limit: 1}),
			func(s Suggestion) string { return s.ID })
		if !errors.Is(err, tc.wantErr) || !reflect.DeepEqual(ids, tc.want) {
			t.Errorf("limit 2 answered by %s: ids %v, err %v; want %v, %v", tc.larger, ids, err, tc.want, tc.wantErr)
		}
		if n := s.n.Load(); n != 3 {
			t.Errorf("limit 2 answered by %s: %d requests, want 3", tc.larger, n)
		}
	}
}
