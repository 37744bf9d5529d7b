package runs

import (
	"errors"
	"fmt"
	"iter"
)

// MaxPages bounds every All* iterator: after this many pages it yields
// [ErrTooManyPages] and stops. At the service's largest page (100 items) it
// is 100,000 items; the ids seen, kept to skip repeats, are the iterator's
// only memory that grows with the pages (a few MiB at most), and each
// page's bytes are bounded by the *threads.Client's response size limit.
const MaxPages = 1000

// ErrTooManyPages is yielded by an All* iterator that reached [MaxPages]
// without seeing the last page.
var ErrTooManyPages = errors.New("runs: too many pages")

// pages iterates over items from first (a cursor, "" for the start) to
// the last page, working around the service's cursor faults (v1-api.md
// section 8): its cursors carry milliseconds while rows hold microseconds,
// so a page may repeat the previous page's last items (yielded once here:
// seen ids are skipped), and suggestion paging returns the cursor it was
// given forever (paging stops when a cursor comes back that was already
// used, with no error: every item has been yielded).
func pages[T any](first string, fetch func(cursor string) (items []T, next string, more bool, err error), id func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seen := map[string]struct{}{}
		used := map[string]struct{}{first: {}}
		cursor := first
		for page := 0; ; page++ {
			if page == MaxPages {
				yield(zero, fmt.Errorf("%w: stopped after %d", ErrTooManyPages, MaxPages))
				return
			}
			items, next, more, err := fetch(cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range items {
				k := id(it)
				if _, dup := seen[k]; dup {
					continue
				}
				seen[k] = struct{}{}
				if !yield(it, nil) {
					return
				}
			}
			if !more || next == "" {
				return
			}
			if _, loop := used[next]; loop {
				return
			}
			used[next] = struct{}{}
			cursor = next
		}
	}
}
