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

// routeExtra serves the routes of this file; it reports false for any
// other request. s.mu is not held.
func (s *Server) routeExtra(w http.ResponseWriter, r *http.Request, segs []string, body []byte) bool {
	m := r.Method
	switch {
	case len(segs) == 2 && segs[0] == "storage" && segs[1] == "presign" && m == http.MethodPost:
		s.presign(w, body)
	case len(segs) == 2 && segs[0] == "audio" && segs[1] == "transcribe" && m == http.MethodPost:
		s.transcribe(w, r, body)
	case len(segs) == 2 && segs[0] == "projects" && m == http.MethodGet:
		if segs[1] != s.ProjectID {
			forbidden(w)
			return true
		}
		s.project(w)
	case len(segs) >= 3 && segs[0] == "projects" && keyKinds[segs[2]] != "":
		if segs[1] != s.ProjectID {
			forbidden(w)
			return true
		}
		s.projectKeys(w, m, segs[2], segs[3:])
	case len(segs) == 3 && segs[0] == "auth" && segs[1] == "mcp" && segs[2] == "access-token" && m == http.MethodPost:
		s.mcpToken(w, body)
	case len(segs) == 2 && segs[0] == "registry" && m == http.MethodGet:
		s.registry(w, segs[1])
	default:
		return false
	}
	return true
}

func (s *Server) presign(w http.ResponseWriter, body []byte) {
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
func (s *Server) transcribe(w http.ResponseWriter, r *http.Request, body []byte) {
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

// keyKinds maps the path segments of the key routes to their kind: the
// lists are plural, the deletes singular (/projects/{id}/api-key/{keyId}).
var keyKinds = map[string]string{
	"api-keys": "api", "api-key": "api", "provider-keys": "provider", "provider-key": "provider",
}

func (s *Server) projectKeys(w http.ResponseWriter, m, seg string, rest []string) {
	list := fakeAPIKeys
	if keyKinds[seg] == "provider" {
		list = fakeProviderKeys
	}
	plural := strings.HasSuffix(seg, "s")
	x := &s.extra
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case plural && len(rest) == 0 && m == http.MethodGet:
		out := []map[string]any{}
		for _, k := range list {
			if !x.deleted[k["id"].(string)] {
				out = append(out, k)
			}
		}
		writeJSON(w, http.StatusOK, out)
	case !plural && len(rest) == 1 && m == http.MethodDelete:
		for _, k := range list {
			if k["id"] == rest[0] && !x.deleted[rest[0]] {
				if x.deleted == nil {
					x.deleted = map[string]bool{}
				}
				x.deleted[rest[0]] = true
				if keyKinds[seg] == "api" {
					writeJSON(w, http.StatusOK, true)
				} else {
					writeJSON(w, http.StatusOK, map[string]any{"id": k["id"], "name": k["providerName"]})
				}
				return
			}
		}
		frameworkError(w, http.StatusNotFound, "Not Found", "Key not found")
	default:
		frameworkError(w, http.StatusNotFound, "Not Found", "Cannot "+m+" /projects/"+s.ProjectID+"/"+seg+"/"+strings.Join(rest, "/"))
	}
}

// mcpToken answers as the service's OpenAPI document says: a token that
// lasts 15 minutes, its expiry in epoch milliseconds, and whether it is
// bound to a thread; an empty object when the project has no MCP servers
// (WithoutMCPServers).
func (s *Server) mcpToken(w http.ResponseWriter, body []byte) {
	var in struct {
		ThreadID string `json:"threadId"`
	}
	_ = json.Unmarshal(body, &in)
	if s.cfg.noMCP {
		writeJSON(w, http.StatusCreated, map[string]any{})
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

func (s *Server) registry(w http.ResponseWriter, name string) {
	if name != "message-thread-full" {
		frameworkError(w, http.StatusNotFound, "Not Found", "Component "+name+" not found")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"name": name, "type": "registry:component", "description": "A full message thread",
		"files": []map[string]any{{"path": "message-thread-full.tsx", "type": "registry:component", "content": "export {}"}},
	})
}
