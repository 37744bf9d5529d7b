package proxy

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneByte reads one byte at a time: a body that arrives in the smallest
// pieces.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1)]) }

// takeAll reads every whole event of body, as the relay does.
func takeAll(t testing.TB, r io.Reader, max int) (evs []string, err error) {
	rd := rawEvents{r: r, max: max}
	for {
		for {
			ev, ok := rd.take()
			if !ok {
				break
			}
			evs = append(evs, string(ev))
		}
		if !rd.fill() {
			return evs, rd.err
		}
	}
}

// The relay finds the same events however the body is split, with each
// line ending the standard allows.
func TestRawEventsSplitAnywhere(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"data: {\"type\":\"A\"}\n\ndata: {\"type\":\"B\"}\n\n",
		"data: {\"type\":\"A\"}\r\n\r\ndata: {\"type\":\"B\"}\r\n\r\n",
		": comment\n\ndata: a\ndata: b\n\nid: 7\nevent: x\ndata: {}\n\n\n\ndata: {\"type\":\"C\"}\n\n",
		"data: {\"type\":\"A\"}\r\rdata: x\n\n",
		strings.Repeat("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"delta\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n\n", 400),
	} {
		whole, err := takeAll(t, strings.NewReader(body), 0)
		require.ErrorIs(t, err, io.EOF)
		bytewise, err := takeAll(t, oneByte{strings.NewReader(body)}, 0)
		require.ErrorIs(t, err, io.EOF)
		assert.Equal(t, whole, bytewise)
		assert.Equal(t, body, strings.Join(whole, ""), "every byte is in an event")
	}
}

// An event over the size bound ends the relay.
func TestRawEventsTooLarge(t *testing.T) {
	t.Parallel()
	_, err := takeAll(t, strings.NewReader("data: "+strings.Repeat("x", 100<<10)+"\n\n"), 64<<10)
	assert.ErrorIs(t, err, errTooLarge)
}

// parse finds the data and type of each form of event: the service's own
// form as a slice of the bytes read, any other joined as SSE joins it.
func TestParseEvent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ev, data, typ string
		wire          bool
	}{
		{"data: {\"type\":\"RUN_FINISHED\",\"runId\":\"r\"}\n\n", `{"type":"RUN_FINISHED","runId":"r"}`, "RUN_FINISHED", true},
		{"data:{\"type\":\"X\"}\n\n", `{"type":"X"}`, "X", false},
		{"data: {\"runId\":\"r\",\"type\":\"RUN_ERROR\"}\n\n", `{"runId":"r","type":"RUN_ERROR"}`, "RUN_ERROR", true},
		{"data: {\"type\":\ndata: \"Y\"}\n\n", "{\"type\":\n\"Y\"}", "Y", false},
		{"data: {\"type\":\"A\"}\r\n\r\n", `{"type":"A"}`, "A", false},
		{": keep-alive\n\n", "", "", false},
	} {
		re, _ := parse([]byte(c.ev), nil)
		assert.Equal(t, c.data, string(re.data), c.ev)
		assert.Equal(t, c.typ, string(re.typ), c.ev)
		assert.Equal(t, c.wire, re.wire, c.ev)
	}
}

// FuzzRawEvents: whatever the service sends, however it is split, the
// relay's reader takes the same events, loses no byte, and parse does
// not panic.
func FuzzRawEvents(f *testing.F) {
	f.Add([]byte("data: {\"type\":\"A\"}\n\ndata: x\r\n\r\n: c\n\n"), 3)
	f.Add([]byte("\r\r\n\n\r\ndata:\n\n"), 1)
	f.Fuzz(func(t *testing.T, body []byte, split int) {
		whole, err := takeAll(t, bytes.NewReader(body), 0)
		if err != io.EOF {
			t.Fatal(err)
		}
		r := io.MultiReader(bytes.NewReader(body[:min(max(split, 0), len(body))]), oneByte{bytes.NewReader(body[min(max(split, 0), len(body)):])})
		split2, _ := takeAll(t, r, 0)
		if strings.Join(whole, "|") != strings.Join(split2, "|") {
			t.Fatalf("%q vs %q", whole, split2)
		}
		if !strings.HasPrefix(string(body), strings.Join(whole, "")) {
			t.Fatal("bytes lost")
		}
		for _, ev := range whole {
			parse([]byte(ev), nil)
		}
	})
}

// The pause is found in the service's member order and in any other.
func TestIsPause(t *testing.T) {
	t.Parallel()
	assert.True(t, isPause([]byte(`{"type":"CUSTOM","name":"tambo.run.awaiting_input","value":{}}`)))
	assert.True(t, isPause([]byte(`{"value":{},"name":"tambo.run.awaiting_input","type":"CUSTOM"}`)))
	assert.True(t, isPause([]byte(`{"type":"CUSTOM","name":"tambo.run.awaiting\u005finput"}`)))
	assert.False(t, isPause([]byte(`{"type":"CUSTOM","name":"tambo.component.props_delta","value":{}}`)))
}
