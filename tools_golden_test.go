package threads_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	threads "github.com/threadsapi/threads-go"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// tripArgs has a field of every kind NewTool maps.
type tripArgs struct {
	Destination string    `json:"destination" description:"Where to go"`
	Nights      int       `json:"nights" description:"How many nights"`
	Budget      float64   `json:"budget,omitempty" description:"Most to spend, in euros"`
	Pets        bool      `json:"pets" description:"Whether pets come along"`
	Class       string    `json:"class" description:"Travel class" enum:"economy,business,first"`
	Travelers   []string  `json:"travelers" description:"Names of the travelers"`
	Ratings     []float64 `json:"ratings,omitempty"`
	Start       time.Time `json:"start" description:"Departure time"`
	Return      *string   `json:"return" description:"Return date, if any"`
	Hotel       hotel     `json:"hotel" description:"The hotel"`
	Stops       []stop    `json:"stops,omitzero" description:"Stops on the way"`
	Notes       map[string]string
	Ignored     string `json:"-"`
	internal    string
	paging
}

type hotel struct {
	Name  string `json:"name" description:"Hotel name"`
	Stars *int   `json:"stars" description:"1 to 5" enum:"1,2,3,4,5"`
	Room  struct {
		Beds int  `json:"beds"`
		View bool `json:"view,omitempty"`
	} `json:"room"`
}

type stop struct {
	City string `json:"city"`
	Days int    `json:"days,omitempty"`
}

type paging struct {
	Page int `json:"page,omitempty" description:"Result page"`
}

// NewTool's parameter list for a struct with every kind of field, byte for
// byte (go test -run TestNewToolGolden -update rewrites it).
func TestNewToolGolden(t *testing.T) {
	t.Parallel()
	tool := threads.NewTool("plan_trip", "Plan a trip", func(context.Context, tripArgs) (string, error) { return "", nil })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(tool.Parameters))
	path := filepath.Join("testdata", "golden", "newtool-parameters.json")
	if *update {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), buf.String())
	_ = tripArgs{}.internal
}

// The arguments of a call decode into the struct, nested values included.
func TestNewToolDecodes(t *testing.T) {
	t.Parallel()
	var got tripArgs
	tool := threads.NewTool("plan_trip", "Plan a trip", func(_ context.Context, a tripArgs) (string, error) {
		got = a
		return "ok", nil
	})
	args := map[string]any{}
	require.NoError(t, json.Unmarshal([]byte(`{
		"destination":"Lisbon","nights":3,"pets":false,"class":"first","travelers":["Ana","Bo"],
		"start":"2026-12-01T08:00:00Z","return":null,"hotel":{"name":"Sol","stars":4,"room":{"beds":2}},
		"stops":[{"city":"Porto","days":1}],"Notes":{"a":"b"},"page":2}`), &args))
	out, err := tool.Call(context.Background(), threads.ToolCall{ID: "c", Name: "plan_trip", Arguments: args})
	require.NoError(t, err)
	assert.Equal(t, "ok", out)
	assert.Equal(t, "Lisbon", got.Destination)
	assert.Equal(t, 3, got.Nights)
	assert.Equal(t, []string{"Ana", "Bo"}, got.Travelers)
	assert.Equal(t, 4, *got.Hotel.Stars)
	assert.Equal(t, 2, got.Hotel.Room.Beds)
	assert.Equal(t, []stop{{"Porto", 1}}, got.Stops)
	assert.Equal(t, 2, got.Page)
	assert.Nil(t, got.Return)
	assert.True(t, got.Start.Equal(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)))

	// A pointer Args works too, and an unknown nested field is refused.
	ptr := threads.NewTool("p", "p", func(_ context.Context, a *stop) (string, error) { return a.City, nil })
	out, err = ptr.Call(context.Background(), threads.ToolCall{Name: "p", Arguments: map[string]any{"city": "Faro"}})
	require.NoError(t, err)
	assert.Equal(t, "Faro", out)
	args["hotel"] = map[string]any{"name": "Sol", "room": map[string]any{"beds": 1}, "pool": true}
	_, err = tool.Call(context.Background(), threads.ToolCall{Name: "plan_trip", Arguments: args})
	require.ErrorContains(t, err, `there is no field "pool"`)
}

// A value outside an enum tag's list is refused, naming the list.
func TestNewToolEnum(t *testing.T) {
	t.Parallel()
	type args struct {
		Class string `json:"class" enum:"economy, business"`
	}
	tool := threads.NewTool("book", "Book", func(_ context.Context, a args) (string, error) { return a.Class, nil })
	out, err := tool.Call(context.Background(), threads.ToolCall{Name: "book", Arguments: map[string]any{"class": "business"}})
	require.NoError(t, err)
	assert.Equal(t, "business", out)
	_, err = tool.Call(context.Background(), threads.ToolCall{Name: "book", Arguments: map[string]any{"class": "first"}})
	require.ErrorContains(t, err, `argument "class" is first, want one of: economy, business`)
}
