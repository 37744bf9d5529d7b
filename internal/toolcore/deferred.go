package toolcore

import (
	"context"
	"encoding/json"
	"strings"
)

// Approvals left to the caller: package proxy parks a call that needs
// approval in its store, and decides it when a person does, maybe on
// another instance; the runner must neither ask nor refuse it. Package
// runs' RunTools reads the mark from its context (nothing public sets
// it) into Policy.Deferred, and takes it off the context its tools get.

// deferredKey is the context key of WithDeferredApprovals' mark.
type deferredKey struct{}

// WithDeferredApprovals returns ctx marked (on) or unmarked (off): under
// the mark, a /v1 runner leaves the calls that need approval to its
// caller (Policy.Deferred).
func WithDeferredApprovals(ctx context.Context, on bool) context.Context {
	return context.WithValue(ctx, deferredKey{}, on)
}

// DeferredApprovals reports whether ctx carries the mark.
func DeferredApprovals(ctx context.Context) bool {
	on, _ := ctx.Value(deferredKey{}).(bool)
	return on
}

// ReadCall reads a /v1 pending call (its id, tool name and arguments'
// JSON text) as the policy's Call: the arguments decoded (empty text is
// none; not a JSON object: ArgsErr), the service's status arguments taken
// out. Package runs reads every pause with it, and package proxy reads
// the calls it parks with it, so that both ask a tool's NeedsApproval
// about the same call.
func ReadCall(id, name, raw string) Call {
	c := Call{ID: id, Name: name, Raw: raw}
	args := map[string]any{}
	if strings.TrimSpace(raw) != "" {
		if err := json.Unmarshal([]byte(raw), &args); err != nil || args == nil {
			c.ArgsErr = NotAnObject(name)
			return c
		}
	}
	c.Args = args
	c.Status = TakeStatus(args)
	return c
}

// Reported is a decision taken outside the runner (a person, through
// package proxy's approval API or a page's resume[] entry) on a call of
// Tool, for the observer of the run that carries its result.
type Reported struct {
	Tool string
	Decision
}

// reportedKey is the context key of WithReported's decisions.
type reportedKey struct{}

// WithReported returns ctx carrying decisions for package runs' RunTools
// to report on its first run, the one that carries their results (nil:
// none).
func WithReported(ctx context.Context, ds []Reported) context.Context {
	return context.WithValue(ctx, reportedKey{}, ds)
}

// ReportedOf returns the decisions ctx carries.
func ReportedOf(ctx context.Context) []Reported {
	ds, _ := ctx.Value(reportedKey{}).([]Reported)
	return ds
}
