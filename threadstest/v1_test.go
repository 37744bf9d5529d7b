package threadstest

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// The recorded identity refusals and guards of /v1 (captures 03, 04, 05,
// 10, 20, 67/68, 70, 72, 73), whatever the server's options.
func TestV1Guards(t *testing.T) {
	t.Parallel()
	for _, opts := range [][]Option{nil, {WithLiveHabits()}} {
		srv := NewServer(t, opts...)
		neither := `{"message":"V1 APIs require exactly one context identifier: provide either userKey (query/body) or an OAuth bearer token with a context key (received neither).","error":"Bad Request","statusCode":400}`
		for _, c := range []struct {
			method, path, key, auth, body string
			status                        int
			want                          string
		}{
			{"POST", "/v1/threads", srv.APIKey, "", `{}`, 400, neither},
			{"POST", "/v1/threads?userKey=user-1", srv.APIKey, "", `{}`, 400, neither},
			{"POST", "/v1/threads", srv.APIKey, "", `{"userKey":"  "}`, 400, `{"message":"userKey cannot be an empty string.","error":"Bad Request","statusCode":400}`},
			{"GET", "/v1/threads", srv.APIKey, "", ``, 400, neither},
			{"GET", "/v1/threads?userKey=user-1", "", "", ``, 403, `{"message":"Forbidden resource","error":"Forbidden","statusCode":403}`},
			{"GET", "/v1/threads?userKey=user-1", "wrong", "", ``, 403, `{"message":"Forbidden resource","error":"Forbidden","statusCode":403}`},
			{"GET", "/v1/threads?userKey=user-1", srv.APIKey, "Bearer " + srv.APIKey, ``, 401, `{"message":"Invalid bearer token","error":"Unauthorized","statusCode":401}`},
			{"GET", "/v1/threads?userKey=user-1&limit=abc", srv.APIKey, "", ``, 400, `{"message":["limit must not be greater than 100","limit must not be less than 1","limit must be an integer number"],"error":"Bad Request","statusCode":400}`},
			{"GET", "/v1/threads/thr_doesnotexist.123456?userKey=user-1", srv.APIKey, "", ``, 403, `{"message":"Forbidden resource","error":"Forbidden","statusCode":403}`},
			{"GET", "/v1/nope", srv.APIKey, "", ``, 404, `{"message":"Cannot GET /v1/nope","error":"Not Found","statusCode":404}`},
		} {
			req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
			if c.key != "" {
				req.Header.Set("x-api-key", c.key)
			}
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := srv.HTTPClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || strings.TrimSpace(string(b)) != c.want {
				t.Errorf("%s %s: %d %s\nwant %d %s", c.method, c.path, resp.StatusCode, b, c.status, c.want)
			}
		}
	}
}

// A created thread has the wire's key order (capture 02).
func TestV1ThreadKeyOrder(t *testing.T) {
	t.Parallel()
	srv := NewServer(t)
	req, _ := http.NewRequest("POST", srv.URL+"/v1/threads", strings.NewReader(`{"userKey":"user-1","metadata":{"topic":"demo","n":1}}`))
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	s := string(b)
	order := []string{`{"id":"thr_`, `"userKey":"user-1","runStatus":"idle","metadata":{"n":1,"topic":"demo"},"createdAt":"`, `","updatedAt":"`}
	at := 0
	for _, part := range order {
		i := strings.Index(s[at:], part)
		if i < 0 {
			t.Fatalf("%d %s: no %s in order", resp.StatusCode, s, part)
		}
		at += i + len(part)
	}
	if resp.StatusCode != 201 {
		t.Fatal(resp.StatusCode)
	}
}

// The patch engine does what captures 90, 91 and 92 show.
func TestApplyOp(t *testing.T) {
	t.Parallel()
	var doc any
	json.Unmarshal([]byte(`{"expanded":true,"items":[1,2]}`), &doc)
	var ops []map[string]any
	json.Unmarshal([]byte(`[{"op":"replace","path":"/expanded","value":false},{"op":"add","path":"/items/-","value":3}]`), &ops)
	for _, op := range ops {
		var err error
		if doc, err = applyOp(doc, op); err != nil {
			t.Fatal(err)
		}
	}
	var want any
	json.Unmarshal([]byte(`{"items":[1,2,3],"expanded":false}`), &want)
	if !reflect.DeepEqual(doc, want) {
		t.Fatalf("90: %v", doc)
	}
	if _, err := applyOp(doc, map[string]any{"op": "replace", "path": "/nope/deep", "value": 1.0}); err != errUnresolvable {
		t.Errorf("91: %v", err)
	}
	if _, err := applyOp(doc, map[string]any{"op": "test", "path": "/expanded", "value": true}); err != errTestFailed {
		t.Errorf("92: %v", err)
	}
	doc, err := applyOp(doc, map[string]any{"op": "remove", "path": "/items/0"})
	if err != nil || !reflect.DeepEqual(doc.(map[string]any)["items"], []any{2.0, 3.0}) {
		t.Errorf("remove: %v %v", doc, err)
	}
}
