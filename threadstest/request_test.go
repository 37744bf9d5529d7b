package threadstest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/threadsapi/threads-go/threadstest"
)

// TestOfferedParameterSchema: a tool parameter's "schema" member is kept
// as sent, and the default reply picks the argument from it when the
// parameter has no type or enum values of its own.
func TestOfferedParameterSchema(t *testing.T) {
	t.Parallel()
	srv := threadstest.NewServer(t, threadstest.WithoutListener(), threadstest.WithAPIKeyHeader("x-api-key"))
	body := `{"messageToAppend":{"role":"user","content":[{"type":"text","text":"hi"}]},"clientTools":[{"name":"pick","description":"d","parameters":[` +
		`{"name":"n","description":"a count","isRequired":true,"schema":{"type":"integer","minimum":1}},` +
		`{"name":"unit","description":"","isRequired":false,"schema":{"type":["string","null"],"enum":["C","F"]}}]}]}`
	status, _, stream := rawCall(t, srv, "POST", "/threads/advancestream", body)
	require.Equal(t, 201, status)
	assert.Contains(t, stream, `"toolCallRequest":{"toolName":"pick","parameters":[{"parameterName":"n","parameterValue":1},{"parameterName":"unit","parameterValue":"C"}]}`)

	a, err := srv.Requests()[0].Advance()
	require.NoError(t, err)
	require.Len(t, a.ClientTools, 1)
	ps := a.ClientTools[0].Parameters
	require.Len(t, ps, 2)
	assert.JSONEq(t, `{"type":"integer","minimum":1}`, string(ps[0].Schema))
	assert.Equal(t, "", ps[0].Type)
	assert.JSONEq(t, `{"type":["string","null"],"enum":["C","F"]}`, string(ps[1].Schema))
}
