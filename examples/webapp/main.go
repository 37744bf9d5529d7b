// Command webapp is a Go backend in front of a web app: it serves a small
// page that streams a run from the backend, and the /v1 routes the
// service's official web clients call, so that a React or TypeScript app
// needs neither the project key nor a say in who its user is.
//
//   - GET / is the page. It gives the browser a session cookie (the
//     backend's own: the end user is looked up from it, never read from
//     the browser), and streams the answer to a question with the
//     browser's EventSource from GET /stream.
//   - GET /stream?q=... starts a run for the session's user and relays its
//     events with proxy.Relay: the service's own Server-Sent Events, each
//     with an id:. The run is detached (proxy.Handler.Detach): a closed tab
//     does not cancel it, and GET /api/tambo/v1/threads/{threadId}/runs/
//     {runId}/events resumes it (its ids are in RUN_STARTED).
//   - /api/tambo/v1/... is proxy.Handler: point @tambo-ai/client (tamboUrl)
//     or the TypeScript SDK (baseURL) at http://ADDR/api/tambo. It offers
//     the model server-side tools beside the browser's own: server_time,
//     and send_gift_card, whose calls wait for the user's approval.
//   - /api/approvals/ is the approval API (proxy.Handler.ApprovalAPI): the
//     page's prompt posts the user's decision there, then resumes the run
//     the decision continued (docs/approvals.md).
//     Its runs are detached (proxy.WithDetachedRuns): a reload does not
//     cancel them, and the page's second form resumes one after a reload
//     from the last event it showed (GET …/runs/{runId}/events).
//
// What proxy.Handler leaves to the backend, it adds: the session check
// (the user function refuses a request without a known session: 401) and
// CSRF protection (http.CrossOriginProtection around everything, and a
// SameSite=Strict session cookie).
//
// With THREADS_BASE_URL unset it starts the SDK's built-in fake service in
// this process, so it runs anywhere:
//
//	go run ./examples/webapp            # then open http://127.0.0.1:8080
//
// Against the real service, set THREADS_BASE_URL and THREADS_API_KEY.
// WEBAPP_ADDR sets the address (default 127.0.0.1:8080). Ctrl-C stops it.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"html/template"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/proxy"
	"github.com/threadsapi/threads-go/runs"
	"github.com/threadsapi/threads-go/threadstest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	addr := os.Getenv("WEBAPP_ADDR")
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	if err := run(ctx, addr, func(url string) { fmt.Printf("Open %s (Ctrl-C stops it)\n", url) }); err != nil {
		fmt.Fprintf(os.Stderr, "webapp: %v\n", err)
		os.Exit(1)
	}
}

// run serves the app on addr until ctx ends; ready gets its URL once it
// listens.
func run(ctx context.Context, addr string, ready func(url string)) error {
	client, done, err := setup()
	if err != nil {
		return err
	}
	defer done()
	app, err := newApp(client, log.New(os.Stderr, "webapp: ", 0))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: app, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ready("http://" + ln.Addr().String())
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Open streams get a moment; then their connections close, which
	// cancels their runs on the service.
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = app.v1.Shutdown(sctx) // detached runs end, or are cancelled at the deadline
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// app is the backend: its sessions, the page, the stream, the /v1 routes.
type app struct {
	http.Handler
	runs *runs.Client
	v1   *proxy.Handler
	log  *log.Logger

	mu       sync.Mutex
	sessions map[string]string // session id -> the end user's key
}

func newApp(client *threads.Client, logger *log.Logger) (*app, error) {
	a := &app{runs: runs.New(client), log: logger, sessions: map[string]string{}}
	serverTime := threads.NewTool("server_time", "The backend's current time",
		func(context.Context, struct{}) (string, error) { return time.Now().UTC().Format(time.RFC3339), nil })
	// A tool with a side effect: each call waits for a person's yes
	// (docs/approvals.md). Here the run's own user decides; a real app's
	// rule may send it to a manager.
	giftCard := threads.NewTool("send_gift_card", "Sends the user a gift card",
		func(_ context.Context, g struct {
			Amount float64 `json:"amount"`
		}) (string, error) {
			return fmt.Sprintf("a gift card of %.2f was sent", g.Amount), nil
		})
	// The same rule as in process (a function of the call would park
	// only some calls): the Handler parks each call until a decision.
	giftCard.NeedsApproval = threads.Always
	v1, err := proxy.New(client, a.user, proxy.WithTools(giftCard, serverTime), proxy.WithDetachedRuns(5*time.Minute),
		// The page resumes the decision's run itself (Hold: -1): its
		// response ends at the pause.
		proxy.WithApprovals(proxy.Approvals{MayDecide: a.mayDecide, Hold: -1}))
	if err != nil {
		return nil, err
	}
	a.v1 = v1
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.page)
	mux.HandleFunc("GET /stream", a.stream)
	mux.Handle("/api/tambo/", http.StripPrefix("/api/tambo", v1))
	mux.Handle("/api/approvals/", http.StripPrefix("/api/approvals", v1.ApprovalAPI()))
	// CSRF protection: the browser sends the session cookie with requests
	// that other sites' pages make too. This refuses their writes (a POST
	// that starts a run) by the browser's Sec-Fetch-Site and Origin
	// headers; the cookie's SameSite=Strict keeps it off their GETs. An
	// app whose web client is served from another origin adds it with
	// AddTrustedOrigin, and answers that origin's CORS preflights.
	a.Handler = http.NewCrossOriginProtection().Handler(mux)
	return a, nil
}

// user is the end user of a request: the one the backend gave its session
// cookie to. A real app reads its own session store here.
func (a *app) user(r *http.Request) (proxy.User, error) {
	c, err := r.Cookie("session")
	if err != nil {
		return proxy.User{}, errors.New("no session")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	key, ok := a.sessions[c.Value]
	if !ok {
		return proxy.User{}, errors.New("unknown session")
	}
	return proxy.User{Key: key}, nil
}

// mayDecide is who may decide a parked call: here, the run's own user.
func (a *app) mayDecide(r *http.Request, call proxy.PendingApproval) (bool, error) {
	u, err := a.user(r)
	return err == nil && u.Key == call.User.Key, nil
}

// page serves the page, and starts a session for a browser without one.
func (a *app) page(w http.ResponseWriter, r *http.Request) {
	if _, err := a.user(r); err != nil {
		id := rand.Text()
		a.mu.Lock()
		a.sessions[id] = "web-" + id[:8]
		a.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "session", Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageHTML.Execute(w, nil)
}

// stream starts a run for the session's user and relays it to the page.
func (a *app) stream(w http.ResponseWriter, r *http.Request) {
	u, err := a.user(r)
	if err != nil {
		http.Error(w, "sign in first: open /", http.StatusUnauthorized)
		return
	}
	q := r.URL.Query().Get("q")
	if q == "" || len(q) > 4000 {
		http.Error(w, "ask a question (q), at most 4000 bytes", http.StatusBadRequest)
		return
	}
	// Detached: the run outlives the request (start it with ctx, not
	// r.Context()), and the Handler's resume route serves it.
	ctx, detach := a.v1.Detach(r, u)
	s, err := a.runs.ForUser(u.Key).CreateAndRun(ctx, runs.CreateRunParams{RunParams: runs.RunParams{
		Content: []runs.Content{runs.Text(q)},
	}})
	if err != nil {
		a.log.Printf("starting a run: %v", err)
		http.Error(w, "the run could not start", http.StatusBadGateway)
		return
	}
	res, err := proxy.Relay(w, r, s, detach)
	if res.Left {
		return // the tab closed: the run goes on; not a failure
	}
	if err != nil {
		a.log.Printf("run %s: %v", s.RunID(), err) // the page got the run's RUN_ERROR
	}
}

var pageHTML = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>threads-go: a run streamed by a Go backend</title>
<style>body{font:16px system-ui;max-width:40em;margin:2em auto}pre{white-space:pre-wrap;background:#f4f4f4;padding:1em;min-height:3em}</style>
<h1>Ask</h1>
<form id="ask"><input id="q" size="50" value="Hello! What can you do?"> <button>Send</button></form>
<pre id="out"></pre>
<p id="status"></p>
<script>
const out = document.getElementById("out"), status = document.getElementById("status");
document.getElementById("ask").onsubmit = (e) => {
  e.preventDefault();
  out.textContent = ""; status.textContent = "streaming…";
  const es = new EventSource("/stream?q=" + encodeURIComponent(document.getElementById("q").value));
  es.onmessage = (m) => {
    const ev = JSON.parse(m.data); // the service's own AG-UI events
    if (ev.type === "TEXT_MESSAGE_CONTENT") out.textContent += ev.delta;
    if (ev.type === "RUN_FINISHED") { status.textContent = "done"; es.close(); }
    if (ev.type === "RUN_ERROR") { status.textContent = "failed: " + ev.message; es.close(); }
  };
  es.onerror = () => { if (es.readyState !== EventSource.CLOSED) { status.textContent = "connection lost"; es.close(); } };
};
</script>
<h2>Ask, and reload while it answers</h2>
<form id="ask2"><input id="q2" size="50" value="Tell me a long story."> <button>Send</button></form>
<pre id="out2"></pre>
<script>
// Runs through the /v1 endpoint are detached: a reload does not cancel
// them, and this page resumes from the last event it showed.
const out2 = document.getElementById("out2");
const show = (id, data) => {
  const ev = JSON.parse(data);
  if (ev.type === "TEXT_MESSAGE_CONTENT") out2.textContent += ev.delta;
  if (id) sessionStorage.lastEventId = id;
  if (ev.type === "RUN_FINISHED" || ev.type === "RUN_ERROR") delete sessionStorage.run;
  if (ev.type === "MESSAGES_SNAPSHOT") out2.textContent = ev.messages.filter(m => m.role === "assistant").map(m => m.content).join("\n");
  if (ev.type === "CUSTOM" && ev.name === "threads.approval.requested") ev.value.approvals.forEach(ask);
};
// A call that needs approval: a prompt, and the decision through the
// approval API; an approved or refused call continues the run, which
// this page then resumes.
const ask = (call) => {
  const p = document.createElement("p");
  p.textContent = "Allow " + call.tool + " " + JSON.stringify(call.arguments) + "? ";
  for (const approved of [true, false]) {
    const b = p.appendChild(document.createElement("button"));
    b.textContent = approved ? "Allow" : "Refuse";
    b.onclick = async () => {
      p.remove();
      const d = await (await fetch("/api/approvals/" + call.id, { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ approved, reason: approved ? "" : "the user said no" }) })).json();
      if (d.runId) {
        const es = new EventSource("/api/tambo/v1/threads/" + call.threadId + "/runs/" + d.runId + "/events");
        es.onmessage = (m) => { show(m.lastEventId, m.data); if (/"RUN_(FINISHED|ERROR)"/.test(m.data)) es.close(); };
      }
    };
  }
  out2.after(p);
};
document.getElementById("ask2").onsubmit = async (e) => {
  e.preventDefault();
  out2.textContent = ""; sessionStorage.text = "";
  const res = await fetch("/api/tambo/v1/threads/runs", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ message: { role: "user", content: [{ type: "text", text: document.getElementById("q2").value }] } }) });
  sessionStorage.run = res.headers.get("X-Thread-Id") + "/runs/" + res.headers.get("X-Run-Id");
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (let r; !(r = await reader.read()).done; ) {
    const blocks = (buf += r.value).split("\n\n"); buf = blocks.pop();
    for (const b of blocks) {
      const id = (b.match(/^id: (.*)$/m) || [])[1], data = (b.match(/^data: (.*)$/m) || [])[1];
      if (data) show(id, data);
    }
  }
};
if (sessionStorage.run) { // a reload while a run went on: resume it
  const es = new EventSource("/api/tambo/v1/threads/" + sessionStorage.run + "/events?lastEventId=" + encodeURIComponent(sessionStorage.lastEventId || ""));
  es.onmessage = (m) => { show(m.lastEventId, m.data); if (!sessionStorage.run) es.close(); };
  es.onerror = () => es.close();
}
</script>
<p>The official clients work too: <code>new TamboClient({ apiKey: "unused", tamboUrl: location.origin + "/api/tambo" })</code>.</p>
</html>
`))

// setup returns a client for the service in THREADS_BASE_URL (with
// THREADS_API_KEY), or, when it is unset, for the SDK's fake service
// started in this process; done stops the fake.
func setup() (client *threads.Client, done func(), err error) {
	if os.Getenv(threads.EnvBaseURL) != "" {
		c, err := threads.NewClient()
		return c, func() {}, err
	}
	srv := threadstest.Start()
	fmt.Printf("(THREADS_BASE_URL is not set: using the built-in fake service at %s)\n\n", srv.URL)
	return srv.Client(), srv.Close, nil
}
