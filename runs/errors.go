package runs

import (
	"encoding/json"
	"errors"
	"net/http"

	threads "github.com/threadsapi/threads-go"
)

// The problem types of the /v1 routes: a [threads.Problem]'s Type. The
// service sends these problems as application/json, with extra members
// (threadId, currentRunId, missingToolCallIds...) in its Extensions.
const (
	TypeConcurrentRun      = "urn:tambo:error:concurrent_run"
	TypeRunActive          = "urn:tambo:error:run_active"
	TypeInvalidPreviousRun = "urn:tambo:error:invalid_previous_run"
	TypeInvalidToolResult  = "urn:tambo:error:invalid_tool_result"
	TypeInvalidCursor      = "urn:tambo:error:invalid_cursor"
	TypeInvalidJSONPatch   = "urn:tambo:error:invalid_json_patch"
	TypeValidation         = "urn:tambo:error:validation_error"
)

// Sentinel errors for the /v1 problems, matched with errors.Is on what a
// call of this package returns:
//
//	if errors.Is(err, runs.ErrRunActive) { ... wait for the run, retry ... }
//
// Every non-2xx answer comes back as an error that errors.As reads as a
// *[threads.Problem] (and that matches threads' own sentinels:
// threads.ErrForbidden, threads.ErrConflict...); use errors.As, not a type
// assertion, since the Problem is wrapped so that these sentinels match
// too. Each sentinel matches by the problem's Type (see the Type
// constants), not its status.
//
// A thread that is unknown, deleted or another end user's is 403 Forbidden
// on every route that names it, as on the live service: match it with
// threads.ErrForbidden (the same answer as for a refused API key).
var (
	// ErrRunActive: a run is already active on the thread (409,
	// TypeConcurrentRun when starting a run, TypeRunActive when updating
	// component state).
	ErrRunActive = errors.New("runs: a run is active on the thread")
	// ErrInvalidPreviousRun: previousRunId is missing or is not the
	// thread's last completed run (400).
	ErrInvalidPreviousRun = errors.New("runs: invalid previous run")
	// ErrInvalidToolResult: tool results missing or extra for the
	// thread's pending tool calls (400; [threads.Problem].Code is
	// MISSING_RESULTS or EXTRA_RESULTS).
	ErrInvalidToolResult = errors.New("runs: invalid tool result")
	// ErrInvalidCursor: a paging cursor the service does not accept (400),
	// in either of the service's two shapes.
	ErrInvalidCursor = errors.New("runs: invalid cursor")
	// ErrInvalidJSONPatch: a component-state patch that does not apply
	// (400; [threads.Problem].Extensions["errors"] says which operation
	// failed).
	ErrInvalidJSONPatch = errors.New("runs: invalid JSON patch")
	// ErrValidation: a request the service's /v1 checks refused (400
	// TypeValidation). Class-validator refusals (a message list) are plain
	// threads.ErrBadRequest.
	ErrValidation = errors.New("runs: validation error")
)

// problemError carries a *threads.Problem and matches this package's
// sentinels as well as threads' (through Unwrap).
type problemError struct{ p *threads.Problem }

func (e *problemError) Error() string { return e.p.Error() }
func (e *problemError) Unwrap() error { return e.p }

// Is matches the sentinels of this package by the problem's type.
func (e *problemError) Is(target error) bool {
	p := e.p
	switch target {
	case ErrRunActive:
		return p.Type == TypeConcurrentRun || p.Type == TypeRunActive
	case ErrInvalidPreviousRun:
		return p.Type == TypeInvalidPreviousRun
	case ErrInvalidToolResult:
		return p.Type == TypeInvalidToolResult
	case ErrInvalidCursor:
		// GET /v1/threads answers a bad cursor in the framework's shape.
		return p.Type == TypeInvalidCursor || (p.Status == http.StatusBadRequest && p.Detail == "Invalid cursor")
	case ErrInvalidJSONPatch:
		return p.Type == TypeInvalidJSONPatch
	case ErrValidation:
		return p.Type == TypeValidation
	}
	return false
}

// wrap makes a *threads.Problem match this package's sentinels and
// removes the Client's end-user token (and extra secrets) from it, in case
// the service echoed them. Other errors pass unchanged: the core's
// transport errors name the call, never a header.
func (c *Client) wrap(err error, extra ...string) error {
	var p *threads.Problem
	if !errors.As(err, &p) || p == nil {
		return err
	}
	if tok := c.token.Reveal(); tok != "" {
		extra = append(extra, tok)
	}
	if len(extra) > 0 {
		scrub(p, func(s string) string { return c.conn.Redact(s, extra...) })
	}
	return &problemError{p}
}

// scrub applies redact to every text of p the server chose.
func scrub(p *threads.Problem, redact func(string) string) {
	p.Title, p.Detail, p.Instance, p.Code = redact(p.Title), redact(p.Detail), redact(p.Instance), redact(p.Code)
	p.Type, p.RequestID, p.Path, p.Route = redact(p.Type), redact(p.RequestID), redact(p.Path), redact(p.Route)
	if p.Body != nil {
		p.Body = []byte(redact(string(p.Body)))
	}
	if p.Header != nil {
		h := make(http.Header, len(p.Header))
		for k, vs := range p.Header {
			for _, v := range vs {
				h[redact(k)] = append(h[redact(k)], redact(v))
			}
		}
		p.Header = h
	}
	if p.Extensions != nil {
		ext := make(map[string]json.RawMessage, len(p.Extensions))
		for k, v := range p.Extensions {
			ext[redact(k)] = json.RawMessage(redact(string(v)))
		}
		p.Extensions = ext
	}
	if p.Details != nil {
		det := make(map[string]any, len(p.Details))
		for k, v := range p.Details {
			det[redact(k)] = scrubValue(v, redact)
		}
		p.Details = det
	}
}

func scrubValue(v any, redact func(string) string) any {
	switch v := v.(type) {
	case string:
		return redact(v)
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[redact(k)] = scrubValue(e, redact)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = scrubValue(e, redact)
		}
	}
	return v
}
