// Package proxy puts a Go backend between a browser and the service's /v1
// API, so that the project key stays on the server and the end user is
// whoever the backend's session says, never what the browser sends.
//
// It has two parts, which share their relay settings ([RelayOption]):
//
//   - [Relay] writes one run, a [*runs.Stream] or [*runs.ToolStream] the
//     backend started itself, to an [http.ResponseWriter] as Server-Sent
//     Events, the service's bytes with the secrets redacted, for a page's
//     EventSource. It sends keep-alive comments, bounds each write, and
//     closes the stream (cancelling the run on the service) when the
//     browser leaves; a browser that left is [RelayResult].Left with a nil
//     error, not a failure.
//   - [Handler] ([New]) serves the /v1 routes that the service's official
//     web clients call (@tambo-ai/client, its React library,
//     @tambo-ai/typescript-sdk): point their base URL at it, under
//     [http.StripPrefix] when mounted below a prefix. Each call is sent
//     through the backend's [*threads.Client] as the [User] the backend's
//     function returns for the request; only the allow-listed routes are
//     served, and server-side tools ([WithTools]) run in the backend, their
//     results waiting in a [Store] when a pause also needs the browser's
//     tools. Instances behind one load balancer share a Store
//     ([WithStore]): pending results and each user's run slots;
//     [Handler.Shutdown] ends a deploy's instance gracefully.
//
// Both are safe for concurrent use. The package serves /v1 only (package
// runs), not the spec's routes of package threads. The command "threads
// proxy --user-key NAME" serves a Handler for one user, to try a web
// client locally.
package proxy
