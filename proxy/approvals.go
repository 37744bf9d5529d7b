package proxy

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	threads "github.com/threadsapi/threads-go"
	"github.com/threadsapi/threads-go/internal/toolcore"
	"github.com/threadsapi/threads-go/runs"
)

// Approvals say who may decide the calls of server-side tools that need
// a person's approval, and how long such a call waits ([WithApprovals]).
// Which calls need approval is the tool's own rule, as in process:
// [threads.Tool].NeedsApproval ([threads.Always], or a function of the
// call) on a [WithTools] tool. Such a call is parked in the [Store] until
// a person approves it (then the tool runs, as the run's user:
// [UserFrom]) or refuses it (the model reads the refusal and its
// reason); the tool's other calls run at once.
type Approvals struct {
	// MayDecide reports whether the sender of r may decide call: it
	// filters the approval API's list, and a decision it refuses is
	// answered 403. An error is answered 500 (and logged). Required.
	MayDecide func(r *http.Request, call PendingApproval) (bool, error)
	// DecidedBy names who decides through r (never a secret), for the
	// decision's record, the log, and the client's observer
	// ([threads.CallEvent].DecidedBy on the run that carries the call's
	// result); nil: "".
	DecidedBy func(r *http.Request) string
	// TTL is how long a parked call waits for a decision
	// ([DefaultApprovalTTL]); past it the call is answered with an error
	// result ("approval expired") at the next request that touches it.
	TTL time.Duration
	// Hold bounds how long a browser's response stays open after its run
	// parked calls and nothing else, waiting for the decision: while it
	// is open the decision's run follows in the same response (once;
	// keep-alives meanwhile). Past it, or once the browser left, the page
	// resumes the decision's run with the resume route.
	// [DefaultApprovalHold]; negative: the response ends at the pause.
	Hold time.Duration
	// Wait bounds how long a decision waits for the same call's decision
	// still running on another instance ([DefaultApprovalWait]) before it
	// is answered 409 with Retry-After.
	Wait time.Duration
}

// The [Approvals] defaults, and the bound on the approval API's list.
const (
	DefaultApprovalTTL  = 24 * time.Hour
	DefaultApprovalWait = 10 * time.Second
	DefaultApprovalHold = 2 * time.Minute
	MaxListedApprovals  = 1000
)

// ApprovalEventName is the name of the CUSTOM event that tells a page,
// for clients that do not read AG-UI's interrupt outcome, which calls of
// the run wait for approval: its value is {"approvals": [PendingApproval,
// ...]}. It takes the place of tambo.run.awaiting_input when the pause
// has no browser call, and follows it when it has.
const ApprovalEventName = "threads.approval.requested"

// The statuses of an [ApprovalDecision].
const (
	ApprovalApproved = "approved"
	ApprovalRefused  = "refused"
	ApprovalExpired  = "expired"
)

// PendingApproval is a parked call as the approval API lists it, and as
// [Approvals].MayDecide sees it. ID names it in the approval API, in the
// interrupt of the run's RUN_FINISHED and in resume[] entries: 64 hex
// digits, a keyed hash of the run's user (it names no one) then a
// random part, so that ids cannot be guessed.
type PendingApproval struct {
	ID         string `json:"id"`
	ThreadID   string `json:"threadId"`
	RunID      string `json:"runId"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"tool"`
	// Arguments are the call's, redacted as the page's events are; the
	// tool, once approved, gets them as the model wrote them.
	Arguments map[string]any `json:"arguments"`
	ExpiresAt time.Time      `json:"expiresAt"`
	// User is the run's user, for MayDecide (never sent to a page); zero
	// when MayDecide is asked about a second decision of a token user's
	// call, whose token is not kept once the call is decided.
	User User `json:"-"`
}

// ApprovalDecision is the approval API's answer to a decision: its
// status, the result the model reads (Result, IsError), and RunID, the
// run the decision continued (resume its events with GET
// /v1/threads/{threadId}/runs/{runId}/events), or "" when the browser's
// continuation carries the result (the pause also waits for the
// browser's calls, or for other approvals). A second decision of one
// call gets the first one's record.
type ApprovalDecision struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitzero"`
	DecidedBy string `json:"decidedBy,omitzero"`
	Result    string `json:"result"`
	IsError   bool   `json:"isError,omitzero"`
	ThreadID  string `json:"threadId"`
	RunID     string `json:"runId,omitzero"`
}

// WithApprovals makes the Handler park each call of a [WithTools] tool
// whose NeedsApproval says it needs approval, until a person decides it
// through the approval API ([Handler.ApprovalAPI]) or the page's resume[]
// entry; see docs/approvals.md. New fails without such a tool (and a tool
// that needs approval without WithApprovals). It needs
// [WithDetachedRuns]: a decision continues the run on whichever instance
// took it, into the run's log, which the page reads with the resume
// route; that run is a detached run, under its bounds, and
// [Handler.Shutdown] waits for it.
func WithApprovals(a Approvals) Option {
	return option(func(c *config) {
		switch {
		case a.MayDecide == nil:
			c.fail(errors.New("proxy: WithApprovals: MayDecide is nil"))
		case a.TTL < 0 || a.Wait < 0:
			c.fail(errors.New("proxy: WithApprovals: a negative duration"))
		}
		if a.TTL == 0 {
			a.TTL = DefaultApprovalTTL
		}
		if a.Wait == 0 {
			a.Wait = DefaultApprovalWait
		}
		if a.Hold == 0 {
			a.Hold = DefaultApprovalHold
		}
		c.approvals = &a
	})
}

// approvals is the Handler's state of WithApprovals.
type approvals struct {
	Approvals
	// needs are the NeedsApproval rules of the server's tools that set
	// one, by tool name.
	needs map[string]func(threads.ToolCall) bool

	// secret keys the scope part of approval ids (approvalScope), once
	// read from the store.
	mu     sync.Mutex
	secret []byte
}

// newApprovals checks that a Handler's approvals and its tools go
// together: WithApprovals parks the calls of tools that need approval,
// and nothing else would. It returns the tools as the Handler's runners
// get them: each NeedsApproval answers once per call (askedOnce), for
// the runner, the pause filter and the guard all ask about one call.
func newApprovals(a *Approvals, tools []threads.Tool) (*approvals, []threads.Tool, error) {
	needs := map[string]func(threads.ToolCall) bool{}
	asked := &askedOnce{answers: map[[32]byte]askedAnswer{}}
	tools = slices.Clone(tools)
	for i, t := range tools {
		if t.NeedsApproval == nil {
			continue
		}
		if a == nil {
			return nil, nil, fmt.Errorf("proxy: New: tool %q needs approval (NeedsApproval), but the Handler has no WithApprovals to park its calls until a person decides: add WithApprovals (and WithDetachedRuns)", t.Name)
		}
		tools[i].NeedsApproval = asked.wrap(t.Name, t.NeedsApproval)
		needs[t.Name] = tools[i].NeedsApproval
	}
	switch {
	case a == nil:
		return nil, tools, nil
	case len(needs) == 0:
		return nil, nil, errors.New("proxy: New: WithApprovals, but no WithTools tool needs approval: set NeedsApproval (threads.Always, or a function of the call) on the tools whose calls wait for a person")
	}
	return &approvals{Approvals: *a, needs: needs}, tools, nil
}

// askedOnce keeps what a tool's NeedsApproval answered about a call (its
// tool, id and arguments) for a minute: the runner (to leave the pause to
// the Handler), the pause filter (to park it) and the guard of the call
// that runs all ask, and a rule whose answer changes between asks (a
// daily budget) would otherwise park a call and also answer it, or do
// neither. Bounded: past maxAsked answers, the expired go, then any.
type askedOnce struct {
	mu      sync.Mutex
	answers map[[32]byte]askedAnswer
}

type askedAnswer struct {
	needs bool
	at    time.Time
}

const (
	askedFor = time.Minute
	maxAsked = 4096
)

func (o *askedOnce) wrap(tool string, needs func(threads.ToolCall) bool) func(threads.ToolCall) bool {
	return func(c threads.ToolCall) bool {
		// fmt prints a map's keys in order: one call, one key.
		key := sha256.Sum256([]byte(tool + "\x00" + c.ID + "\x00" + fmt.Sprint(c.Arguments)))
		now := time.Now()
		o.mu.Lock()
		if a, ok := o.answers[key]; ok && now.Sub(a.at) < askedFor {
			o.mu.Unlock()
			return a.needs
		}
		o.mu.Unlock()
		// Asked without the lock: a rule may be slow (a lookup).
		n := needs(c)
		o.mu.Lock()
		defer o.mu.Unlock()
		if a, ok := o.answers[key]; ok && now.Sub(a.at) < askedFor {
			return a.needs // another ask of the same call won
		}
		if len(o.answers) >= maxAsked {
			for k, a := range o.answers {
				if now.Sub(a.at) >= askedFor || len(o.answers) >= maxAsked {
					delete(o.answers, k)
				}
			}
		}
		o.answers[key] = askedAnswer{needs: n, at: now}
		return n
	}
}

// needsApproval reports whether pending call c is parked: its tool's
// NeedsApproval, asked about the call as the runner asks it (package
// runs reads calls with the same toolcore.ReadCall). A call whose
// arguments are not an object is not: the runner answers it with an
// arguments error.
func (a *approvals) needsApproval(c runs.PendingToolCall) bool {
	needs, ok := a.needs[c.ToolName]
	if !ok {
		return false
	}
	tc := toolcore.ReadCall(c.ToolCallID, c.ToolName, c.Arguments)
	return tc.ArgsErr == nil && needs(threads.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Args,
		StatusMessage: tc.Status.Message, CompletionStatusMessage: tc.Status.Completion})
}

// The records of a parked call in the store: the call (until decided),
// its decision (running, then done), the pause's list of its parked
// calls, and an index log of every parked call for the approval API's
// list. A call and its decision are keyed under the run's user's scope,
// so that one user's parked calls take no room from another's (a store
// may bound a scope): an approval id is that scope (approvalScope) then
// a random part, for a decider (not the run's user) to find it.
func (h *Handler) approvalKey(kind, id string) string {
	return h.cfg.keyPrefix + ":" + storeVersion + ":" + kind + ":" + id[:min(len(id), userScopeLen)] + ":" + id
}

// userScopeLen is the length of a userScope.
const userScopeLen = 32

// newApprovalID returns a new approval id of a call of u's run: u's
// approval scope, then 128 random bits, so that ids cannot be guessed.
func (h *Handler) newApprovalID(ctx context.Context, u User) string {
	var id [16]byte
	_, _ = rand.Read(id[:])
	return h.approvalScope(ctx, u) + hex.EncodeToString(id[:])
}

// approvalScope is the scope of u's parked calls: a hash of u's store
// scope keyed with a secret the instances share through the store, so
// that an id (seen by deciders, pages, logs) does not let anyone find
// the user by hashing guesses of their key. Nothing recomputes it for a
// call (its keys come from its id): a secret that changes (lapsed, or
// not readable: then a random one for this call) only gives the user
// another scope.
func (h *Handler) approvalScope(ctx context.Context, u User) string {
	mac := hmac.New(sha256.New, h.approvalSecret(ctx))
	mac.Write([]byte(userScope(u)))
	return hex.EncodeToString(mac.Sum(nil)[:userScopeLen/2])
}

// approvalSecretTTL is how long the shared secret of approvalScope lives
// in the store.
const approvalSecretTTL = 400 * 24 * time.Hour

func (h *Handler) approvalSecret(ctx context.Context) []byte {
	a := h.approvals
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.secret != nil {
		return a.secret
	}
	key := h.cfg.keyPrefix + ":" + storeVersion + ":approval-secret:all:key"
	fresh := make([]byte, 32)
	_, _ = rand.Read(fresh)
	v, ok, err := h.cfg.store.Get(ctx, key)
	if err == nil && !ok {
		if _, err = h.cfg.store.SetNX(ctx, key, fresh, approvalSecretTTL); err == nil {
			v, ok, err = h.cfg.store.Get(ctx, key)
		}
	}
	if err != nil || !ok || len(v) < 16 {
		return fresh
	}
	a.secret = v
	return v
}

// isApprovalID reports whether id has the form of newApprovalID's (lower
// case hex), so that no other is looked up.
func isApprovalID(id string) bool {
	if len(id) != 2*userScopeLen {
		return false
	}
	for _, c := range []byte(id) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func (h *Handler) parkedKey(u User, threadID, runID string) string {
	sum := sha256.Sum256([]byte(threadID + "\x00" + runID))
	return h.storeKey("parked", u, hex.EncodeToString(sum[:]))
}

// parkedCall is a parked call's record.
type parkedCall struct {
	// Call is the call as shown: its arguments redacted.
	Call PendingApproval `json:"call"`
	// Arguments are the call's arguments as the model wrote them (JSON
	// text), for the tool once approved.
	Arguments string `json:"arguments,omitzero"`
	// User is the run's user: the tool runs as them, and the decision
	// continues their run. A token is kept as it is (the store holds it
	// as long as the call waits).
	UserKey   string `json:"userKey,omitzero"`
	UserToken string `json:"userToken,omitzero"`
	// UserID is the run's User.ID, which its continuation's keys derive
	// from.
	UserID string `json:"userId,omitzero"`
	// Browser: the pause also waits for the browser's calls, whose
	// continuation carries the decision.
	Browser bool `json:"browser"`
}

// user is the run's user; zero for a token user's call read from its
// decision's record, which keeps no token.
func (c parkedCall) user() User {
	switch {
	case c.UserKey != "":
		return User{Key: c.UserKey, ID: c.UserID}
	case c.UserToken != "":
		return User{Token: threads.NewToken(c.UserToken), ID: c.UserID}
	}
	return User{}
}

// parkedPause is a pause's list of its parked calls.
type parkedPause struct {
	Calls   []parkedRef `json:"calls"`
	Browser bool        `json:"browser"`
	// Kept: the copy that no request takes (parkedCallsKey).
	Kept bool `json:"kept,omitzero"`
}

// parkedCallsKey keeps a copy of a pause's list of parked calls, longer
// than the calls wait, never taken: a continuation that finds the pause's
// own list gone (the store lost it, or it lapsed) still knows which calls
// were parked, so that the browser's results for them are taken out and
// they are answered as decided or expired.
func (h *Handler) parkedCallsKey(u User, threadID, runID string) string {
	sum := sha256.Sum256([]byte(threadID + "\x00" + runID))
	return h.storeKey("parked-calls", u, hex.EncodeToString(sum[:]))
}

// isKeptPause reports whether pause record v is the copy of
// parkedCallsKey: it is never put back as the pause's own.
func isKeptPause(v []byte) bool {
	var pp parkedPause
	return json.Unmarshal(v, &pp) == nil && pp.Kept
}

type parkedRef struct {
	ID         string `json:"id"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"tool,omitzero"` // for the observer, once the call's record is gone
}

// decisionRecord is a decision's record: "running" while its tool runs,
// then "done" with the result sent to the service.
type decisionRecord struct {
	State    string           `json:"state"`
	Decision ApprovalDecision `json:"decision"`
	Result   runs.Content     `json:"result"`
	// Run is the call's record, for continuing its run once decided
	// (the record itself goes with the decision).
	Run parkedCall `json:"run"`
}

// park records a pause's calls that need approval, and returns them as
// the page is told of them; kept is false when the store kept no list of
// them (neither the pause's nor its copy): then nothing would take a
// browser's result for them out of a continuation.
//
// raw is the pause's event as the page gets it (redacted by the request
// core): the arguments shown (to the page, MayDecide, the list) are read
// from it; the record keeps them as the model wrote them, for the tool.
func (h *Handler) park(ctx context.Context, u User, threadID, runID string, calls []runs.PendingToolCall, browser bool, raw []byte) (_ []PendingApproval, kept bool) {
	a := h.approvals
	ctx = context.WithoutCancel(ctx)
	now := time.Now()
	keep := a.TTL + DefaultPendingTTL // answered "expired" after TTL, for an hour
	pp := parkedPause{Browser: browser}
	var out []PendingApproval
	var listed []indexEntry
	shown := shownArguments(raw)
	for _, c := range calls {
		pa := PendingApproval{
			ID: h.newApprovalID(ctx, u), ThreadID: threadID, RunID: runID, ToolCallID: c.ToolCallID, ToolName: c.ToolName,
			Arguments: callArguments(shown[c.ToolCallID]), ExpiresAt: now.Add(a.TTL).UTC().Truncate(time.Millisecond),
		}
		rec := parkedCall{Call: pa, Arguments: c.Arguments, Browser: browser, UserKey: u.Key, UserID: u.ID}
		if u.Key == "" {
			rec.UserToken = u.Token.Reveal()
		}
		v, err := json.Marshal(rec, ownJSON)
		if err == nil {
			err = h.cfg.store.Set(ctx, h.approvalKey("approval", pa.ID), v, keep)
		}
		if err != nil {
			// Not listed, and not decidable: the continuation answers it
			// as expired.
			h.log.ErrorContext(ctx, "proxy: cannot park a call that needs approval in the store", "tool", c.ToolName, "error", err)
		} else {
			listed = append(listed, indexEntry{ID: pa.ID, Until: pa.ExpiresAt.Add(DefaultPendingTTL).UnixMilli()})
		}
		pp.Calls = append(pp.Calls, parkedRef{ID: pa.ID, ToolCallID: c.ToolCallID, ToolName: c.ToolName})
		out = append(out, pa)
	}
	if len(listed) > 0 {
		if err := h.updateIndex(ctx, listed, nil, keep); err != nil {
			// Decidable all the same, by its id (the run's interrupt).
			h.log.ErrorContext(ctx, "proxy: cannot list parked calls in the approval index", "calls", len(listed), "error", err)
		}
	}
	if !browser && a.Hold > 0 {
		// The log the decision's run id is appended to, for a response
		// that holds (it must exist before it is waited on). Its first
		// entry says until when the paused run holds (heldUntil).
		until := strconv.FormatInt(now.Add(a.Hold).UnixMilli(), 10)
		_, _ = h.cfg.store.Append(ctx, h.nextKey(u, threadID, runID), []byte(until), 2, a.Hold+time.Minute)
	}
	cp := pp
	cp.Kept = true
	v, _ := json.Marshal(cp)
	if err := h.cfg.store.Set(ctx, h.parkedCallsKey(u, threadID, runID), v, 2*keep); err != nil {
		h.log.ErrorContext(ctx, "proxy: cannot keep a copy of a pause's parked calls in the store", "error", err)
	} else {
		kept = true
	}
	v, _ = json.Marshal(pp)
	if err := h.cfg.store.Set(ctx, h.parkedKey(u, threadID, runID), v, keep); err != nil {
		h.log.ErrorContext(ctx, "proxy: cannot record a pause's parked calls in the store", "error", err)
	} else {
		kept = true
	}
	return out, kept
}

// shownArguments reads the arguments of each pending call of pause
// event raw, by tool call id: the redacted text a page may see. A call
// it cannot read is shown with none, never with what the model wrote.
func shownArguments(raw []byte) map[string]string {
	var ev struct {
		Value struct {
			PendingToolCalls []runs.PendingToolCall `json:"pendingToolCalls"`
		} `json:"value"`
	}
	out := map[string]string{}
	if json.Unmarshal(raw, &ev) != nil {
		return out
	}
	for _, c := range ev.Value.PendingToolCalls {
		out[c.ToolCallID] = c.Arguments
	}
	return out
}

// callArguments decodes a call's arguments, without the service's own
// members (_tambo_statusMessage...), which are not the model's.
func callArguments(raw string) map[string]any {
	args := map[string]any{}
	if raw != "" {
		_ = json.Unmarshal([]byte(raw), &args)
	}
	for k := range args {
		if strings.HasPrefix(k, "_tambo_") {
			delete(args, k)
		}
	}
	return args
}

// interruptOutcome is the AG-UI outcome of a run whose calls were parked:
// runs.ApprovalInterrupt's shape, with the parked call's id.
func interruptOutcome(pas []PendingApproval) map[string]any {
	list := make([]runs.Interrupt, len(pas))
	for i, pa := range pas {
		list[i] = runs.ApprovalInterrupt(threads.ApprovalRequest{
			Call:     threads.ToolCall{ID: pa.ToolCallID, Name: pa.ToolName, Arguments: pa.Arguments},
			ThreadID: pa.ThreadID, RunID: pa.RunID,
		}, pa.ExpiresAt)
		list[i].ID = pa.ID
	}
	return map[string]any{"type": "interrupt", "interrupts": list}
}

// withOutcome returns RUN_FINISHED event raw with outcome set to out.
func withOutcome(raw []byte, out any) ([]byte, bool) {
	var ev map[string]jsontext.Value
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, false
	}
	v, err := json.Marshal(out, ownJSON)
	if err != nil {
		return nil, false
	}
	ev["outcome"] = v
	b, err := json.Marshal(ev, ownJSON)
	return b, err == nil
}

// approvalEvent is the CUSTOM event that names a pause's parked calls.
func approvalEvent(pas []PendingApproval) []byte {
	b, _ := json.Marshal(map[string]any{"type": "CUSTOM", "name": ApprovalEventName, "value": map[string]any{"approvals": pas}}, ownJSON)
	return b
}

// errWaiting refuses a continuation whose pause still waits for a
// decision.
var errWaiting = errors.New("waiting for approval")

// decideError is a decision refused with an HTTP status.
type decideError struct {
	status int
	msg    string
}

func (e *decideError) Error() string { return e.msg }

// decide settles parked call id: status is ApprovalApproved (the tool
// runs, once), ApprovalRefused, or ApprovalExpired (decided by the
// Handler; r is nil then). A call already decided gets its record; one
// whose decision runs elsewhere is waited for up to Approvals.Wait.
func (h *Handler) decide(ctx context.Context, r *http.Request, ref parkedRef, status, reason string) (decisionRecord, error) {
	a, store := h.approvals, h.cfg.store
	dkey := h.approvalKey("approval-decision", ref.ID)
	v, ok, err := store.Get(ctx, h.approvalKey("approval", ref.ID))
	if err != nil {
		return decisionRecord{}, err
	}
	var rec parkedCall
	if ok {
		if err := json.Unmarshal(v, &rec); err != nil {
			ok = false
		}
		rec.Call.User = rec.user()
	}
	if !ok {
		// Decided already (the record goes with its decision), or
		// expired from the store, or never kept.
		if d, done, err := h.decisionOf(ctx, dkey); err != nil || done {
			if err == nil && r != nil {
				// A decided call's record is its deciders' to read, as the
				// call was theirs to decide.
				call := d.Run.Call
				call.User = d.Run.user()
				if err := h.mayDecide(r, call); err != nil {
					return decisionRecord{}, err
				}
			}
			return d, err
		}
		if ref.ToolCallID == "" {
			return decisionRecord{}, &decideError{http.StatusNotFound, "No such approval"}
		}
		rec.Call = PendingApproval{ID: ref.ID, ToolCallID: ref.ToolCallID, ToolName: ref.ToolName}
		status, reason = ApprovalExpired, ""
	}
	if r != nil && status != ApprovalExpired {
		if err := h.mayDecide(r, rec.Call); err != nil {
			return decisionRecord{}, err
		}
	}
	if status != ApprovalExpired && !time.Now().Before(rec.Call.ExpiresAt) {
		status, reason = ApprovalExpired, ""
	}
	running, _ := json.Marshal(decisionRecord{State: "running"})
	claimTTL := a.Wait + time.Minute
	claimed, err := store.SetNX(ctx, dkey, running, claimTTL)
	if err != nil {
		return decisionRecord{}, err
	}
	if !claimed {
		return h.awaitDecision(ctx, dkey)
	}
	// The claim is renewed while the tool runs (it has no deadline unless
	// it sets one): a claim that lapsed mid-call would let the next
	// decision run it again. An instance that dies lets it lapse.
	stopRenew, renewed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(claimTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-stopRenew:
				return
			case <-t.C:
				if err := store.Set(context.WithoutCancel(ctx), dkey, running, claimTTL); err != nil {
					h.log.WarnContext(ctx, "proxy: cannot renew a running decision's claim", "error", err)
				}
			}
		}
	}()
	stopRenewing := sync.OnceFunc(func() {
		close(stopRenew)
		<-renewed
	})
	defer stopRenewing()
	d := decisionRecord{State: "done", Decision: ApprovalDecision{ID: ref.ID, Status: status, Reason: reason, ThreadID: rec.Call.ThreadID}, Run: rec}
	if r != nil && a.DecidedBy != nil {
		d.Decision.DecidedBy = a.DecidedBy(r)
	}
	switch status {
	case ApprovalApproved:
		u := rec.user()
		call := runs.PendingToolCall{ToolCallID: rec.Call.ToolCallID, ToolName: rec.Call.ToolName, Arguments: rec.Arguments}
		out, err := h.clientOf(u).AnswerTools(withRunUser(context.WithoutCancel(ctx), u), rec.Call.ThreadID, rec.Call.RunID,
			h.decided(u, d.Decision), []runs.PendingToolCall{call}, h.cfg.callOpts...)
		if err != nil || len(out) != 1 {
			out = notRun([]runs.PendingToolCall{call}, fmt.Errorf("the tool could not run: %v", err))
		}
		d.Result = out[0]
		if lim, ok := budget([]runs.PendingToolCall{call}); ok {
			d.Result = fit(d.Result, lim[0]/4)
		}
	case ApprovalRefused:
		why := "the call was not approved"
		if reason != "" {
			why += ": " + cut(reason, 1000)
		}
		d.Result = runs.ToolResult(rec.Call.ToolCallID, why)
		d.Result.IsError = true
	default:
		d.Result = runs.ToolResult(rec.Call.ToolCallID, "approval expired")
		d.Result.IsError = true
	}
	for _, c := range d.Result.Content {
		if c.Type == runs.ContentText {
			d.Decision.Result += c.Text
		}
	}
	// Shown to the decider's page: redacted as the Handler's other
	// answers are (the run user's client: the project key, their token).
	d.Decision.Result = h.clientOf(rec.user()).Redact(d.Decision.Result)
	d.Decision.IsError = d.Result.IsError
	stopRenewing() // before the record: a renewal must not overwrite it
	// The record outlives the call's wait: it keeps no token (a token
	// user's decided call is theirs no more to the store; its run is
	// continued by this request, or by the user's next one).
	kept := d
	kept.Run.UserToken = ""
	b, err := json.Marshal(kept, ownJSON)
	if err == nil {
		err = store.Set(context.WithoutCancel(ctx), dkey, b, a.TTL+DefaultPendingTTL)
	}
	if err != nil {
		// The tool ran: its result is given to this request, and a
		// second decision finds none (it lapses as running, then
		// expired).
		h.log.ErrorContext(ctx, "proxy: cannot record a decision in the store", "error", err)
	}
	_ = store.Delete(context.WithoutCancel(ctx), h.approvalKey("approval", ref.ID))
	if err := h.updateIndex(context.WithoutCancel(ctx), nil, []string{ref.ID}, 0); err != nil {
		h.log.WarnContext(ctx, "proxy: cannot take a decided call out of the approval index", "error", err)
	}
	h.log.InfoContext(ctx, "proxy: a call that needs approval was decided", "status", status, "tool", rec.Call.ToolName,
		"decided_by", d.Decision.DecidedBy, "thread", rec.Call.ThreadID, "call", rec.Call.ToolCallID)
	return d, nil
}

// mayDecide asks the backend's MayDecide about r's sender and call: nil
// when they may decide it, else the decideError to answer (403, or 500
// for a MayDecide that failed, logged).
func (h *Handler) mayDecide(r *http.Request, call PendingApproval) error {
	may, err := h.approvals.MayDecide(r, call)
	switch {
	case err != nil:
		h.log.ErrorContext(r.Context(), "proxy: the backend's MayDecide failed", "error", err)
		return &decideError{http.StatusInternalServerError, "Internal server error"}
	case !may:
		return &decideError{http.StatusForbidden, "You may not decide this call"}
	}
	return nil
}

// decisionOf reads a decision's record: done is false when there is
// none, or it still runs.
func (h *Handler) decisionOf(ctx context.Context, dkey string) (decisionRecord, bool, error) {
	v, ok, err := h.cfg.store.Get(ctx, dkey)
	if err != nil || !ok {
		return decisionRecord{}, false, err
	}
	var d decisionRecord
	if json.Unmarshal(v, &d) != nil {
		return decisionRecord{}, false, nil
	}
	return d, d.State == "done", nil
}

// awaitDecision waits for a decision running elsewhere, up to
// Approvals.Wait, reading its record at short intervals (the store has no
// notification of a value).
func (h *Handler) awaitDecision(ctx context.Context, dkey string) (decisionRecord, error) {
	wait := h.approvals.Wait
	t := time.NewTicker(max(wait/50, 10*time.Millisecond))
	defer t.Stop()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		d, done, err := h.decisionOf(ctx, dkey)
		if err != nil || done {
			return d, err
		}
		select {
		case <-t.C:
		case <-deadline.C:
			return decisionRecord{}, &decideError{http.StatusConflict, "The call is being decided on another instance; try again"}
		case <-ctx.Done():
			return decisionRecord{}, ctx.Err()
		}
	}
}

// clientOf is the runs client of user u.
func (h *Handler) clientOf(u User) *runs.Client {
	if u.Key != "" {
		return h.base.ForUser(u.Key)
	}
	return h.base.ForToken(u.Token)
}

// settlePause returns the results of a pause's parked calls when each is
// decided (or expired: decided so now), and the decisions for the
// observer of the run that carries them; answers are the page's resume[]
// entries, decided as r's sender. errWaiting when a call still waits.
func (h *Handler) settlePause(ctx context.Context, r *http.Request, pp parkedPause, answers map[string]runs.ResumeEntry) ([]runs.Content, []toolcore.Reported, error) {
	out := make([]runs.Content, 0, len(pp.Calls))
	reported := make([]toolcore.Reported, 0, len(pp.Calls))
	for _, ref := range pp.Calls {
		d, done, err := h.decisionOf(ctx, h.approvalKey("approval-decision", ref.ID))
		if err != nil {
			return nil, nil, err
		}
		if !done {
			status, reason := "", ""
			if e, ok := answers[ref.ID]; ok && r != nil {
				if status, reason, err = resumeDecision(e); err != nil {
					return nil, nil, err
				}
			}
			if status == "" {
				exp, err := h.expired(ctx, ref.ID)
				if err != nil {
					return nil, nil, err
				}
				if !exp {
					return nil, nil, errWaiting
				}
				status, r = ApprovalExpired, nil
			}
			if d, err = h.decide(ctx, r, ref, status, reason); err != nil {
				return nil, nil, err
			}
		}
		out = append(out, d.Result)
		reported = append(reported, toolcore.Reported{Tool: cmp.Or(d.Run.Call.ToolName, ref.ToolName), Decision: toolcore.Decision{
			Approved: d.Decision.Status == ApprovalApproved, Reason: d.Decision.Reason, DecidedBy: d.Decision.DecidedBy,
			TimedOut: d.Decision.Status == ApprovalExpired,
		}})
	}
	return out, reported, nil
}

// expired reports whether parked call id waits no more: its record has
// expired, or is gone without a decision.
func (h *Handler) expired(ctx context.Context, id string) (bool, error) {
	v, ok, err := h.cfg.store.Get(ctx, h.approvalKey("approval", id))
	if err != nil || !ok {
		return err == nil, err
	}
	var rec parkedCall
	if json.Unmarshal(v, &rec) != nil {
		return true, nil
	}
	return !time.Now().Before(rec.Call.ExpiresAt), nil
}

// resumeDecision reads a resume[] entry that answers a parked call
// (runs.ApprovalOf); an answer it cannot read is refused (400), never an
// approval.
func resumeDecision(e runs.ResumeEntry) (status, reason string, err error) {
	a, err := runs.ApprovalOf(e)
	if err != nil {
		return "", "", &decideError{http.StatusBadRequest, "A resume entry for an approval must be {\"status\": \"resolved\", \"payload\": {\"approved\": bool, \"reason\": string}} or cancelled"}
	}
	if a.Approved {
		return ApprovalApproved, a.Reason, nil
	}
	return ApprovalRefused, a.Reason, nil
}

// continueParked continues a pause that waits for no browser call once
// each of its parked calls is decided: the instance that takes the pause's
// record (once) sends the results, and reads the run into its log as a
// detached run. runID is "" when the pause still waits, or another
// request continued it.
func (h *Handler) continueParked(ctx context.Context, u User, threadID, runID string) (string, error) {
	store := h.cfg.store
	key := h.parkedKey(u, threadID, runID)
	v, ok, err := store.Get(ctx, key)
	if err != nil || !ok {
		return "", err
	}
	var pp parkedPause
	if json.Unmarshal(v, &pp) != nil || pp.Browser {
		return "", nil
	}
	results, reported, err := h.settlePause(ctx, nil, pp, nil)
	if errors.Is(err, errWaiting) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if _, took, err := store.Take(ctx, key); err != nil || !took {
		return "", err
	}
	content := results
	taken := map[string][]byte{}
	for _, k := range []string{h.pendingKey(u, threadID, runID), h.overKey(u, threadID, runID)} {
		if v, ok, err := store.Take(ctx, k); err == nil && ok {
			if ours, ok := h.decodePending(ctx, v); ok {
				content = append(content, ours...)
				taken[k] = v
			}
		}
	}
	// A paused run that holds its response (and its user's run slot)
	// follows the decision's run: that run goes on in its slot.
	held := h.heldUntil(ctx, u, threadID, runID).After(time.Now())
	var id string
	for try := 0; ; try++ {
		id, err = h.startDetached(ctx, u, threadID, runs.RunParams{PreviousRunID: runID, Content: content}, reported, held)
		// A decision faster than the paused run's end: the service has
		// not recorded it as complete yet. It will within moments.
		if err == nil || try >= 20 || !(errors.Is(err, runs.ErrInvalidPreviousRun) || errors.Is(err, runs.ErrRunActive)) {
			break
		}
		select {
		case <-time.After(time.Duration(try+1) * 50 * time.Millisecond):
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	if err == nil && h.approvals.Hold > 0 {
		// A response still holding the pause follows the new run.
		_, _ = store.Append(context.WithoutCancel(ctx), h.nextKey(u, threadID, runID), []byte(id), 2, h.approvals.Hold+time.Minute)
	}
	if err != nil {
		// Put back: the next request on the thread tries again.
		ctx := context.WithoutCancel(ctx)
		_ = store.Set(ctx, key, v, h.approvals.TTL+DefaultPendingTTL)
		for k, v := range taken {
			_ = store.Set(ctx, k, v, h.cfg.pendingTTL)
		}
	}
	return id, err
}

// startDetached starts a run of u's thread that no browser asked for (a
// decision's continuation), read into its log as a detached run; its
// observer hears of the decisions (reported) whose results it carries.
func (h *Handler) startDetached(ctx context.Context, u User, threadID string, p runs.RunParams, reported []toolcore.Reported, held bool) (string, error) {
	if !h.life.begin() {
		return "", errors.New("proxy: the server is shutting down")
	}
	// One of its user's runs, as any other (WithMaxRunsPerUser), unless
	// the paused run holds a slot while it follows this one (held).
	var slot *slot
	var status int
	if !held {
		slot, status = h.takeSlot(ctx, u)
	}
	if status != 0 {
		h.life.runs.Done()
		if status == http.StatusTooManyRequests {
			return "", errNoRunSlot
		}
		return "", errors.New("proxy: the store cannot give a run slot")
	}
	base, cancel := context.WithTimeout(withRunUser(context.WithoutCancel(ctx), u), h.cfg.detach)
	stopAfter := context.AfterFunc(h.life.stop, cancel)
	c := h.clientOf(u)
	s, err := c.RunTools(toolcore.WithReported(toolcore.WithDeferredApprovals(base, true), reported), threadID, p, h.runner(u), h.cfg.callOpts...)
	if err != nil {
		stopAfter()
		cancel()
		h.release(ctx, slot)
		h.life.runs.Done()
		return "", err
	}
	q := &request{h: h, c: c, user: u}
	ps := &pauses{q: q, ctx: base, browser: map[string]bool{}}
	filter := ps.filter
	// No browser waits on this run's own response: it does not hold.
	var hs Stream = &holding{Stream: s, h: h, user: u, p: ps, noHold: true}
	h.detach(base, cancel, u, hs, filter, func(err error) {
		if err != nil {
			h.runEnded(base, u, err)
		}
		stopAfter()
		cancel()
		h.release(base, slot)
		h.life.runs.Done()
	})
	return s.RunID(), nil
}

// errNoRunSlot: a decision's run is not started while its user has
// WithMaxRunsPerUser runs going; the next request on its thread starts
// it (the page's resume, the user's continuation).
var errNoRunSlot = errors.New("proxy: the user has no run slot free")

// ApprovalAPI returns the approval API's handler, for the backend to
// mount (under [http.StripPrefix]) behind its own session check and
// CSRF protection:
//
//   - GET / answers {"approvals": [PendingApproval, ...]}: the calls that
//     wait, which [Approvals].MayDecide lets the requester decide, newest
//     first. At most [MaxListedApprovals] are listed: past it, the oldest
//     calls of the user with the most listed leave the list (still
//     decidable), so one user's calls never push another's out.
//   - POST /{id} with {"approved": bool, "reason": string} decides one
//     (a JSON body only: else 415) and answers its [ApprovalDecision]
//     (200), a second decision the first one's; 403 when MayDecide
//     refuses, 404 for no such call, 409 with Retry-After when its
//     decision still runs elsewhere, 503 when the store cannot answer (a
//     call is never run without its record).
//
// A request that finds a call expired answers it ("approval expired")
// and continues its run. nil without [WithApprovals].
func (h *Handler) ApprovalAPI() http.Handler {
	if h.approvals == nil {
		return nil
	}
	return http.HandlerFunc(h.serveApprovals)
}

func (h *Handler) serveApprovals(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/")
	switch {
	case id == "" && r.Method == http.MethodGet:
		h.listApprovals(w, r)
	case id != "" && !strings.Contains(id, "/") && r.Method == http.MethodPost:
		if !isJSON(r.Header.Get("Content-Type")) {
			writeError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
			return
		}
		var body struct {
			Approved bool   `json:"approved"`
			Reason   string `json:"reason"`
		}
		if err := json.UnmarshalRead(http.MaxBytesReader(w, r.Body, 64<<10), &body); err != nil {
			writeError(w, http.StatusBadRequest, "The body is not {\"approved\": bool, \"reason\": string}")
			return
		}
		status := ApprovalRefused
		if body.Approved {
			status = ApprovalApproved
		}
		if !isApprovalID(id) {
			writeError(w, http.StatusNotFound, "No such approval")
			return
		}
		h.postDecision(w, r, id, status, body.Reason)
	case id == "":
		w.Header().Set("Allow", "GET")
		writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	case !strings.Contains(id, "/"):
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	default:
		writeError(w, http.StatusNotFound, "Not Found")
	}
}

func (h *Handler) postDecision(w http.ResponseWriter, r *http.Request, id, status, reason string) {
	ctx := r.Context()
	d, err := h.decide(ctx, r, parkedRef{ID: id}, status, reason)
	if h.approvalFailed(w, r, err) {
		return
	}
	if rec := d.Run; rec.Call.RunID != "" && !rec.Browser && (rec.UserKey != "" || rec.UserToken != "") {
		runID, err := h.continueParked(ctx, rec.user(), rec.Call.ThreadID, rec.Call.RunID)
		switch {
		case errors.Is(err, errNoRunSlot):
			h.log.InfoContext(ctx, "proxy: a decided call's run waits for a run slot of its user; the next request on its thread continues it")
		case err != nil:
			h.log.ErrorContext(ctx, "proxy: cannot continue a run after its decision; the next request on its thread does", "error", err)
		}
		d.Decision.RunID = runID
	}
	writeValue(w, http.StatusOK, d.Decision)
}

func (h *Handler) approvalFailed(w http.ResponseWriter, r *http.Request, err error) bool {
	var de *decideError
	switch {
	case err == nil:
		return false
	case errors.As(err, &de):
		if de.status == http.StatusConflict {
			w.Header().Set("Retry-After", strconv.Itoa(max(int(h.approvals.Wait/time.Second), 1)))
		}
		writeError(w, de.status, de.msg)
	case r.Context().Err() != nil:
	default:
		h.log.ErrorContext(r.Context(), "proxy: the store cannot answer an approval request", "error", err)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "Approvals cannot be decided now; try again")
	}
	return true
}

func (h *Handler) listApprovals(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	store := h.cfg.store
	idx, err := h.readIndex(ctx)
	if h.approvalFailed(w, r, err) {
		return
	}
	out := []PendingApproval{}
	expired := 0
	for i := len(idx.Calls) - 1; i >= 0; i-- {
		v, ok, err := store.Get(ctx, h.approvalKey("approval", idx.Calls[i].ID))
		if h.approvalFailed(w, r, err) {
			return
		}
		var rec parkedCall
		if !ok || json.Unmarshal(v, &rec) != nil {
			continue
		}
		rec.Call.User = rec.user()
		may, err := h.approvals.MayDecide(r, rec.Call)
		switch {
		case err != nil:
			h.log.ErrorContext(ctx, "proxy: the backend's MayDecide failed", "error", err)
			writeError(w, http.StatusInternalServerError, "Internal server error")
			return
		case !may:
			// Not the requester's: no work for it.
		case !time.Now().Before(rec.Call.ExpiresAt):
			// A request touching its thread, from one who may decide it:
			// it is answered now (a few per request: each may continue a
			// run; the rest at a later request).
			if expired < maxExpiredPerList {
				expired++
				h.expireParked(ctx, rec)
			}
		default:
			out = append(out, rec.Call)
		}
	}
	writeValue(w, http.StatusOK, map[string]any{"approvals": out})
}

// maxExpiredPerList bounds the expired calls one request of the approval
// API's list answers (each may continue a run, with retries).
const maxExpiredPerList = 8

// expireParked answers an expired parked call, and continues its run
// when nothing else waits.
func (h *Handler) expireParked(ctx context.Context, rec parkedCall) {
	if _, err := h.decide(ctx, nil, parkedRef{ID: rec.Call.ID, ToolCallID: rec.Call.ToolCallID}, ApprovalExpired, ""); err != nil {
		h.log.WarnContext(ctx, "proxy: cannot answer an expired approval", "error", err)
		return
	}
	if !rec.Browser {
		if _, err := h.continueParked(ctx, rec.user(), rec.Call.ThreadID, rec.Call.RunID); err != nil {
			h.log.WarnContext(ctx, "proxy: cannot continue a run after its approval expired", "error", err)
		}
	}
}

func writeValue(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v, ownJSON)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	writeJSON(w, status, b)
}

// settleParked takes the parked calls of the pause that a browser's
// continuation answers (key: its parkedKey), and returns their results
// and the record taken (nil when the pause parked none). status is not 0
// when the request was answered: 409 while a call waits for its decision
// ("waiting for approval") or when another request took the pause, 403
// for a resume[] decision MayDecide refuses, 503 for a store that cannot
// answer. The record is read, and taken only once every call is settled:
// a record taken while a call still waits would leave a second
// continuation, sent meanwhile, no record of the parked calls, and its
// result for one would reach the service. A pause whose record is gone
// is settled from its kept copy (parkedCallsKey), which is not taken.
func (q *request) settleParked(ctx context.Context, key, previousRun string, resume []runs.ResumeEntry) ([]byte, []runs.Content, []toolcore.Reported, int) {
	h := q.h
	unavailable := func(msg string, err error) ([]byte, []runs.Content, []toolcore.Reported, int) {
		h.log.ErrorContext(ctx, msg, "error", err)
		q.w.Header().Set("Retry-After", "1")
		writeError(q.w, http.StatusServiceUnavailable, "The run cannot start now; try again")
		return nil, nil, nil, http.StatusServiceUnavailable
	}
	v, ok, err := h.cfg.store.Get(ctx, key)
	if err == nil && !ok {
		// Gone: taken by another request, lost or lapsed. The copy
		// names its calls all the same; nothing takes it.
		v, ok, err = h.cfg.store.Get(ctx, h.parkedCallsKey(q.user, q.route.Values["threadId"], previousRun))
	}
	if err != nil {
		return unavailable("proxy: cannot read a pause's parked calls from the store; the continuation is refused", err)
	}
	var pp parkedPause
	if !ok || json.Unmarshal(v, &pp) != nil {
		return nil, nil, nil, 0
	}
	answers := make(map[string]runs.ResumeEntry, len(resume))
	for _, e := range resume {
		answers[e.InterruptID] = e
	}
	res, reported, err := h.settlePause(ctx, q.r, pp, answers)
	var de *decideError
	switch {
	case err == nil:
	case errors.Is(err, errWaiting):
		writeError(q.w, http.StatusConflict, "The run is waiting for approval of a server-side tool's call; continue it once the call is decided")
		return nil, nil, nil, http.StatusConflict
	case errors.As(err, &de):
		writeError(q.w, de.status, de.msg)
		return nil, nil, nil, de.status
	default:
		return unavailable("proxy: cannot settle a pause's parked calls; the continuation is refused", err)
	}
	if pp.Kept {
		// The pause's own record went with the request that carried its
		// decisions, and told its observer: not twice.
		return v, res, nil, 0
	}
	_, took, err := h.cfg.store.Take(ctx, key)
	switch {
	case err != nil:
		return unavailable("proxy: cannot take a pause's parked calls from the store; the continuation is refused", err)
	case !took:
		// Another continuation, or the decision's own run, took it.
		writeError(q.w, http.StatusConflict, "The run was continued by another request")
		return nil, nil, nil, http.StatusConflict
	}
	return v, res, reported, 0
}

// withoutAnswers returns resume without the entries that answer the
// parked calls of pause record v: the service never sees them.
func withoutAnswers(resume []runs.ResumeEntry, v []byte) []runs.ResumeEntry {
	var pp parkedPause
	if len(resume) == 0 || json.Unmarshal(v, &pp) != nil {
		return resume
	}
	ids := make(map[string]bool, len(pp.Calls))
	for _, c := range pp.Calls {
		ids[c.ID] = true
	}
	out := slices.DeleteFunc(slices.Clone(resume), func(e runs.ResumeEntry) bool { return ids[e.InterruptID] })
	if len(out) == 0 {
		return nil
	}
	return out
}

// touchParked answers the expired parked calls of a paused run that a
// request touches (a page's resume), and continues the run once nothing
// else waits.
func (h *Handler) touchParked(ctx context.Context, u User, threadID, runID string) {
	if _, err := h.continueParked(ctx, u, threadID, runID); err != nil && !errors.Is(err, errNoRunSlot) {
		h.log.WarnContext(ctx, "proxy: cannot continue a run whose parked calls expired", "error", err)
	}
}

// heldUntil is when the response that holds a paused run (its first
// entry of nextKey) stops waiting for the decision's run; zero when none
// holds it.
func (h *Handler) heldUntil(ctx context.Context, u User, threadID, runID string) time.Time {
	es, whole, err := h.cfg.store.ReadLog(ctx, h.nextKey(u, threadID, runID), "", 2, 0)
	if err != nil || !whole || len(es) != 1 {
		return time.Time{} // none, or already followed
	}
	ms, err := strconv.ParseInt(string(es[0].Value), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// nextKey is the log where a paused run's continuation by its decision
// is announced (its run id), for a response that holds the pause.
func (h *Handler) nextKey(u User, threadID, runID string) string {
	sum := sha256.Sum256([]byte(threadID + "\x00" + runID))
	return h.storeKey("parked-next", u, hex.EncodeToString(sum[:]))
}

// holding is a run's stream that adds the pause filter's extra events
// after the event that made them, and, when the run parked calls and
// nothing else, goes on after its end with the events of the run the decision
// started (read from that run's log, on whichever instance it runs), up
// to Approvals.Hold. Its events after the run's own are log entries:
// Current is nil for them.
type holding struct {
	Stream
	h    *Handler
	user User
	p    *pauses
	// noHold: only the added events, no hold (a decision's own run).
	noHold bool

	following bool
	added     bool // the current event is one of p.extra
	ctx       context.Context
	log       string // the followed run's log key
	after     string
	queue     []LogEntry
	cur       []byte
	done      bool
}

func (s *holding) Current() runs.Event {
	if s.following || s.added {
		return nil
	}
	return s.Stream.Current()
}

func (s *holding) EventJSON() []byte {
	if s.following || s.added {
		return s.cur
	}
	return s.Stream.EventJSON()
}

func (s *holding) Next() bool {
	if s.added = len(s.p.extra) > 0; s.added {
		s.cur, s.p.extra = s.p.extra[0], s.p.extra[1:]
		return true
	}
	if !s.following {
		if s.Stream.Next() {
			return true
		}
		if s.noHold || s.p.alone == "" || s.Stream.Err() != nil || !s.follow() {
			return false
		}
	}
	for !s.done {
		if len(s.queue) > 0 {
			e := s.queue[0]
			s.queue = s.queue[1:]
			s.after = e.ID
			if len(e.Value) == 0 || bytes.Equal(e.Value, brokenEntry) {
				// The followed run's end; or its log is broken, and so is
				// this one's: their readers get the run's state.
				s.done = true
				return false
			}
			s.cur = e.Value
			return true
		}
		es, whole, err := s.h.cfg.store.ReadLog(s.ctx, s.log, s.after, 256, s.h.cfg.keepAlive+time.Second)
		if err != nil || !whole || s.ctx.Err() != nil {
			s.done = true
			return false
		}
		s.queue = es
	}
	return false
}

// follow waits up to Approvals.Hold for the decision's run, and starts
// following its log; false when none came.
func (s *holding) follow() bool {
	h := s.h
	ctx, cancel := context.WithTimeout(s.p.ctx, h.approvals.Hold)
	defer cancel()
	key := h.nextKey(s.user, s.ThreadID(), s.p.alone)
	es, whole, err := h.cfg.store.ReadLog(ctx, key, "", 2, 0)
	if err != nil || !whole || len(es) == 0 {
		return false
	}
	after := es[0].ID
	for len(es) < 2 {
		wait := min(time.Until(deadlineOf(ctx)), 10*time.Second)
		if es, whole, err = h.cfg.store.ReadLog(ctx, key, after, 1, wait); err != nil || !whole || ctx.Err() != nil {
			return false
		}
		if len(es) > 0 {
			es = append([]LogEntry{{}}, es...)
		}
	}
	runID := string(es[1].Value)
	s.following, s.ctx = true, s.p.ctx
	s.log = h.runRef(s.user, s.ThreadID(), runID).log
	return true
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// runner is the tool runner of the server's tools on a run: each call is
// recorded in the Store (threads.ToolGuards.Calls), so that it runs once
// across the instances that share it, a second delivery of a pause gets
// the recorded result, and a store that is down refuses the call rather
// than risk running it twice.
//
// Its calls that need approval are not asked about: the runner leaves
// them to the Handler (toolcore.WithDeferredApprovals on the run's
// context), which parks them.
func (h *Handler) runner(u User) runs.ToolRunner {
	return runs.ToolRunner{Tools: h.cfg.tools, Guards: threads.ToolGuards{Calls: callRecord{h, u}}}
}

// decided is the runner of u's approved call: the server's tools, whose
// approver is the decision d already taken. The call is recorded as the
// run's runner records it (the decision's own record also runs it once).
func (h *Handler) decided(u User, d ApprovalDecision) runs.ToolRunner {
	r := h.runner(u)
	r.Guards.Approver = func(context.Context, threads.ApprovalRequest) (threads.Approval, error) {
		return threads.Approval{Approved: d.Status == ApprovalApproved, Reason: d.Reason}, nil
	}
	return r
}

// The approval index: the parked calls that the approval API lists, at
// most MaxListedApprovals, oldest first. It is one value, rewritten under
// a lease (the store has no compare-and-set), so that a call over the
// bound is taken from the user who has the most listed: one user's calls
// never push another's out (a log, trimmed oldest first, let them; and a
// trimmed log cannot be read from its start).
type approvalIndex struct {
	Calls []indexEntry `json:"calls"`
}

type indexEntry struct {
	ID string `json:"id"`
	// Until is when the call's record lapses (Unix ms).
	Until int64 `json:"until"`
}

func (h *Handler) approvalIndexKey() string {
	return h.cfg.keyPrefix + ":" + storeVersion + ":approval-index:all:list"
}

// readIndex reads the approval index (empty when there is none, or it
// cannot be decoded).
func (h *Handler) readIndex(ctx context.Context) (approvalIndex, error) {
	var idx approvalIndex
	v, ok, err := h.cfg.store.Get(ctx, h.approvalIndexKey())
	if err != nil || !ok || json.Unmarshal(v, &idx) != nil {
		return approvalIndex{}, err
	}
	return idx, nil
}

// indexLock bounds how long the index's lease is held (a holder that
// died), and how long an update waits for it.
const indexLock = 5 * time.Second

// updateIndex adds entries to the approval index and takes ids out of
// it, under its lease; keep is how long the index lives from now (0: as
// long as its newest entry needs).
func (h *Handler) updateIndex(ctx context.Context, add []indexEntry, remove []string, keep time.Duration) error {
	store := h.cfg.store
	lock := h.cfg.keyPrefix + ":" + storeVersion + ":approval-index-lock:all:lock"
	var b [16]byte
	_, _ = rand.Read(b[:])
	holder := hex.EncodeToString(b[:])
	deadline := time.Now().Add(indexLock)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		ok, err := store.Lease(ctx, lock, holder, indexLock)
		if err != nil {
			return err
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("proxy: the approval index is locked")
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	defer func() { _ = store.Release(context.WithoutCancel(ctx), lock, holder) }()
	idx, err := h.readIndex(ctx)
	if err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	gone := make(map[string]bool, len(remove))
	for _, id := range remove {
		gone[id] = true
	}
	calls := slices.DeleteFunc(append(idx.Calls, add...), func(e indexEntry) bool { return gone[e.ID] || e.Until <= now })
	calls = fairlyBounded(calls, MaxListedApprovals)
	if len(calls) == 0 {
		return store.Delete(ctx, h.approvalIndexKey())
	}
	for _, e := range calls {
		keep = max(keep, time.Duration(e.Until-now)*time.Millisecond)
	}
	v, err := json.Marshal(approvalIndex{Calls: calls}, ownJSON)
	if err != nil {
		return err
	}
	return store.Set(ctx, h.approvalIndexKey(), v, keep)
}

// fairlyBounded returns at most n of calls (oldest first), dropping the
// oldest calls of the user (the id's scope) who has the most.
func fairlyBounded(calls []indexEntry, n int) []indexEntry {
	over := len(calls) - n
	if over <= 0 {
		return calls
	}
	count := map[string]int{}
	for _, e := range calls {
		count[e.ID[:min(len(e.ID), userScopeLen)]]++
	}
	drop := map[string]int{} // how many of each scope's oldest go
	for range over {
		top, most := "", 0
		for scope, c := range count {
			if c > most || c == most && scope < top {
				top, most = scope, c
			}
		}
		count[top]--
		drop[top]++
	}
	return slices.DeleteFunc(calls, func(e indexEntry) bool {
		scope := e.ID[:min(len(e.ID), userScopeLen)]
		if drop[scope] > 0 {
			drop[scope]--
			return true
		}
		return false
	})
}
