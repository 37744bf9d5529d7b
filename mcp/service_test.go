package threadsmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/runs"
)

const apiKey = "sk-test-key-0123456789"

// fakeService is the service's token route and an MCP endpoint behind a
// bearer check, under the base path /api. Its clock ages the tokens, and
// the helper reads the same clock.
type fakeService struct {
	srv *httptest.Server

	mu           sync.Mutex
	now          time.Time
	valid        map[string]time.Time // token -> expiry
	refuseAll    bool
	noServers    bool              // the token route answers {} (no MCP servers)
	mints        []json.RawMessage // the token calls' bodies
	unauthorized int               // 401s answered
	auth         []string          // the /mcp requests' Authorization
	keySeen      bool              // a /mcp request carried the API key
}

func newFakeService(t *testing.T, mcpHandler http.Handler) *fakeService {
	t.Helper()
	fs := &fakeService{now: time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC), valid: map[string]time.Time{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/auth/mcp/access-token", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fs.mu.Lock()
		defer fs.mu.Unlock()
		fs.mints = append(fs.mints, body)
		w.Header().Set("Content-Type", "application/json")
		if !fs.noServers && !strings.Contains(string(body), "threadId") && !strings.Contains(string(body), "contextKey") {
			w.WriteHeader(http.StatusBadRequest) // as the service answers (a project with MCP servers)
			io.WriteString(w, `{"message":"Context key is required for sessionless tokens (provide in body or use Bearer token authentication)","error":"Bad Request","statusCode":400}`)
			return
		}
		w.WriteHeader(http.StatusCreated)
		if fs.noServers {
			io.WriteString(w, `{}`)
			return
		}
		tok := fmt.Sprintf("mcp-tok-%d", len(fs.mints))
		exp := fs.now.Add(15 * time.Minute)
		fs.valid[tok] = exp
		fmt.Fprintf(w, `{"mcpAccessToken":%q,"expiresAt":%d,"hasSession":%t}`, tok, exp.UnixMilli(), strings.Contains(string(body), "threadId"))
	})
	mux.HandleFunc("/api/mcp", func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		fs.mu.Lock()
		fs.auth = append(fs.auth, got)
		for _, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, apiKey) {
					fs.keySeen = true
				}
			}
		}
		exp, ok := fs.valid[strings.TrimPrefix(got, "Bearer ")]
		ok = ok && strings.HasPrefix(got, "Bearer ") && fs.now.Before(exp) && !fs.refuseAll
		if !ok {
			fs.unauthorized++
		}
		fs.mu.Unlock()
		if !ok { // as the service answers a bad token (capture 42)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "Unauthorized")
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	fs.srv = httptest.NewServer(mux)
	t.Cleanup(fs.srv.Close)
	return fs
}

func (fs *fakeService) clock() time.Time {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.now
}

func (fs *fakeService) client(t *testing.T) *threads.Client {
	t.Helper()
	c, err := threads.NewClient(threads.WithoutEnvironmentDefaults(), threads.WithBaseURL(fs.srv.URL+"/api"),
		threads.WithAPIKey(apiKey), threads.WithMaxRetries(0))
	require.NoError(t, err)
	return c
}

func (fs *fakeService) counts() (mints, unauthorized int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return len(fs.mints), fs.unauthorized
}

// notesServer serves one resource and one prompt of a project MCP server
// (serverKey "notes"), statelessly with JSON answers, as the service's
// /mcp does (captures-turn5 17-22): named "<serverKey>:<name>", the
// resource's URI "<serverKey>:<its URI>"; a read of that URI is the
// service's -32602 "Resource not found" (it passes the prefixed URI to
// the upstream server, which does not know it); the prompt works.
func notesServer() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "tambo-service", Version: "1.0.0"}, nil)
	s.AddResource(&mcp.Resource{URI: "notes:file:///notes.txt", Name: "notes", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			data, _ := json.Marshal(map[string]string{"uri": req.Params.URI})
			return nil, &jsonrpc.Error{Code: -32602, Message: "MCP error -32602: Resource not found", Data: data}
		})
	s.AddPrompt(&mcp.Prompt{Name: "notes:summarize", Title: "summarize", Description: "Summarize the notes"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize."}}}}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

func connectService(t *testing.T, fs *fakeService, opts *ServiceOptions) *Conn {
	t.Helper()
	if opts == nil {
		opts = &ServiceOptions{ContextKey: "user-1"}
	}
	opts.now = fs.clock
	conn, err := ConnectService(t.Context(), fs.client(t), opts)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// The helper mints a sessionless token for the context key, sends it to
// <base URL>/mcp only as the bearer (never the API key), and lists the
// resources and prompts under the live names ("<serverKey>:<name>"); a
// prompt works, a listed resource cannot be read through the service
// today (its error, and the session goes on); a resource read from its
// server goes into a /v1 message as a resource part.
func TestConnectServiceResources(t *testing.T) {
	t.Parallel()
	fs := newFakeService(t, notesServer())
	conn := connectService(t, fs, nil)
	res, err := conn.Resources(t.Context())
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, "notes:file:///notes.txt", res[0].URI)
	_, err = conn.ReadResource(t.Context(), res[0].URI)
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr)
	assert.Equal(t, int64(-32602), rpcErr.Code)
	assert.Contains(t, rpcErr.Message, "Resource not found")
	assert.Equal(t, StateConnected, conn.Status().State)
	part := Content(&mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "buy milk"})
	assert.Equal(t, runs.ResourceContent(runs.Resource{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "buy milk"}), part)
	prompts, err := conn.Prompts(t.Context())
	require.NoError(t, err)
	require.Len(t, prompts, 1)
	assert.Equal(t, "notes:summarize", prompts[0].Name)
	p, err := conn.GetPrompt(t.Context(), "notes:summarize", nil)
	require.NoError(t, err)
	require.Len(t, p.Messages, 1)

	fs.mu.Lock()
	defer fs.mu.Unlock()
	require.Len(t, fs.mints, 1)
	assert.JSONEq(t, `{"contextKey":"user-1"}`, string(fs.mints[0]))
	assert.NotEmpty(t, fs.auth)
	for _, a := range fs.auth {
		assert.Equal(t, "Bearer mcp-tok-1", a)
	}
	assert.False(t, fs.keySeen, "the API key went to /mcp")
	assert.Zero(t, fs.unauthorized)
}

// A token about to expire is replaced before the request: the endpoint
// never sees an expired one.
func TestConnectServiceRenewsExpiredToken(t *testing.T) {
	t.Parallel()
	fs := newFakeService(t, notesServer())
	conn := connectService(t, fs, nil)
	_, err := conn.Resources(t.Context())
	require.NoError(t, err)
	fs.mu.Lock()
	fs.now = fs.now.Add(15*time.Minute - 10*time.Second) // within renewBefore of the expiry
	fs.mu.Unlock()
	_, err = conn.Resources(t.Context())
	require.NoError(t, err)
	mints, unauthorized := fs.counts()
	assert.Equal(t, 2, mints)
	assert.Zero(t, unauthorized)
	fs.mu.Lock()
	assert.Equal(t, "Bearer mcp-tok-2", fs.auth[len(fs.auth)-1])
	fs.mu.Unlock()
}

// A token the endpoint refuses early is replaced once and the request
// sent again; a token refused again is not replaced in a loop: the call
// fails (no token in its error) and the status says so. (The go-sdk's
// Streamable HTTP client ends the session on an HTTP error: connect
// again.)
func TestConnectServiceRenewsRefusedTokenOnce(t *testing.T) {
	t.Parallel()
	fs := newFakeService(t, notesServer())
	var statuses []Status
	var smu sync.Mutex
	conn := connectService(t, fs, &ServiceOptions{ContextKey: "user-1", Options: Options{OnStatus: func(s Status) {
		smu.Lock()
		statuses = append(statuses, s)
		smu.Unlock()
	}}})
	fs.mu.Lock()
	clear(fs.valid) // revoked
	fs.mu.Unlock()
	_, err := conn.Resources(t.Context())
	require.NoError(t, err)
	mints, unauthorized := fs.counts()
	assert.Equal(t, 2, mints)
	assert.Equal(t, 1, unauthorized)

	fs.mu.Lock()
	fs.refuseAll = true
	fs.mu.Unlock()
	_, err = conn.Resources(t.Context())
	require.Error(t, err)
	mints, unauthorized = fs.counts()
	assert.Equal(t, 3, mints, "one new token for the refused request, no more")
	assert.Equal(t, 3, unauthorized)
	assert.Contains(t, err.Error(), "Unauthorized")
	assert.NotContains(t, err.Error(), "mcp-tok-")
	st := conn.Status()
	assert.Equal(t, StateFailed, st.State)
	require.Error(t, st.Err)
	assert.NotContains(t, st.Err.Error(), "mcp-tok-")
	smu.Lock()
	defer smu.Unlock()
	var states []State
	for _, s := range statuses {
		states = append(states, s.State)
	}
	assert.Equal(t, []State{StateConnecting, StateConnected, StateFailed}, states)
}

// An endpoint that echoes the token in its error answer (a JSON-RPC
// error, whose message the go-sdk's error quotes) does not get it into
// the call's error or the status.
func TestConnectServiceRedactsEchoedToken(t *testing.T) {
	t.Parallel()
	fs := newFakeService(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			ID json.RawMessage `json:"id"`
		}
		json.NewDecoder(r.Body).Decode(&in)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"no upstream for %s"}}`, in.ID, r.Header.Get("Authorization"))
	}))
	var last Status
	_, err := ConnectService(t.Context(), fs.client(t), &ServiceOptions{ContextKey: "user-1", now: fs.clock,
		Options: Options{OnStatus: func(s Status) { last = s }}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "[REDACTED]")
	assert.NotContains(t, err.Error(), "mcp-tok-")
	assert.NotContains(t, fmt.Sprint(last.Err), "mcp-tok-")
}

// The token never leaves for another host: a redirect from /mcp to
// another server is refused before anything is sent there.
func TestConnectServiceRefusesAnotherHost(t *testing.T) {
	t.Parallel()
	var evilHits int
	var emu sync.Mutex
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		emu.Lock()
		evilHits++
		emu.Unlock()
	}))
	t.Cleanup(evil.Close)
	fs := newFakeService(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	var last Status
	_, err := ConnectService(t.Context(), fs.client(t), &ServiceOptions{ContextKey: "user-1", now: fs.clock,
		Options: Options{OnStatus: func(s Status) { last = s }}})
	require.Error(t, err)
	var he *HostError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, evil.URL+"/mcp", he.URL)
	assert.Equal(t, fs.srv.URL+"/api/mcp", he.Endpoint)
	assert.Contains(t, err.Error(), "refused to send the MCP access token to "+evil.URL+"/mcp")
	assert.NotContains(t, err.Error(), "mcp-tok-")
	emu.Lock()
	assert.Zero(t, evilHits)
	emu.Unlock()
	assert.Equal(t, StateFailed, last.State)

	// Another path of the same host, or another scheme, is another endpoint.
	ep := mustURL(t, "https://api.example.com/base/mcp")
	for u, want := range map[string]bool{
		"https://api.example.com/base/mcp":      true,
		"https://API.example.com:443/base/mcp":  true,
		"https://api.example.com/base/mcp?x=1":  true,
		"http://api.example.com/base/mcp":       false,
		"https://api.example.com/admin":         false,
		"https://api.example.com:8443/base/mcp": false,
		"https://u:p@api.example.com/base/mcp":  false,
		"https://api.example.com.evil/base/mcp": false,
	} {
		assert.Equal(t, want, sameEndpoint(mustURL(t, u), ep), u)
	}
}

// Against the service's own answers (captures 37-39): the helper speaks
// protocol 2025-11-25 from the first request, and a server that declares
// no capabilities has no resources, prompts or tools (not an error); a
// read it does not serve is its error.
func TestConnectServiceCapturedEndpoint(t *testing.T) {
	t.Parallel()
	initialize, err := os.ReadFile("testdata/37-mcp-initialize.json")
	require.NoError(t, err)
	notFound, err := os.ReadFile("testdata/39-mcp-method-not-found.json")
	require.NoError(t, err)
	var mu sync.Mutex
	var methods, versions []string
	var initParams json.RawMessage
	replay := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&in) != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		mu.Lock()
		methods = append(methods, in.Method)
		versions = append(versions, r.Header.Get("Mcp-Protocol-Version"))
		if in.Method == "initialize" {
			initParams = in.Params
		}
		mu.Unlock()
		if in.ID == nil { // a notification (38)
			w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
			w.WriteHeader(http.StatusAccepted)
			return
		}
		body := notFound
		if in.Method == "initialize" {
			body = initialize
		}
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(body, &m))
		m["id"] = in.ID
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(m)
	})
	fs := newFakeService(t, replay)
	conn := connectService(t, fs, nil)
	st := conn.Status()
	assert.Equal(t, StateConnected, st.State)
	require.NotNil(t, st.Server)
	assert.Equal(t, "tambo-service", st.Server.Name)
	res, err := conn.Resources(t.Context())
	assert.NoError(t, err)
	assert.Nil(t, res)
	prompts, err := conn.Prompts(t.Context())
	assert.NoError(t, err)
	assert.Nil(t, prompts)
	tools, err := conn.Tools(t.Context())
	assert.NoError(t, err)
	assert.Nil(t, tools)
	_, err = conn.ReadResource(t.Context(), "file:///notes.txt")
	assert.ErrorContains(t, err, "Method not found")
	assert.Equal(t, StateConnected, conn.Status().State, "an answer, even an error, is not a failure")

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"initialize", "notifications/initialized", "resources/read"}, methods)
	assert.Equal(t, "2025-11-25", versions[1], "the protocol header after the handshake")
	var ip struct {
		ProtocolVersion string         `json:"protocolVersion"`
		Capabilities    map[string]any `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(initParams, &ip))
	assert.Equal(t, "2025-11-25", ip.ProtocolVersion)
	assert.Empty(t, ip.Capabilities, "no roots, no elicitation without a handler")
}

// On a thread-bound session the token is minted for the thread, and the
// elicitation requests the endpoint sends reach the caller's handler.
func TestConnectServiceThreadElicitation(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "tambo-service", Version: "1.0.0"}, nil)
	s.AddResource(&mcp.Resource{URI: "threads://ask", Name: "ask"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Which city?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}})
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: fmt.Sprintf("%s: %v", res.Action, res.Content["city"])}}}, nil
		})
	fs := newFakeService(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	var asked string
	conn := connectService(t, fs, &ServiceOptions{ThreadID: "thr_1.a", Options: Options{
		Elicit: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"city": "Oslo"}}, nil
		}}})
	contents, err := conn.ReadResource(t.Context(), "threads://ask")
	require.NoError(t, err)
	require.Len(t, contents, 1)
	assert.Equal(t, "accept: Oslo", contents[0].Text)
	assert.Equal(t, "Which city?", asked)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	require.NotEmpty(t, fs.mints)
	assert.JSONEq(t, `{"threadId":"thr_1.a"}`, string(fs.mints[0]))
}

// A project without MCP servers gets no token: the connection fails with
// threads.ErrNoMCPServers, and nothing is sent to /mcp.
func TestConnectServiceNoServers(t *testing.T) {
	t.Parallel()
	fs := newFakeService(t, notesServer())
	fs.noServers = true
	_, err := ConnectService(t.Context(), fs.client(t), &ServiceOptions{ContextKey: "user-1", now: fs.clock})
	require.Error(t, err)
	assert.True(t, errors.Is(err, threads.ErrNoMCPServers), "%v", err)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	assert.Empty(t, fs.auth)
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

// methodOf is the JSON-RPC method of an MCP request body ("" for none),
// and the body again for the next handler.
func methodOf(r *http.Request) (method string, id json.RawMessage) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	var in struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	json.Unmarshal(body, &in) //nolint:errcheck // a body that is not a request has no method
	return in.Method, in.ID
}

// hugeAnswer writes a JSON-RPC result of about n bytes (a text resource)
// from a small buffer: the server costs nothing, the client what it reads.
func hugeAnswer(w http.ResponseWriter, id json.RawMessage, n int) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"contents":[{"uri":"file:///big","text":"`, id)
	chunk := strings.Repeat("x", 64<<10)
	for written := 0; written < n; written += len(chunk) {
		if _, err := io.WriteString(w, chunk); err != nil {
			return
		}
	}
	io.WriteString(w, `"}]}}`)
}

// allocatedDuring is how many bytes the process allocated while fn ran.
func allocatedDuring(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// An answer from /mcp larger than ServiceOptions.MaxResponseBytes is
// refused by its bytes before it is decoded: the call fails with
// ErrResponseTooLarge, and what the client allocates is bounded by the
// option, not by what the server sends (before, a 200 MB answer cost
// about 1.3 GiB).
func TestConnectServiceBoundsAnswerBytes(t *testing.T) { // not parallel: it measures the heap
	notes := notesServer()
	fs := newFakeService(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m, id := methodOf(r); m == "resources/read" {
			hugeAnswer(w, id, 64<<20)
			return
		}
		notes.ServeHTTP(w, r)
	}))
	conn := connectService(t, fs, &ServiceOptions{ContextKey: "user-1", MaxResponseBytes: 1 << 20})
	var err error
	allocated := allocatedDuring(func() { _, err = conn.ReadResource(t.Context(), "file:///big") })
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrResponseTooLarge)
	assert.Contains(t, err.Error(), "1048576 bytes")
	assert.Less(t, allocated, uint64(16<<20), "the client read past the bound")
	// The session is not broken by one answer refused.
	_, err = conn.Prompts(t.Context())
	require.NoError(t, err)

	_, err = ConnectService(t.Context(), fs.client(t), &ServiceOptions{ContextKey: "user-1", MaxResponseBytes: -1})
	assert.ErrorContains(t, err, "MaxResponseBytes")
}

// A listing page is refused by its bytes (MaxListPageBytes) before it is
// decoded, well below MaxResponseBytes: decoding a tools/list page costs
// about 40 times its bytes (before, one 15 MB page cost 591 MiB before
// the tool count refused it).
func TestConnectServiceRefusesLargeListPage(t *testing.T) { // not parallel: it measures the heap
	var page strings.Builder
	one := `{"name":"t%d","inputSchema":{"type":"object","properties":{"a":{"type":"string","description":"` + strings.Repeat("d", 1000) + `"}}}}`
	for i := range 4000 { // about 4 MB
		if i > 0 {
			page.WriteString(",")
		}
		fmt.Fprintf(&page, one, i)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "tambo-service", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	fs := newFakeService(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m, id := methodOf(r); m == "tools/list" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[`, id)
			io.WriteString(w, page.String())
			io.WriteString(w, `]}}`)
			return
		}
		h.ServeHTTP(w, r)
	}))
	conn := connectService(t, fs, nil)
	var err error
	allocated := allocatedDuring(func() { _, err = conn.Tools(t.Context()) })
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrResponseTooLarge)
	assert.Less(t, allocated, uint64(16<<20), "the page was decoded (it costs tens of times its 4 MB)")
}

// listingServer is an MCP endpoint that declares tools, resources and
// prompts, and answers their listings with list(method, cursor): the
// items' JSON and the next cursor. It counts the listing requests.
func listingServer(t *testing.T, list func(method, cursor string) (items, next string)) (*fakeService, *int) {
	s := mcp.NewServer(&mcp.Implementation{Name: "tambo-service", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	s.AddResource(&mcp.Resource{URI: "file:///a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil })
	s.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil })
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	var mu sync.Mutex
	n := new(int)
	fs := newFakeService(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		var in struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		json.Unmarshal(body, &in) //nolint:errcheck
		if !strings.HasSuffix(in.Method, "/list") {
			h.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		*n++
		mu.Unlock()
		member := strings.TrimSuffix(in.Method, "/list")
		items, next := list(in.Method, in.Params.Cursor)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{%q:[%s],"nextCursor":%q}}`, in.ID, member, items, next)
	}))
	return fs, n
}

// A listing whose pages bring nothing new (empty pages with a fresh
// cursor forever, or a cursor seen before) stops after MaxIdlePages
// pages with an error that says so (before, it followed about 64,000
// pages in 4 s, bounded only by the caller's context).
func TestListingsStopOnPagesWithNothingNew(t *testing.T) {
	t.Parallel()
	item := map[string]string{
		"tools/list":     `{"name":"t%s","inputSchema":{"type":"object"}}`,
		"resources/list": `{"uri":"file:///r%s","name":"r"}`,
		"prompts/list":   `{"name":"p%s"}`,
	}
	for name, list := range map[string]func(method, cursor string) (string, string){
		"empty pages": func(_, cursor string) (string, string) { return "", cursor + "x" },
		"cursor loop": func(m, cursor string) (string, string) {
			if cursor == "" {
				return fmt.Sprintf(item[m], "1"), "a"
			}
			return fmt.Sprintf(item[m], "1"), map[string]string{"a": "b", "b": "a"}[cursor]
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fs, n := listingServer(t, list)
			conn := connectService(t, fs, nil)
			_, err := conn.Tools(t.Context())
			assert.ErrorContains(t, err, "pages that brought nothing new")
			_, err = conn.Resources(t.Context())
			assert.ErrorContains(t, err, "pages that brought nothing new")
			_, err = conn.Prompts(t.Context())
			assert.ErrorContains(t, err, "pages that brought nothing new")
			fs.mu.Lock()
			defer fs.mu.Unlock()
			assert.LessOrEqual(t, *n, 3*(MaxIdlePages+2))
		})
	}
}

// Pages that repeat an item at their boundary (as the service does) still
// list each item once, and every page is followed.
func TestListingsFollowPagesOnce(t *testing.T) {
	t.Parallel()
	fs, _ := listingServer(t, func(m, cursor string) (string, string) {
		one := map[string]string{
			"tools/list":     `{"name":"t%d","inputSchema":{"type":"object"}}`,
			"resources/list": `{"uri":"file:///r%d","name":"r"}`,
			"prompts/list":   `{"name":"p%d"}`,
		}[m]
		switch cursor {
		case "":
			return fmt.Sprintf(one+","+one, 1, 2), "2"
		case "2":
			return fmt.Sprintf(one+","+one, 2, 3), "3"
		}
		return fmt.Sprintf(one, 3), ""
	})
	conn := connectService(t, fs, nil)
	tools, err := conn.Tools(t.Context())
	require.NoError(t, err)
	assert.Len(t, tools, 3)
	res, err := conn.Resources(t.Context())
	require.NoError(t, err)
	assert.Len(t, res, 3)
	prompts, err := conn.Prompts(t.Context())
	require.NoError(t, err)
	assert.Len(t, prompts, 3)
}
