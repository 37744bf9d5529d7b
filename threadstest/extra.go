package threadstest

import (
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"time"
)

// This file serves the routes beyond threads and messages that a project
// key may call (storage, audio, project keys, MCP tokens, the registry),
// shaped as the service's source answers them; and the storage host's
// upload URL, which takes no key.

// maxAttachment is the service's presign limit (10 MB).
const maxAttachment = 10 << 20

// extraStore is the state of these routes.
type extraStore struct {
	mu           sync.Mutex
	pending      map[string]pendingUpload // upload id -> what was presigned
	uploads      map[string][]byte        // attachment URI -> bytes PUT
	uploadHeader map[string]http.Header   // attachment URI -> the PUT's headers
	deleted      map[string]bool          // deleted API and provider key ids
}

type pendingUpload struct {
	uri, contentType string
	size             int64
}

// Upload returns the bytes PUT to the storage URL for an attachment URI
// (from [threads.StorageService.Upload]), and the headers that PUT
// carried, so a test can check what reached the storage host (and that no
// API key did). ok is false when nothing was uploaded for uri.
func (s *Server) Upload(uri string) (data []byte, header http.Header, ok bool) {
	s.extra.mu.Lock()
	defer s.extra.mu.Unlock()
	data, ok = s.extra.uploads[uri]
	return data, s.extra.uploadHeader[uri].Clone(), ok
}

// serveStorageHost answers PUT /_storage/{id}: the storage host's presigned
// URL, which needs no API key. A request that carries the server's key
// anyway is refused with 400, so a client that leaks it there fails.
func (s *Server) serveStorageHost(w http.ResponseWriter, r *http.Request, body []byte) bool {
	id, ok := strings.CutPrefix(r.URL.Path, "/_storage/")
	if !ok {
		return false
	}
	if r.Method != http.MethodPut {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return true
	}
	for _, vs := range r.Header {
		for _, v := range vs {
			if strings.Contains(v, s.APIKey) {
				http.Error(w, "an API key reached the storage host", http.StatusBadRequest)
				return true
			}
		}
	}
	x := &s.extra
	x.mu.Lock()
	defer x.mu.Unlock()
	p, ok := x.pending[id]
	switch {
	case !ok || r.URL.Query().Get("X-Amz-Signature") == "":
		http.Error(w, "SignatureDoesNotMatch", http.StatusForbidden)
	case r.Header.Get("Content-Type") != p.contentType:
		http.Error(w, "SignatureDoesNotMatch: content type", http.StatusForbidden)
	default:
		delete(x.pending, id)
		if x.uploads == nil {
			x.uploads, x.uploadHeader = map[string][]byte{}, map[string]http.Header{}
		}
		x.uploads[p.uri] = body
		x.uploadHeader[p.uri] = r.Header.Clone()
		w.WriteHeader(http.StatusOK)
	}
	return true
}

// presign answers POST /storage/presign: 201 an upload URL on the fake's
// storage host; after the body's checks, 503 as live when storage is not
// configured (WithoutStorage).
func (s *Server) presign(c *call) {
	w, body := c.w, c.body
	var in struct {
		ContentType string  `json:"contentType"`
		Size        float64 `json:"size"`
	}
	if json.Unmarshal(body, &in) != nil {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "invalid JSON")
		return
	}
	var msgs []string
	if _, _, err := mime.ParseMediaType(in.ContentType); err != nil {
		msgs = append(msgs, "contentType should not be empty")
	}
	if in.Size < 1 {
		msgs = append(msgs, "size must not be less than 1")
	}
	if in.Size > maxAttachment {
		msgs = append(msgs, "size must not be greater than 10485760")
	}
	if len(msgs) > 0 {
		frameworkErrorList(w, http.StatusBadRequest, "Bad Request", msgs)
		return
	}
	if s.cfg.noStorage {
		frameworkError(w, http.StatusServiceUnavailable, "Service Unavailable", "Storage is not configured. S3 credentials are required.")
		return
	}
	s.mu.Lock()
	id := s.newID("att_")
	s.mu.Unlock()
	uri := "attachment://" + s.ProjectID + "/" + id
	s.extra.mu.Lock()
	if s.extra.pending == nil {
		s.extra.pending = map[string]pendingUpload{}
	}
	s.extra.pending[id] = pendingUpload{uri: uri, contentType: in.ContentType, size: int64(in.Size)}
	s.extra.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"uploadUrl":     s.URL + "/_storage/" + id + "?X-Amz-Signature=fake-signature",
		"attachmentUri": uri,
		"expiresIn":     3600,
	})
}

// transcribe answers as the service's controller does: the transcription
// as plain text (the fake's is made from the file's name and size).
func (s *Server) transcribe(c *call) {
	w, r, body := c.w, c.r, c.body
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		frameworkError(w, http.StatusBadRequest, "Bad Request", "Multipart: Boundary not found")
		return
	}
	mr := multipart.NewReader(strings.NewReader(string(body)), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			frameworkError(w, http.StatusBadRequest, "Bad Request", "no file")
			return
		}
		if p.FormName() != "file" {
			continue
		}
		data, _ := io.ReadAll(p)
		if len(data) > 25<<20 {
			frameworkError(w, http.StatusBadRequest, "Bad Request", "File too large. Maximum size allowed is 25MB")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, "transcript of "+p.FileName()+" ("+itoa(len(data))+" bytes)")
		return
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// The fake project's keys, as the service's OpenAPI document lists them.
var fakeAPIKeys = []map[string]any{
	{"id": "ak_FakeKey1.000001", "name": "default", "partiallyHiddenKey": "tambo_…wxyz", "created": "2025-01-02T03:04:05.000Z", "lastUsed": nil, "createdByUserId": "3abc4ccf-139a-476d-bcc4-95d0c1cb6237"},
}
var fakeProviderKeys = []map[string]any{
	{"id": "pk_FakeKey1.000001", "providerName": "openai", "partiallyHiddenKey": "sk-…abcd", "providerKeyEncrypted": "enc:v1:ZmFrZQ=="},
}

// listKeys answers GET /projects/{id}/api-keys and /provider-keys: the
// fake keys of the list that are not deleted.
func (s *Server) listKeys(c *call, list []map[string]any) {
	x := &s.extra
	x.mu.Lock()
	out := []map[string]any{}
	for _, k := range list {
		if !x.deleted[k["id"].(string)] {
			out = append(out, k)
		}
	}
	x.mu.Unlock()
	writeJSON(c.w, http.StatusOK, out)
}

// deleteKey answers DELETE /projects/{id}/api-key/{keyId} (200 true) and
// /provider-key/{keyId} (200 the project); an unknown key is a 404, or,
// with the live habits, what the service answers (captures 32, 33): 200
// false for an API key, 200 the project all the same for a provider key.
func (s *Server) deleteKey(c *call, list []map[string]any, apiKey bool) {
	w, id := c.w, c.arg(1)
	x := &s.extra
	x.mu.Lock()
	found := false
	for _, k := range list {
		if k["id"] == id && !x.deleted[id] {
			found = true
			if x.deleted == nil {
				x.deleted = map[string]bool{}
			}
			x.deleted[id] = true
		}
	}
	x.mu.Unlock()
	switch {
	case !found && !s.cfg.liveSmallRoutes:
		frameworkError(w, http.StatusNotFound, "Not Found", "Key not found")
	case apiKey && found:
		writeJSON(w, http.StatusOK, true)
	case apiKey:
		// Capture 32: the answer is text/html, its body false.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "false")
	default:
		writeJSON(w, http.StatusOK, map[string]any{"id": s.ProjectID, "name": "Fake Project"})
	}
}

// mcpToken answers as the service's OpenAPI document says: a token that
// lasts 15 minutes, its expiry in epoch milliseconds, and whether it is
// bound to a thread; 400 for a sessionless token without a context key;
// an empty object when the project has no MCP servers (WithoutMCPServers).
func (s *Server) mcpToken(c *call) {
	w, body := c.w, c.body
	var in struct {
		ThreadID   string `json:"threadId"`
		ContextKey string `json:"contextKey"`
	}
	_ = json.Unmarshal(body, &in)
	if s.cfg.noMCP {
		writeJSON(w, http.StatusCreated, map[string]any{})
		return
	}
	if in.ThreadID == "" && in.ContextKey == "" {
		// As the service answers for a project with MCP servers.
		frameworkError(w, http.StatusBadRequest, "Bad Request", "Context key is required for sessionless tokens (provide in body or use Bearer token authentication)")
		return
	}
	if in.ThreadID != "" {
		s.mu.Lock()
		_, ok := s.threads[in.ThreadID]
		s.mu.Unlock()
		if !ok {
			forbidden(w)
			return
		}
	}
	s.mu.Lock()
	tok := s.newID("mcp_tok_")
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"mcpAccessToken": tok, "expiresAt": time.Now().Add(15 * time.Minute).UnixMilli(), "hasSession": in.ThreadID != "",
	})
}

// registry answers GET /registry/{name}: message-thread-full and
// control-bar; another name is a 404, or, with the live habits, the
// service's 500 (capture 30).
func (s *Server) registry(c *call) {
	w, name := c.w, c.arg(0)
	switch {
	case name == "message-thread-full":
		writeJSON(w, http.StatusOK, map[string]any{
			"name": name, "type": "registry:component", "description": "A full message thread",
			"files": []map[string]any{{"path": "message-thread-full.tsx", "type": "registry:component", "content": "export {}"}},
		})
	case name == "control-bar": // capture 31's shape
		writeJSON(w, http.StatusOK, map[string]any{
			"name": name, "type": "registry:ui", "dependencies": []string{"lucide-react"},
			"files": []map[string]any{{"path": "hydra/control-bar.tsx", "content": "export {}"}},
		})
	case s.cfg.liveSmallRoutes:
		internalError(w)
	default:
		frameworkError(w, http.StatusNotFound, "Not Found", "Component "+name+" not found")
	}
}
