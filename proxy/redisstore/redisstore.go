// Package redisstore keeps the proxy's shared state on Redis: a
// [proxy.Store] for the instances of a backend behind one load balancer
// (pending server results, run slots, server-side calls' records, detached
// runs' logs and owners, parked approvals: the package doc's "The shared
// store" in package proxy),
// on github.com/redis/go-redis/v9. It is a module of its own, so that a
// program that does not use it has no Redis client in its module graph.
//
//	store, err := redisstore.Open("rediss://app:secret@redis.internal:6379/0")
//	if err != nil { ... }
//	defer store.Close()
//	h, err := proxy.New(client, userFromSession, proxy.WithStore(store), proxy.WithMaxRunsPerUser(3))
//
// It needs Redis 7.0 or later (GETDEL, XSETID's MAXDELETEDID) and Go 1.26
// (go-redis v9.23.0's minimum; the SDK itself needs 1.25). It passes
// the proxy's store conformance suite (package proxy/storetest) against a
// real redis-server.
//
// # Deployments
//
// A single Redis node, or a primary with replicas behind Sentinel
// ([redis.NewFailoverClient], given to [New]) are what this package
// supports and tests. Every command and script touches exactly one key,
// so keys need no hash tags and a Redis Cluster client
// ([redis.NewClusterClient]) works with it too, but this package does not
// test on a cluster. A replica promoted after a failover may have lost the
// latest writes (Redis replicates asynchronously): a pending result or a
// slot's lease written just before may be gone, which the proxy treats as
// an expired one (an error result; a slot free again).
//
// # When Redis is down
//
// Each call returns the client's error (after go-redis' own retries on
// the same connection pool); nothing panics, nothing is queued, and the
// next call after Redis is back succeeds. What the proxy does with those
// errors, per use, is in package proxy's "The shared store" (see
// [proxy.WithStore]).
//
// # Connections
//
// A page reading a detached run ([proxy.WithDetachedRuns]) waits for the
// run's next event on a blocking XREAD, which holds one connection of the
// client's pool meanwhile; go-redis' default pool is 10 per CPU. Size it
// (PoolSize, or pool_size= in the URL) to the detached runs an instance
// streams at once, plus room for the other calls, which otherwise wait
// for a free connection (PoolTimeout). The proxy bounds one user's such
// readers per instance (twice WithMaxRunsPerUser, else 4; 429 past it),
// so that one user's pages cannot take the whole pool.
//
// # Keys
//
// The proxy's keys (prefix:version:kind:scope:name) are used as they are:
// give each application its own prefix with [proxy.WithStoreKeyPrefix],
// or its own database number in the URL. Values are Redis strings, leases
// are strings holding their holder, logs are streams (field "v"); each has
// a Redis TTL, so nothing outlives it.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/threadsapi/threads-go/proxy"
)

// Store is a [proxy.Store] on a Redis client. It is safe for concurrent
// use. Make one with [New] or [Open].
type Store struct {
	c    redis.UniversalClient
	owns bool // Open made c: Close closes it
}

var _ proxy.Store = (*Store)(nil)

// New returns a Store on c: a *redis.Client, a Sentinel failover client
// or a cluster client (see the package documentation). The caller keeps
// c and closes it; [Store.Close] does not.
func New(c redis.UniversalClient) (*Store, error) {
	if c == nil {
		return nil, errors.New("redisstore: New: nil client")
	}
	return &Store{c: c}, nil
}

// Open connects to the Redis server of rawURL, a redis:// URL or, for
// TLS, a rediss:// one, as go-redis' [redis.ParseURL] reads it: a user and
// password for an ACL user (redis://user:password@host:6379/0), the
// database number as the path, options such as dial_timeout as query
// parameters. It does not dial: the first call does. [Store.Close] closes
// the connection pool. The error never holds the password.
func Open(rawURL string) (*Store, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redisstore: Open: %s", redactURLError(err, rawURL))
	}
	return &Store{c: redis.NewClient(opt), owns: true}, nil
}

// redactURLError words a URL parse error without any part of the URL's
// password. url.Parse quotes the URL and fragments of it (a port, an
// escape), and a password pasted unescaped (base64 holds '/' and '+',
// some hold '@', '?' or '#') is cut anywhere: of its errors only the
// reason is shown, its quoted parts not. go-redis' own errors name an
// option or quote a part of the URL (its path): every piece of the
// password is redacted from them.
func redactURLError(err error, rawURL string) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return "the URL does not parse: " + quoted.ReplaceAllLiteralString(ue.Err.Error(), `"…"`)
	}
	msg := err.Error()
	for _, s := range secretPieces(rawURL) {
		msg = strings.ReplaceAll(msg, s, "[REDACTED]")
	}
	return msg
}

var quoted = regexp.MustCompile(`"[^"]*"`)

// secretPieces returns what of rawURL may be a password, without parsing
// it (it may be a URL that does not parse): the user information's
// password (up to the last '@', which a password pasted unescaped may
// hold), a password query parameter's value, each as it is and
// unescaped, and their pieces between URL delimiters that are long
// enough to give a part of it away, longest first.
func secretPieces(rawURL string) []string {
	var secrets []string
	if _, rest, ok := strings.Cut(rawURL, "://"); ok {
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				secrets = append(secrets, pw)
			}
		}
	}
	for rest := rawURL; ; {
		i := strings.Index(rest, "password=")
		if i < 0 {
			break
		}
		rest = rest[i+len("password="):]
		v, _, _ := strings.Cut(rest, "&")
		v, _, _ = strings.Cut(v, "#")
		secrets = append(secrets, v)
	}
	for _, s := range slices.Clone(secrets) {
		if u, err := url.PathUnescape(s); err == nil && u != s {
			secrets = append(secrets, u)
		}
	}
	var out []string
	for _, s := range secrets {
		out = append(out, s)
		for _, piece := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune("/?#@:%&", r) }) {
			if len(piece) >= 3 {
				out = append(out, piece)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

// Close closes the connection pool of a Store made by [Open]; a Store
// made by [New] leaves its client to the caller.
func (s *Store) Close() error {
	if s.owns {
		return s.c.Close()
	}
	return nil
}

func px(ttl time.Duration) (time.Duration, error) {
	if ttl < time.Millisecond {
		return 0, errors.New("redisstore: a ttl under a millisecond")
	}
	return ttl, nil
}

// Set stores value under key until ttl (SET PX).
func (s *Store) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	ttl, err := px(ttl)
	if err != nil {
		return err
	}
	return wrap(s.c.Set(ctx, key, value, ttl).Err())
}

// SetNX stores value under key until ttl if key holds nothing (SET NX PX).
func (s *Store) SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	ttl, err := px(ttl)
	if err != nil {
		return false, err
	}
	err = s.c.SetArgs(ctx, key, value, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, wrap(err)
}

// Get returns key's value (GET).
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	return value(s.c.Get(ctx, key).Bytes())
}

// Take returns key's value and deletes it (GETDEL).
func (s *Store) Take(ctx context.Context, key string) ([]byte, bool, error) {
	return value(s.c.GetDel(ctx, key).Bytes())
}

func value(v []byte, err error) ([]byte, bool, error) {
	switch {
	case errors.Is(err, redis.Nil):
		return nil, false, nil
	case err != nil:
		return nil, false, wrap(err)
	}
	if v == nil {
		v = []byte{}
	}
	return v, true, nil
}

// Delete removes key (DEL).
func (s *Store) Delete(ctx context.Context, key string) error {
	return wrap(s.c.Del(ctx, key).Err())
}

var leaseScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`)

// Lease gives holder the lease key until ttl, if free or holder's (one
// script: GET, then SET PX).
func (s *Store) Lease(ctx context.Context, key, holder string, ttl time.Duration) (bool, error) {
	ttl, err := px(ttl)
	if err != nil {
		return false, err
	}
	if holder == "" {
		return false, errors.New("redisstore: a lease with an empty holder")
	}
	n, err := leaseScript.Run(ctx, s.c, []string{key}, holder, ttl.Milliseconds()).Int()
	return n == 1, wrap(err)
}

var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
end
return 0`)

// Release ends holder's lease key (one script: GET, then DEL).
func (s *Store) Release(ctx context.Context, key, holder string) error {
	err := releaseScript.Run(ctx, s.c, []string{key}, holder).Err()
	if errors.Is(err, redis.Nil) {
		err = nil
	}
	return wrap(err)
}

// appendScript adds an entry to a stream, trimming it to its length, and
// records the last id trimmed (XSETID's MAXDELETEDID: XADD's own trimming
// does not), so that ReadLog can tell a reader that it missed entries.
var appendScript = redis.NewScript(`
local n = redis.call('XLEN', KEYS[1])
local maxlen = tonumber(ARGV[2])
local trimmed = false
if n >= maxlen then
  local old = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', n - maxlen + 1)
  trimmed = old[#old][1]
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', maxlen, '*', 'v', ARGV[1])
if trimmed then
  redis.call('XSETID', KEYS[1], id, 'MAXDELETEDID', trimmed)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return id`)

// Append adds value to the log key, a Redis stream of at most maxLen
// entries whose ids are Redis' (milliseconds-sequence).
func (s *Store) Append(ctx context.Context, key string, value []byte, maxLen int, ttl time.Duration) (string, error) {
	ttl, err := px(ttl)
	if err != nil {
		return "", err
	}
	if maxLen < 1 {
		return "", errors.New("redisstore: a log of fewer than one entry")
	}
	id, err := appendScript.Run(ctx, s.c, []string{key}, value, maxLen, ttl.Milliseconds()).Text()
	return id, wrap(err)
}

// readScript returns {0} when the log cannot give every entry after
// ARGV[1] (it does not exist, it was trimmed past it, or the id is later
// than any it gave), else {1, entries...} with at most ARGV[2] entries.
var readScript = redis.NewScript(`
local function parse(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local function less(a, b)
  local am, as = parse(a)
  local bm, bs = parse(b)
  return am < bm or (am == bm and as < bs)
end
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
local last, maxdel = '0-0', '0-0'
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then last = info[i+1] end
  if info[i] == 'max-deleted-entry-id' then maxdel = info[i+1] end
end
local after = ARGV[1]
if less(after, maxdel) or less(last, after) then return {0} end
local from = '(' .. after
if after == '0-0' then from = '-' end
return {1, redis.call('XRANGE', KEYS[1], from, '+', 'COUNT', ARGV[2])}`)

var streamID = regexp.MustCompile(`^[0-9]{1,15}-[0-9]{1,15}$`)

// ReadLog returns the log's entries after id after; while there is none,
// it waits on a blocking XREAD, which holds one of the pool's connections
// for up to wait: each page reading a detached run holds one while it
// waits (see "Connections" in the package doc).
func (s *Store) ReadLog(ctx context.Context, key, after string, n int, wait time.Duration) ([]proxy.LogEntry, bool, error) {
	if after == "" {
		after = "0-0"
	}
	if !streamID.MatchString(after) {
		return nil, false, nil
	}
	if n <= 0 {
		return nil, true, nil
	}
	for waited := false; ; waited = true {
		res, err := readScript.Run(ctx, s.c, []string{key}, after, n).Slice()
		if err != nil {
			return nil, false, wrap(err)
		}
		entries, whole, err := decodeRead(res)
		if err != nil || !whole || len(entries) > 0 || wait <= 0 || waited {
			return entries, whole, err
		}
		err = s.c.XRead(ctx, &redis.XReadArgs{Streams: []string{key, after}, Count: 1, Block: wait}).Err()
		if errors.Is(err, redis.Nil) {
			return nil, true, nil // nothing came within wait
		}
		if err != nil {
			return nil, true, wrap(err)
		}
	}
}

// decodeRead reads readScript's answer.
func decodeRead(res []any) ([]proxy.LogEntry, bool, error) {
	if len(res) == 0 {
		return nil, false, errors.New("redisstore: an empty answer to a log read")
	}
	if ok, _ := res[0].(int64); ok != 1 {
		return nil, false, nil
	}
	if len(res) < 2 {
		return nil, false, errors.New("redisstore: a log read without its entries")
	}
	raw, _ := res[1].([]any)
	out := make([]proxy.LogEntry, 0, len(raw))
	for _, r := range raw {
		e, _ := r.([]any)
		if len(e) != 2 {
			return nil, false, errors.New("redisstore: a log entry of another shape")
		}
		id, _ := e[0].(string)
		fields, _ := e[1].([]any)
		var v []byte
		for i := 0; i+1 < len(fields); i += 2 {
			if f, _ := fields[i].(string); f == "v" {
				s, _ := fields[i+1].(string)
				v = []byte(s)
			}
		}
		if id == "" || v == nil {
			return nil, false, errors.New("redisstore: a log entry without its id or value")
		}
		out = append(out, proxy.LogEntry{ID: id, Value: v})
	}
	return out, true, nil
}

// ExpireNow deletes key, as its ttl lapsing would: the hook of the store
// conformance suite (package proxy/storetest) and of tests that let a
// lease or a log lapse without waiting.
func (s *Store) ExpireNow(ctx context.Context, key string) error {
	return wrap(s.c.Del(ctx, key).Err())
}

// wrap marks Redis' out-of-memory refusal as [proxy.ErrStoreFull], so
// that the proxy treats a full Redis (maxmemory with noeviction) as a
// full store.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	var re redis.Error
	if errors.As(err, &re) && len(re.Error()) >= 3 && re.Error()[:3] == "OOM" {
		return fmt.Errorf("%w: %w", proxy.ErrStoreFull, err)
	}
	return err
}
