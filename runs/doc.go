// Package runs is the client of the service's /v1 API, the one the official
// clients use: threads that belong to one end user each, their messages,
// component state, suggestions, and the end-user token exchange. (Runs, the
// streamed replies, come next on the same Client.)
//
// Make a Client from your *threads.Client, then pick the end user:
//
//	client, err := threads.NewClient() // $THREADS_BASE_URL, $THREADS_API_KEY
//	...
//	alice := runs.New(client).ForUser("alice")
//	th, err := alice.CreateThread(ctx, runs.CreateThreadParams{})
//	for t, err := range alice.AllThreads(ctx, nil) { ... }
//
// # End users
//
// Every /v1 call acts for exactly one end user: a user key of your choice
// ([Client.ForUser]; the SDK puts it in the query or the body, wherever the
// route reads it) or an end-user token ([Client.ForToken]) that
// [Client.ExchangeToken] gets for your identity provider's token. Each
// returns a copy of the Client, so a per-call identity is
// base.ForUser(key).GetThread(...). A Client with neither refuses every
// call but ExchangeToken before sending ([ErrIdentity]). The API key always
// travels in x-api-key.
//
// # Options, retries, errors
//
// Client-wide settings are the *threads.Client's; per-call options are
// [threads.RequestOption]s. A GET is retried on connection errors, 408, 429
// and 5xx; a POST, PATCH or DELETE only when it provably did not act. Every
// non-2xx answer is a [threads.Problem] (read it with errors.As); match
// threads' sentinels (threads.ErrForbidden: an unknown, deleted or foreign
// thread) and this package's ([ErrRunActive], [ErrInvalidCursor]...) with
// errors.Is.
//
// # Paging
//
// Each List method returns one page; each All method is an iterator over
// every item. The service's cursors lose microseconds, so a page may repeat
// the previous one's last item, and suggestion paging can return its cursor
// forever: the iterators yield each id once, stop when a cursor comes back,
// and give up after [MaxPages] pages.
//
// The types are written by hand from the service's recorded answers, not
// generated from its OpenAPI document, which is wrong about several
// statuses and fields. Unknown enum values (roles, content types, run
// states) decode as they are.
package runs
