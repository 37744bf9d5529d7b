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
package threadsmcp
