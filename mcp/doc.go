// Package threadsmcp connects threads-go agents to MCP (Model Context
// Protocol) servers, on the official MCP Go SDK
// (github.com/modelcontextprotocol/go-sdk):
//
//   - [Tools] and [Conn.Tools]: an MCP server's tools as [threads.Tool]
//     values for both tool runners ([threads.ThreadsService.RunStream] on
//     the spec's routes, package runs' RunTools on /v1), their input
//     schemas passed unchanged, their results (text, images, embedded
//     resources) as content parts, their errors as error results;
//   - [Connect]: a client session over any go-sdk transport, which follows
//     the server's tool list and reports its [Status];
//   - [ConnectService]: a session with the service's own MCP endpoint,
//     <base URL>/mcp, authenticated with access tokens it mints and
//     renews, for the project's MCP resources and prompts ([Content]
//     puts a resource into a /v1 message) and, on a thread-bound session,
//     the elicitation requests the service forwards.
//
// The package is named threadsmcp, not mcp, so that it sits beside the
// go-sdk's mcp package without an alias; its import path is
// github.com/threadsapi/threads-go/mcp, a module of its own, so that the
// SDK's own module gains no MCP dependency.
//
// Its settings are [Options] (and [ServiceOptions]); a logger goes in
// Options.Logger, an *slog.Logger, as in every Options struct of the
// module (a package with options takes WithLogger(*slog.Logger) instead).
//
//	conn, err := threadsmcp.Connect(ctx, &mcp.CommandTransport{Command: exec.Command("my-mcp-server")}, nil)
//	...
//	defer conn.Close()
//	tools, err := conn.Tools(ctx)
//	ts, err := runs.New(client).ForUser("user-1").RunTools(ctx, threadID, params, runs.ToolRunner{Tools: tools})
//
// # MCP tools in a run
//
// [Tools] (and [Conn.Tools]) keep each tool's input schema as it is, in
// threads.Tool.InputSchema: /v1 sends it unchanged; the spec's routes map
// it to parameters, and refuse a schema they cannot express. A call runs
// the tool on the server with the model's arguments (the service's status
// arguments taken out by the runner) and its result becomes content parts
// (threads.Tool.CallParts): text as text parts, an image or audio as a
// resource part with its base64 blob and MIME type, an embedded resource as
// a resource part with its text or blob, a resource link as a resource part
// with its URI, and a result with only structured content as its JSON text.
// On /v1 the parts are the tool_result's content; on the spec's routes
// their text (threads.ToolResultText). A result the server marks as an
// error, and a call the server refuses (an unknown tool, bad arguments, a
// lost connection), is the tool's error: the runner sends it as an error
// result, cut at 4 KiB like every tool error. A run declares the tools it
// was given when it starts.
//
// # The service's /mcp
//
// What [ConnectService] meets today (captures-turn5 17-24): the resources
// and prompts of the project's MCP servers, named "<serverKey>:<name>" (a
// resource's URI "<serverKey>:<its URI>"), and no tools ([Conn.Tools] is
// empty: the service offers them to the model itself). [Conn.Prompts] and
// [Conn.GetPrompt] work. [Conn.Resources] lists, but [Conn.ReadResource] of
// a listed URI fails today (the service passes the prefixed URI on, and its
// server answers -32602 "Resource not found"); read a resource from its MCP
// server with [Connect], and put it into a /v1 message with [Content] (a
// spec route message: [ContentPart]). The endpoint declares no capabilities
// when none of the project's MCP servers answers: the lists are then empty,
// not errors. Each answer is bounded by ServiceOptions.MaxResponseBytes. A
// request for another host, scheme or path than the endpoint (a redirect,
// say) is refused without the token, with an error that says so. The
// go-sdk's Streamable HTTP client ends the session on an HTTP error answer
// (a 401 even with a new token, a 5xx): the status stays failed.
package threadsmcp
