package threadsmcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	threads "github.com/threadsapi/threads-go"
)

// ToolOptions shapes the [threads.Tool] values made of an MCP server's
// tools. The zero value is ready to use.
type ToolOptions struct {
	// Prefix is put before each tool's name as the model sees it (Prefix
	// "github_" offers "github_search"), so that the tools of several
	// servers, or a server's and the caller's own, do not clash. The MCP
	// server is called with the tool's own name.
	Prefix string
	// Filter, when set, keeps only the tools for which it returns true.
	Filter func(*mcp.Tool) bool
	// MaxResultBytes bounds what one call's result may send to the
	// model: the bytes of its text, its resources' text and their base64
	// blobs, and their URIs; 0 means DefaultMaxResultBytes. Past it the
	// rest of the result is left out, and a last text part says how much.
	MaxResultBytes int
}

// The bounds of a tool listing and of a tool's result.
const (
	// DefaultMaxResultBytes is ToolOptions.MaxResultBytes's default: 1 MiB.
	DefaultMaxResultBytes = 1 << 20
	// MaxTools is how many tools one listing keeps (after Filter); a
	// server that lists more is an error, not a silent cut.
	MaxTools = 1000
	// MaxResultParts is how many content parts one result keeps; the rest
	// are left out, and a last text part says how many.
	MaxResultParts = 256
)

// maxListedTools bounds the names a listing walks through, before Filter.
const maxListedTools = 10 * MaxTools

// Tools lists the tools of the MCP server on session (every page, each
// name once; a server that pages without bringing new ones is stopped
// after MaxIdlePages pages, with an error) and returns them as
// [threads.Tool] values for either tool runner:
// [threads.ThreadsService.RunStream] on the spec's routes and package
// runs' RunTools on /v1. Each keeps the server's name (with opts.Prefix
// before it), description and input schema; a call's result becomes
// content parts, and a result the server marks as an error, or a refused
// call, is the tool's error (the package doc's "MCP tools in a run"). A
// result is bounded by opts.MaxResultBytes and MaxResultParts.
//
// A server that declares no tools capability (as the service's /mcp when
// no upstream MCP server answers) has no tools: nil and no error. Tools
// does not follow the server's list: call it again when the server says
// its tools changed, or use [Conn.Tools], which does.
func Tools(ctx context.Context, session *mcp.ClientSession, opts *ToolOptions) ([]threads.Tool, error) {
	if session == nil {
		return nil, errors.New("threadsmcp: Tools: nil session")
	}
	var o ToolOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxResultBytes < 0 {
		return nil, fmt.Errorf("threadsmcp: ToolOptions.MaxResultBytes is %d; want at least 1 (0: the default)", o.MaxResultBytes)
	}
	if o.MaxResultBytes == 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if r := session.InitializeResult(); r != nil && (r.Capabilities == nil || r.Capabilities.Tools == nil) {
		return nil, nil // the server offers no tools (and would answer "Method not found")
	}
	var out []threads.Tool
	listed := map[string]bool{} // every name listed, before Filter
	err := pages(ctx, "tools", func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		r, err := session.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	}, func(t *mcp.Tool) (bool, error) {
		if t == nil || listed[t.Name] {
			return false, nil
		}
		if len(listed) == maxListedTools {
			return false, fmt.Errorf("threadsmcp: the server lists more than %d tools", maxListedTools)
		}
		listed[t.Name] = true
		if o.Filter != nil && !o.Filter(t) {
			return true, nil
		}
		if len(out) == MaxTools {
			return false, fmt.Errorf("threadsmcp: the server lists more than %d tools; keep fewer with ToolOptions.Filter", MaxTools)
		}
		out = append(out, tool(session, t, o.Prefix+t.Name, o.MaxResultBytes))
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// tool is the threads.Tool of the server's tool t, offered as name.
func tool(session *mcp.ClientSession, t *mcp.Tool, name string, max int) threads.Tool {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if desc == "" && t.Annotations != nil {
		desc = t.Annotations.Title
	}
	schema := t.InputSchema
	if schema == nil {
		schema = map[string]any{"type": "object"} // the protocol requires one; both APIs too
	}
	mcpName := t.Name
	out := threads.Tool{Name: name, Description: desc, InputSchema: schema}
	out.CallParts = func(ctx context.Context, call threads.ToolCall) ([]threads.ContentPart, error) {
		args := call.Arguments
		if args == nil {
			args = map[string]any{}
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: mcpName, Arguments: args})
		if err != nil {
			return nil, fmt.Errorf("calling tool %q on the MCP server: %w", mcpName, err)
		}
		parts := ResultParts(res, max)
		if res.IsError {
			text, _ := threads.ToolResultText(parts) // ResultParts makes text and resource parts only
			if text == "" {
				text = "the MCP tool reported an error without a message"
			}
			return nil, &ToolError{ToolName: mcpName, Text: text}
		}
		return parts, nil
	}
	out.Call = func(ctx context.Context, call threads.ToolCall) (string, error) {
		parts, err := out.CallParts(ctx, call)
		if err != nil {
			return "", err
		}
		return threads.ToolResultText(parts)
	}
	return out
}

// ToolError is the error of an MCP tool call whose result the server
// marked as an error (isError): the tool ran and failed. ToolName is the
// tool's name on the MCP server (without [ToolOptions].Prefix), spelled as
// the SDK's other types spell a call's tool. Text is its content's text
// ([threads.ToolResultText]), which the runners send to the model as the
// error result, cut at 4 KiB.
type ToolError struct {
	ToolName string
	Text     string
}

// Error is Text: what the model reads.
func (e *ToolError) Error() string { return e.Text }

// ResultParts turns an MCP tool result's content into the content parts
// of a tool result (see [Tools] for the mapping), at most max bytes of
// text, base64 blobs and URIs (max <= 0: DefaultMaxResultBytes) and
// MaxResultParts parts; what is left out is counted in a last text part.
// Content of a kind this package does not know is left out the same way.
// It ignores res.IsError: the caller decides what an error result is.
func ResultParts(res *mcp.CallToolResult, max int) []threads.ContentPart {
	if max <= 0 {
		max = DefaultMaxResultBytes
	}
	if res == nil {
		return []threads.ContentPart{}
	}
	b := &budget{left: max}
	out := make([]threads.ContentPart, 0, min(len(res.Content), MaxResultParts)+1)
	for i, c := range res.Content {
		if len(out) == MaxResultParts {
			b.skip(len(res.Content) - i)
			break
		}
		p, ok := contentPart(c)
		if !ok {
			b.skipped++
			continue
		}
		if p, ok = b.take(p); ok {
			out = append(out, p)
		}
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		if j, err := json.Marshal(res.StructuredContent); err == nil {
			if p, ok := b.take(threads.TextPart(string(j))); ok {
				out = append(out, p)
			}
		}
	}
	if b.skipped > 0 || b.cut > 0 {
		out = append(out, threads.TextPart(b.note(max)))
	}
	return out
}

// contentPart is one MCP content as a tool result's part; false for a
// kind without one.
func contentPart(c mcp.Content) (threads.ContentPart, bool) {
	switch c := c.(type) {
	case *mcp.TextContent:
		return threads.TextPart(c.Text), true
	case *mcp.ImageContent:
		return threads.BlobPart("", c.MIMEType, c.Data), true
	case *mcp.AudioContent:
		return threads.BlobPart("", c.MIMEType, c.Data), true
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return threads.ContentPart{}, false
		}
		return ContentPart(c.Resource), true
	case *mcp.ResourceLink:
		return threads.ResourcePart(threads.Resource{URI: c.URI, Name: c.Name, Description: c.Description, MIMEType: c.MIMEType}), true
	}
	return threads.ContentPart{}, false
}

// budget counts a result's bytes.
type budget struct {
	left    int
	cut     int // bytes left out
	skipped int // parts left out
}

func (b *budget) skip(n int) { b.skipped += n }

// take returns p within the budget: whole, its text cut (a text part or a
// text resource), or not at all (false) for a blob or URI that does not
// fit.
func (b *budget) take(p threads.ContentPart) (threads.ContentPart, bool) {
	size := len(p.Text)
	if r := p.Resource; r != nil {
		size = len(r.Text) + len(r.Blob) + len(r.URI) + len(r.Name) + len(r.Description) + len(r.MIMEType)
	}
	if size <= b.left {
		b.left -= size
		return p, true
	}
	over := size - b.left
	switch {
	case b.left == 0:
		b.cut += size
		b.skipped++
		return threads.ContentPart{}, false
	case p.Resource == nil:
		p.Text = cutText(p.Text, b.left)
	case p.Resource.Blob == "" && len(p.Resource.Text) >= over:
		r := *p.Resource
		r.Text = cutText(r.Text, len(r.Text)-over)
		p.Resource = &r
	default:
		b.cut += size
		b.skipped++
		return threads.ContentPart{}, false
	}
	b.cut += over
	b.left = 0
	return p, true
}

func (b *budget) note(max int) string {
	return fmt.Sprintf("[the MCP tool's result is cut: %d bytes and %d parts left out (the limit is %d bytes and %d parts)]", b.cut, b.skipped, max, MaxResultParts)
}

// cutText returns at most n bytes of s, on a rune boundary.
func cutText(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ContentPart returns an MCP resource's contents (from a resource read or
// an embedded resource) as a resource part of package threads: for a
// message on the spec's routes, or a tool's result. Its text, or its blob
// base64-encoded, with its URI and MIME type. It is [threads.ResourcePart]
// for an MCP resource; [Content] is its counterpart for a /v1
// message.
func ContentPart(rc *mcp.ResourceContents) threads.ContentPart {
	if rc == nil {
		return threads.ResourcePart(threads.Resource{})
	}
	r := threads.Resource{URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text}
	if rc.Blob != nil {
		r.Blob = base64.StdEncoding.EncodeToString(rc.Blob)
	}
	return threads.ResourcePart(r)
}
