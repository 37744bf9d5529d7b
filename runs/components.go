package runs

import (
	"context"
	"fmt"

	threads "github.com/threadsapi/threads-go"
)

type componentStateBody struct {
	UserKey string         `json:"userKey,omitzero"`
	State   map[string]any `json:"state,omitzero"`
	Patch   []PatchOp      `json:"patch,omitzero"`
}

type componentStateAnswer struct {
	State map[string]any `json:"state"`
}

// SetComponentState replaces the state of a component shown in the thread
// and returns the new state (POST
// /v1/threads/{threadId}/components/{componentId}/state, 201). componentID
// is the component part's ID ([Content].ID, a "message-..." id). state must
// not be nil.
//
// Errors: while a run is active on the thread, a 409 problem that matches
// [ErrRunActive]; an unknown component, 404 (threads.ErrNotFound).
// Retried as a POST is: only when it provably did not act.
func (c *Client) SetComponentState(ctx context.Context, threadID, componentID string, state map[string]any, opts ...threads.RequestOption) (map[string]any, error) {
	if state == nil {
		return nil, fmt.Errorf("runs: SetComponentState: state is nil; send an empty map to clear it")
	}
	return c.componentState(ctx, threadID, componentID, &componentStateBody{State: state}, opts)
}

// PatchComponentState applies RFC 6902 JSON Patch operations to a
// component's state, in order and all or nothing, and returns the new
// state (same route as [Client.SetComponentState]). patch must not be
// empty. A patch that does not apply (a path that does not resolve, a
// failing test operation) is a 400 problem that matches
// [ErrInvalidJSONPatch].
func (c *Client) PatchComponentState(ctx context.Context, threadID, componentID string, patch []PatchOp, opts ...threads.RequestOption) (map[string]any, error) {
	if len(patch) == 0 {
		return nil, fmt.Errorf("runs: PatchComponentState: the patch is empty")
	}
	return c.componentState(ctx, threadID, componentID, &componentStateBody{Patch: patch}, opts)
}

func (c *Client) componentState(ctx context.Context, threadID, componentID string, body *componentStateBody, opts []threads.RequestOption) (map[string]any, error) {
	k := call{method: "POST", tmpl: "/v1/threads/{threadId}/components/{componentId}/state",
		values: map[string]string{"threadId": threadID, "componentId": componentID},
		body:   body, place: keyInBody, setKey: func(key string) { body.UserKey = key }}
	var out componentStateAnswer
	if err := c.do(ctx, opts, k, &out); err != nil {
		return nil, err
	}
	return out.State, nil
}
