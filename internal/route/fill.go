package route

import (
	"errors"
	"fmt"
	"strings"
)

// This file is the one route builder and the one id check of the SDK: both
// packages (threads for the spec's routes, runs for /v1) list their routes
// as method and template pairs in their routes.go and turn each into a
// Route with Fill, so that the same ids are refused the same way, before
// anything is sent.

// ErrInvalidID is matched (errors.Is) by every error of CheckID and Fill
// about an id: one that cannot name anything and was refused before
// sending.
var ErrInvalidID = errors.New("an id that cannot name anything, refused before sending")

// idError is an id refused by CheckID: its text names the id and why, and
// it matches ErrInvalidID.
type idError struct{ msg string }

func (e *idError) Error() string        { return e.msg }
func (e *idError) Is(target error) bool { return target == ErrInvalidID }

// kinds names what the id of each placeholder of the SDK's templates
// names, for errors; a placeholder not listed is named by itself.
var kinds = map[string]string{
	"id": "thread", "threadId": "thread", "messageId": "message", "runId": "run",
	"componentId": "component", "projectId": "project", "apiKeyId": "API key",
	"providerKeyId": "provider key", "name": "registry item",
}

// Kind names what the id of placeholder name names ("threadId": "thread").
func Kind(name string) string {
	if k, ok := kinds[name]; ok {
		return k
	}
	return name
}

// CheckID refuses an id that cannot name anything: empty or white space
// only, or "." and "..", which a server or proxy would resolve as a path
// step even escaped ("%2E%2E"). kind names the id in the error ("thread",
// "message"). Its errors match ErrInvalidID.
func CheckID(kind, id string) error {
	switch strings.TrimSpace(id) {
	case "":
		if id == "" {
			return &idError{fmt.Sprintf("empty %s id", kind)}
		}
		return &idError{fmt.Sprintf("%s id %q is only white space", kind, id)}
	case ".", "..":
		return &idError{fmt.Sprintf("%s id %q is a dot segment, not an id", kind, id)}
	}
	return nil
}

// Fill returns the route method template with the template's path
// placeholders filled, in order, with ids, each checked by CheckID. Too
// few or too many ids is an error too (a mistake of the SDK's, not the
// caller's). The errors carry no operation name: the caller prefixes its
// own.
func Fill(method, template string, ids ...string) (Route, error) {
	r := Route{Method: method, Template: template}
	path, _, _ := strings.Cut(template, "?")
	i := 0
	for seg := range strings.SplitSeq(path, "/") {
		name, ok := placeholder(seg)
		if !ok {
			continue
		}
		if i >= len(ids) {
			return Route{}, fmt.Errorf("%s %s: no %s id", method, template, Kind(name))
		}
		if err := CheckID(Kind(name), ids[i]); err != nil {
			return Route{}, err
		}
		if r.Values == nil {
			r.Values = make(map[string]string, len(ids))
		}
		r.Values[name] = ids[i]
		i++
	}
	if i != len(ids) {
		return Route{}, fmt.Errorf("%s %s takes %d ids, given %d", method, template, i, len(ids))
	}
	return r, nil
}
