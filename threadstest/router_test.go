package threadstest

import (
	"regexp"
	"slices"
	"testing"

	"github.com/threadsapi/threads-go/internal/v1wire"
)

// The fake keeps its own /v1 route table on purpose (an independent check
// of the client), but it serves exactly the routes the client side
// declares (internal/v1wire, which runs sends and proxy serves), with the
// user key read where the client puts it.
func TestV1RoutesAreTheClients(t *testing.T) {
	t.Parallel()
	places := map[keyPlace]v1wire.KeyPlace{inQuery: v1wire.KeyInQuery, inBody: v1wire.KeyInBody, inThreadBody: v1wire.KeyInThread}
	var fake, client []string
	for _, rt := range v1Routes {
		fake = append(fake, rt.method+" /v1/"+rt.path+" "+string(rune('0'+places[rt.user])))
	}
	placeholder := regexp.MustCompile(`\{[^/]+\}`)
	for _, r := range v1wire.Routes() {
		client = append(client, r.Method+" "+placeholder.ReplaceAllString(r.Template, "*")+" "+string(rune('0'+r.Key)))
	}
	slices.Sort(fake)
	slices.Sort(client)
	if !slices.Equal(fake, client) {
		t.Errorf("the fake's /v1 routes (method, path, key place):\n%q\nthe client's:\n%q", fake, client)
	}
}
