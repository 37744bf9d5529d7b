package runs

import (
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
)

// MaxPages bounds every All* iterator: after this many requests it yields
// [ErrTooManyPages] and stops. At the service's largest page (100 items) it
// is 100,000 items, and an iterator yields no more than that whatever the
// pages hold. To skip repeats it keeps an 8-byte hash of each id and of
// each cursor, never the ids themselves: its memory that grows with the
// pages stays under a few MiB however long the ids are, and each page's
// bytes are bounded by the *threads.Client's response size limit.
const MaxPages = 1000

// maxListed bounds the items of one iteration, and so its set of id hashes.
const maxListed = MaxPages * maxPageLimit

// maxPageLimit is the largest page the service gives.
const maxPageLimit = 100

// ErrTooManyPages is yielded by an All* iterator that reached [MaxPages]
// requests, or MaxPages×100 items, without seeing the last page.
var ErrTooManyPages = errors.New("runs: too many pages")

// ErrStoppedShort is yielded by an All* iterator that had to stop before
// the last page: the service handed back a cursor it had given before,
// still saying it has more, and asked that cursor once more with a larger
// page it made no progress either. The items yielded before are not all
// there is.
var ErrStoppedShort = errors.New("runs: the listing stopped short of its end")

// pages iterates over items from first (a cursor, "" for the start) to the
// last page, asking pages of limit items (0: the service's default). It
// works around the service's cursor faults (captures-turn4 08-21):
//
//   - a page may repeat items of the previous one (ascending pages include
//     the cursor's own item): each id is yielded once;
//   - with a page too small to move past items that share a timestamp
//     (limit 1 on messages, on suggestions made together) the service
//     answers the same page and the same cursor forever: a cursor that
//     comes back after it was used, while the page says there is more, is
//     asked once more with a larger page (twice limit, or the largest, 100,
//     for the service's default), which the rest of the listing keeps. If
//     that gives a used cursor again (or the page cannot grow), the
//     iterator yields [ErrStoppedShort]: a server whose cursors cycle is
//     stopped within a few requests.
//
// Fresh cursors that bring nothing new still end at [MaxPages].
func pages[T any](first string, limit int, fetch func(cursor string, limit int) (items []T, next string, more bool, err error), id func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		// Hashes, not the ids and cursors: a server may send ids of a
		// MiB each. The seed is the iteration's own, so a server cannot
		// choose ids that collide.
		seed := maphash.MakeSeed()
		seen := map[uint64]struct{}{}
		used := map[uint64]struct{}{maphash.String(seed, first): {}}
		cursor, retried := first, false
		for page := 0; ; page++ {
			if page == MaxPages {
				yield(zero, fmt.Errorf("%w: stopped after %d requests", ErrTooManyPages, MaxPages))
				return
			}
			items, next, more, err := fetch(cursor, limit)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range items {
				h := maphash.String(seed, id(it))
				if _, dup := seen[h]; dup {
					continue
				}
				if len(seen) == maxListed {
					yield(zero, fmt.Errorf("%w: stopped after %d items", ErrTooManyPages, maxListed))
					return
				}
				seen[h] = struct{}{}
				if !yield(it, nil) {
					return
				}
			}
			if !more || next == "" {
				return
			}
			h := maphash.String(seed, next)
			if _, again := used[h]; again {
				larger := largerPage(limit)
				if retried || larger == limit {
					yield(zero, fmt.Errorf("%w: after %d items the service gave back a cursor it had given before, with more to come, also for a page of %d", ErrStoppedShort, len(seen), limit))
					return
				}
				cursor, limit, retried = next, larger, true
				continue
			}
			used[h] = struct{}{}
			cursor, retried = next, false
		}
	}
}

// largerPage is the page asked after a repeated cursor: twice limit, at
// most the service's largest; for the service's default (0, at most 50 on
// every route) the largest.
func largerPage(limit int) int {
	if limit <= 0 {
		return maxPageLimit
	}
	return min(2*limit, maxPageLimit)
}
