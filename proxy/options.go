package proxy

import (
	"log/slog"
	"time"

	threads "github.com/threadsapi/threads-go"
)

// config is what the options set.
type config struct {
	keepAlive, writeTimeout time.Duration
	maxBody                 int64
	maxRuns                 int
	tools                   []threads.Tool
	store                   Store
	keyPrefix               string
	pendingTTL, leaseTTL    time.Duration
	openSlots               bool
	detach                  time.Duration // 0: runs end with their browser
	detached                *detachment   // Relay's run, under Handler.Detach
	approvals               *Approvals
	logger                  *slog.Logger
	callOpts                []threads.RequestOption
	err                     error // the first invalid option
}

// Option configures a [Handler] ([New]).
type Option interface{ apply(*config) }

// RelayOption configures [Relay]. [WithKeepAlive] and [WithWriteTimeout]
// are also Options (the Handler relays its runs with the same settings);
// [Handler.Detach]'s is one run's, and New refuses it.
type RelayOption interface {
	Option
	relay()
}

type option func(*config)

func (o option) apply(c *config) { o(c) }

type relayOption func(*config)

func (o relayOption) apply(c *config) { o(c) }
func (relayOption) relay()            {}

func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// WithKeepAlive sets how long a relay may stay silent before it writes a
// keep-alive comment ([DefaultKeepAlive]); 0 or less: none.
func WithKeepAlive(d time.Duration) RelayOption {
	return relayOption(func(c *config) { c.keepAlive = max(d, 0) })
}

// WithWriteTimeout bounds each write of a relay to the browser
// ([DefaultWriteTimeout]): a browser that reads slower than that is
// treated as gone, and its run cancelled. 0 or less: no bound. Behind a
// response writer that takes no write deadline, a timer cancels the run
// instead, and the write itself may block until the connection dies (see
// the package doc's "Relaying a run").
func WithWriteTimeout(d time.Duration) RelayOption {
	return relayOption(func(c *config) { c.writeTimeout = max(d, 0) })
}
