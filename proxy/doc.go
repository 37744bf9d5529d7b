// Package proxy puts a Go backend between a browser and the service's /v1
// API, so that the project key stays on the server and the end user is
// whoever the backend's session says, never what the browser sends.
//
// It has two parts, which share their relay settings ([RelayOption]):
//
//   - [Relay] writes one run, a [*runs.Stream] or [*runs.ToolStream] the
//     backend started itself, to an [http.ResponseWriter] as Server-Sent
//     Events, the service's bytes with the secrets redacted, for a page's
//     EventSource. It sends keep-alive comments, bounds each write, and
//     closes the stream (cancelling the run on the service) when the
//     browser leaves, unless the run's pause had reached it ("Relaying a
//     run"); a browser that left is [RelayResult].Left with a nil error,
//     not a failure. Under [Handler.Detach] the run goes on into the
//     Handler's run log instead, and resumes from it (docs/reloads.md).
//   - [Handler] ([New]) serves the /v1 routes that the service's official
//     web clients call (@tambo-ai/client, its React library,
//     @tambo-ai/typescript-sdk): point their base URL at it, under
//     [http.StripPrefix] when mounted below a prefix. Each call is sent
//     through the backend's [*threads.Client] as the [User] the backend's
//     function returns for the request; only the allow-listed routes are
//     served, and server-side tools ([WithTools]) run in the backend, their
//     results waiting in a [Store] when a pause also needs the browser's
//     tools. Instances behind one load balancer share a Store
//     ([WithStore]; "The shared store" says what it holds);
//     [Handler.Shutdown] ends a deploy's instance gracefully. Under
//     [WithDetachedRuns] a run outlives its browser, whose page resumes
//     it on any instance from its Last-Event-ID (docs/reloads.md). Calls
//     that need a person's approval (their tool's NeedsApproval, under
//     [WithApprovals]) are parked in the Store and decided through
//     [Handler.ApprovalAPI] on any instance (docs/approvals.md).
//
// Both are safe for concurrent use. The package serves /v1 only (package
// runs), not the spec's routes of package threads. The command "threads
// proxy --user-key NAME" serves a Handler for one user, to try a web
// client locally. The Handler logs through [WithLogger] (an
// *slog.Logger, the spelling of every package with options; nothing
// without it); the calls it makes log through the client's
// threads.WithLogger.
//
// # Safe in front of browsers
//
// The Handler decides nothing about who the user is: the backend's user
// function does. What it needs from the backend around it:
//
//   - Its session check: the user function refuses a request without a
//     valid session (the Handler answers 401 and sends nothing).
//   - CSRF protection: a browser sends a site's cookies with requests
//     that other sites' pages make. The Handler refuses bodies that are
//     not JSON (415), so a page of another site cannot start a run or
//     write to a thread without the browser's CORS preflight; the backend
//     refuses the rest. Wrap the Handler in [http.CrossOriginProtection]
//     (it refuses cross-origin writes by their Sec-Fetch-Site and Origin
//     headers), give the session cookie SameSite=Lax or Strict, and
//     answer CORS only for the origins it trusts.
//   - A server that answers only its own host names (a DNS rebinding
//     page reaches a local server under another name): "threads proxy"
//     does; a backend behind a load balancer usually gets that from it.
//
// Server-side tools' calls are the server's: a result the browser sends
// for one is taken out of its continuation (and logged at warn level),
// and the server's own results are sent instead; when those are gone
// (expired from the [Store], refused by a full one, or never
// made because the browser left before the tool ran), the Handler
// answers the calls with error results that say so, and the run goes on.
// (The Handler records each server-side call in the store before the
// browser sees it; once that record has expired too, it can no longer
// tell which calls were the server's.)
//
// # The Handler's routes
//
// Every request a [Handler] serves is sent on through the backend's
// *threads.Client (its base URL, key, retries, timeouts, size limits,
// logger, observer and redaction) as the end user that the backend's user
// function returns for it:
//
//   - A userKey the browser sends, in the query or the body (the official
//     client always sends one), is never read: the call carries the
//     backend's user, where each route wants it. Another user's thread is
//     answered 403, as the service answers it, because the service decides
//     with the backend's user.
//   - The browser's own x-api-key and Authorization headers are never
//     forwarded; the project key is added on the server. No header, query
//     parameter or body member of the browser's request reaches the
//     service unless it is one the route takes: each route's query
//     parameters and body are read into the declaration package runs
//     sends from, and sent from it.
//   - Only the routes of the allow-list are served, with their methods:
//     the thread, message, run, cancel, component-state and suggestion
//     routes. A path with dot segments (in any spelling), encoded slashes
//     or backslashes, backslashes, control characters, or empty or blank
//     segments is refused (400) before anything is sent, as the SDK's
//     generic calls refuse it; any other path is 404 and another method
//     405.
//   - Bodies are bounded ([WithMaxBodySize]), answers and streams by the
//     client's limits, and each user's concurrent runs can be limited
//     ([WithMaxRunsPerUser]). Each user's streams read from run logs
//     ([WithDetachedRuns]: a run's own stream and its resumes) are
//     bounded per instance, to twice WithMaxRunsPerUser (4 without it):
//     each waits on a blocking store read, a pooled connection on Redis.
//     A resume past the bound is answered 429 with Retry-After before the
//     store is asked (docs/reloads.md).
//   - A route that takes a body (POST, PATCH) takes only a JSON one
//     (application/json or application/*+json, any charset); another is
//     answered 415 before the user function runs. A page of another site
//     may send a text/plain, form or multipart body with the user's
//     cookies without asking; a JSON one only after a CORS preflight.
//
// The Handler is an ordinary http.Handler, so the backend's own middleware
// (its session check, logging, CORS) wraps it, and the user function reads
// what that middleware put on the request.
//
// # Server-side tools
//
// The tools of [WithTools] are run by [runs.ToolRunner]'s code in every
// case: a tool's content parts reach the service as content parts, and an
// error's text as the model reads it holds neither the project key nor the
// end user's token. When a run pauses only for server-side tools, the
// Handler runs them and continues the run itself, in the same response:
// the browser sees every run's events in order (each run's RUN_STARTED and
// RUN_FINISHED), never the pause, and the run id it sends next as
// previousRunId (the last RUN_STARTED's) is the thread's last run, as the
// service wants. When a pause mixes both, the browser gets a
// tambo.run.awaiting_input with only its own calls; the Handler runs its
// own at once and keeps their results in the [Store] ([WithStore]) until
// the browser's continuation (the next run with that previousRunId; taken
// once, a second continuation finds none), which then carries both (a
// result larger than its share of [MaxPendingResults] keeps only its
// text, cut). A result the browser sends for a server's call is taken out,
// and calls whose results are gone are answered with error results ("Safe
// in front of browsers"). Of two calls in one turn, the model reads only
// the last one's result (a habit of the service).
//
// A tool learns whose run it serves with [UserFrom]: the run's end user,
// wherever the run's tools are called. A tool that fails or panics is
// answered to the model as an error result (isError), never a crash; so
// is a call of a tool that neither side has. The bounds are the
// [runs.ToolRunner] defaults (10 answered pauses in one response, the same
// call in 3 pauses in a row); a pause left unanswered by them is answered
// with error results in the user's next run.
//
// # The shared store
//
// [Store] keys are built by the Handler: a prefix ([WithStoreKeyPrefix];
// several applications may share one server), a format version (instances
// of two versions during a rolling deploy never read each other's values),
// the kind, then a scope and a name that hold no user key, id or token in
// clear. The part before a key's last colon is its scope: all of one
// user's values of one kind share it, so that a store can bound what one
// user holds ([MemoryStore] does). A user is their [User.ID] when the
// user function sets it, else their key or token. A key names one thing:
// a value, a lease or a log, never two.
//
// What the Handler keeps there: a mixed pause's server results, until the
// browser's continuation takes them; each user's run slots
// ([WithMaxRunsPerUser]); a record of each server-side call ([WithTools]),
// so that it runs once; and, with the options that use them, detached
// runs' logs, owners and cancels ([WithDetachedRuns]) and parked calls
// and their decisions ([WithApprovals]). Every value has a ttl.
//
// When the store cannot answer, nothing is retried (the next request tries
// again) and nothing runs twice:
//
//   - a continuation whose server results cannot be taken, a run whose
//     slot cannot be taken (unless [WithRunSlotsOpenOnStoreError]), a
//     resume whose run cannot be read and a decision of the approval API
//     are refused 503 with Retry-After: 1, and nothing is sent;
//   - a server-side call that cannot be recorded is not run: the model
//     reads an error result; so does one that cannot be parked for
//     approval ("approval expired", or not recorded), never the
//     browser's result for it;
//   - results that cannot be kept at a pause, a slot's lease that cannot
//     be renewed and a detached run's event that cannot be logged are
//     logged, and the run goes on; a page that cannot read a detached
//     run's log gets the run's state (RUN_STARTED, MESSAGES_SNAPSHOT and
//     the stored end) instead of its events;
//   - a detached run's log that missed an event is broken, never holed:
//     the owner logs none of the run's later events, only a marker and
//     the end, and a page gets the events before the marker, then the
//     run's state at its end; so does a page whose run's stream stopped
//     before the run's end (its owner died, Shutdown's deadline);
//   - a cancel reaches the service without the store.
//
// # Answers
//
// The Handler forwards the service's answers; it does not rewrite them.
// Every JSON answer (2xx or error, the cancel route's included) reaches
// the browser as the service's bytes, members this SDK version does not
// model included, with the secrets redacted by the client's request core
// (its API key, a key set with [WithRequestOptions], the end user's
// token) and nothing else changed. A run's events pass as the service's
// bytes, redacted alike. Headers:
//
//   - passed: the status, Retry-After, and a run's X-Run-Id and
//     X-Thread-Id (redacted);
//   - set by the Handler on every answer, never copied: Content-Type
//     (application/json, or text/event-stream for a run) and
//     X-Content-Type-Options: nosniff;
//   - never passed: any other header of the service's, Set-Cookie, CORS
//     and CSP headers and hop-by-hop headers among them.
//
// A service answer that is not JSON (a gateway's HTML page, 2xx or not),
// a redirect, or a failure the Handler cannot classify becomes the
// Handler's own 502, in the service's error shape, naming no host; an id
// no request may carry is 400. What the browser sends is allow-listed
// from the declaration package runs sends from, so a member runs learns
// to send is taken with no edit here.
//
// # Relaying a run
//
// [Relay] and the Handler write a run as the service writes it: each event
// one "data: <JSON>" line and a blank line, no event: lines and no id:
// lines (but for a detached run's, which the Handler serves from its log:
// [WithDetachedRuns], [Handler.Detach]), the service's own JSON (members
// this SDK version does not model included)
// with every spelling of the project key and of the end user's token
// replaced by "[REDACTED]" (an event the redaction would leave invalid is
// not written). What the stream does not read is not written: the
// service's second RUN_ERROR of a failure, a [*runs.ToolStream]'s own
// events.
//
// Events that have arrived together are written as one batch, and the
// response is flushed when nothing more has arrived: never later (an
// event reaches the browser as soon as its bytes reach the relay), and
// not once per event. The Handler, without server-side tools, relays the
// service's bytes as it reads them, finding per event only where it ends
// and its type; it decodes an event only when it acts on it.
//
// While nothing is written for the keep-alive interval ([WithKeepAlive])
// an SSE comment goes out, which readers skip. Writes and flushes go
// through [http.ResponseController]: a middleware's writer must flush, or
// unwrap to one that does (an Unwrap() http.ResponseWriter method), else
// the run reaches the browser only at its end (the Handler logs that once,
// naming the writer's type). Each write must end within the write timeout
// ([WithWriteTimeout]); a browser that reads slower is gone and its run
// cancelled. Behind a writer that takes no write deadline a timer cancels
// the run (and frees the user's run slot) when a write overruns, but the
// handler's goroutine stays in that write until the connection dies.
//
// A middleware that logs and keeps streaming:
//
//	type statusWriter struct {
//		http.ResponseWriter
//		status int
//	}
//
//	func (w *statusWriter) WriteHeader(s int) { w.status = s; w.ResponseWriter.WriteHeader(s) }
//	func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
//
//	func logged(next http.Handler) http.Handler {
//		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
//			sw := &statusWriter{ResponseWriter: w, status: 200}
//			next.ServeHTTP(sw, r)
//			slog.Info("request", "path", r.URL.Path, "status", sw.status)
//		})
//	}
//
// A pause (tambo.run.awaiting_input) is held until the run's end and
// written with it: the service records the run as complete only after it
// sends the pause, and a client that answers at once (as @tambo-ai/client
// does) would otherwise be refused now and then. When the run ends
// otherwise (an error, the connection to the service breaking), the held
// events are written with that end. A browser that leaves after the pause
// reached the relay does not cancel the run: it is read to its end, so
// that the user's continuation is accepted.
//
// Relay answers 200 (the browser's EventSource accepts only 200) with
// Cache-Control: no-cache and X-Accel-Buffering: no besides the event
// stream's type and the run's ids. Its error is the stream's: nil for a
// run that finished, paused or was cancelled, a [*runs.RunFailedError]
// for a failure (its RUN_ERROR was written), a stream error after the
// events that did arrive.
//
// # The service's habits that a backend meets
//
// When the model makes two tool calls in one turn, the service streams
// both and pauses for both, takes both results, but stores only the last
// call's tool_use and hands the model only its result: the model may not
// see the other results (captures-turn5 07-09). This holds for
// server-side tools as for the browser's ([runs.Client.RunTools]); the
// fake copies it with threadstest.WithLastToolCallOnly (and
// WithLiveHabits).
package proxy
