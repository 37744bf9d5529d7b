package threadstest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/threadsapi/threads-go/internal/jsonx"
)

// This file makes the server's JSON answers carry members the SDK does
// not model ([WithExtraMembers]), as the service's answers will once it
// adds fields: a user tests offline that the code reading them through
// Raw.ExtraFields (threads.WithRawJSON) works, and that nothing else
// breaks.

// WithExtraMembers makes every 2xx JSON answer of the server (not the
// event streams, nor the answers of injected faults) carry members: each
// object in it gets the members of members it does not have already,
// added at its end, encoded with encoding/json, whatever its level (a
// thread, each of its messages, each content part...). The free-form maps
// (metadata, componentState, additionalContext, props, state, input,
// parameterValue, the JSON schemas) are left as they are: their members
// are data, not fields.
//
// With threads.WithRawJSON on the client, each value the SDK decodes then
// gives the members in its ExtraFields, and its RawJSON the answer's bytes
// as sent. An empty map adds nothing; members that encoding/json cannot
// encode make NewServer and Start panic.
func WithExtraMembers(members map[string]any) Option {
	return option(func(c *config) {
		if len(members) == 0 {
			c.extraMembers = nil
			return
		}
		b, err := json.Marshal(members)
		if err != nil {
			panic("threadstest: WithExtraMembers: " + err.Error())
		}
		c.extraMembers = b
	})
}

// freeForm names the members whose values are free-form maps in the
// service's answers: WithExtraMembers leaves them alone.
func freeForm(name string) bool {
	switch name {
	case "metadata", "componentState", "additionalContext", "props", "state", "input", "parameterValue", "details", "runMetadata", "threadMetadata",
		"propsSchema", "stateSchema", "inputSchema", "outputSchema":
		return true
	}
	return false
}

// withExtraMembers returns w, or, when the server adds members to its
// answers, a writer that does so; done sends what it held back.
func (s *Server) withExtraMembers(w http.ResponseWriter) (_ http.ResponseWriter, done func()) {
	if s.cfg.extraMembers == nil {
		return w, func() {}
	}
	m := &membersWriter{ResponseWriter: w, extra: s.cfg.extraMembers}
	return m, m.finish
}

// membersWriter holds back a 2xx JSON answer, to send it with the extra
// members; any other answer (a stream, a problem) goes through as it is
// written.
type membersWriter struct {
	http.ResponseWriter
	extra   []byte
	status  int
	decided bool
	buf     *bytes.Buffer // the held-back answer; nil: passing through
}

func (m *membersWriter) WriteHeader(status int) {
	if m.decided {
		return
	}
	m.decided, m.status = true, status
	ct := m.Header().Get("Content-Type")
	if status/100 == 2 && strings.HasPrefix(ct, "application/json") {
		m.buf = new(bytes.Buffer)
		return
	}
	m.ResponseWriter.WriteHeader(status)
}

func (m *membersWriter) Write(b []byte) (int, error) {
	if !m.decided {
		m.WriteHeader(http.StatusOK)
	}
	if m.buf != nil {
		return m.buf.Write(b)
	}
	return m.ResponseWriter.Write(b)
}

// Flush flushes a stream that passes through; a held-back answer is sent
// by finish.
func (m *membersWriter) Flush() {
	if f, ok := m.ResponseWriter.(http.Flusher); ok && m.buf == nil {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (m *membersWriter) Unwrap() http.ResponseWriter { return m.ResponseWriter }

// finish sends the held-back answer with the members added.
func (m *membersWriter) finish() {
	if m.buf == nil {
		return
	}
	out, err := jsonx.AddMembers(m.buf.Bytes(), m.extra, freeForm)
	if err != nil {
		out = m.buf.Bytes() // not JSON after all: as it was
	} else {
		out = append(out, '\n') // as the server ends its answers
	}
	m.Header().Del("Content-Length")
	m.ResponseWriter.WriteHeader(m.status)
	m.ResponseWriter.Write(out)
}
