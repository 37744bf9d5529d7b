package runs

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"testing/synctest"
)

// trackedBody records whether it was read to its end and closed.
type trackedBody struct {
	r      io.Reader
	mu     sync.Mutex
	eof    bool
	closed chan struct{}
}

func newTrackedBody(data string) *trackedBody {
	return &trackedBody{r: bytes.NewReader([]byte(data)), closed: make(chan struct{})}
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.mu.Lock()
		b.eof = true
		b.mu.Unlock()
	}
	return n, err
}

func (b *trackedBody) Close() error { close(b.closed); return nil }

const finishedRun = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
	"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
	"data: {\"type\":\"RUN_ERROR\",\"message\":\"late duplicate\"}\n\n"

// The Next after the terminal event reads the rest of the body (so the
// connection can be reused) and closes it, without a goroutine.
func TestRunStreamNextAfterEndDrainsBody(t *testing.T) {
	t.Parallel()
	body := newTrackedBody(finishedRun)
	s := newStream(context.Background(), body, limits{maxEventSize: 1 << 10}, nil, "", "")
	n := 0
	for s.Next() {
		n++
	}
	if n != 2 || s.Err() != nil || s.Outcome() != OutcomeFinished {
		t.Fatalf("%d events, err %v, outcome %v; want 2, nil, finished", n, s.Err(), s.Outcome())
	}
	select {
	case <-body.closed:
	default:
		t.Fatal("body not closed when Next returned false")
	}
	if !body.eof {
		t.Error("body not read to its end: the connection cannot be reused")
	}
}

// Close after the terminal event, without another Next, still reads the
// rest of the body and closes it (itself: no goroutine is started).
func TestRunStreamCloseAfterEndDrainsBody(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		body := newTrackedBody(finishedRun)
		s := newStream(context.Background(), body, limits{maxEventSize: 1 << 10}, nil, "", "")
		for s.Next() {
			if _, ok := s.Current().(RunFinished); ok {
				break
			}
		}
		s.Close()
		select {
		case <-body.closed:
		default:
			t.Fatal("body not closed when Close returned")
		}
		body.mu.Lock()
		defer body.mu.Unlock()
		if !body.eof {
			t.Error("body not read to its end after Close")
		}
	})
}
