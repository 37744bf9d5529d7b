// check.mjs drives proxy.Handler (served by main.go in this folder, in
// front of the SDK's fake) with the service's official clients, as a web
// app would: the TypeScript SDK's /v1 calls, and runs driven by
// @tambo-ai/client, with browser tools, server-side tools and a pause that
// mixes both. See README.md for how to run it.
import assert from "node:assert/strict";
import TamboAI from "@tambo-ai/typescript-sdk";
import { TamboClient } from "@tambo-ai/client";

const [base, bobThread] = process.argv.slice(2);
if (!base || !bobThread) {
  console.error("usage: node check.mjs BASE_URL BOB_THREAD_ID (the line main.go prints)");
  process.exit(2);
}
let checks = 0;
const ok = (what) => {
  checks++;
  console.log("ok -", what);
};

// --- The TypeScript SDK, as the browser would hold it: no project key. ---
const sdk = new TamboAI({ apiKey: "not-the-project-key", baseURL: base });

const th = await sdk.threads.create({ userKey: "mallory", metadata: { n: 1 } });
assert.equal(th.userKey, "alice");
ok("threads.create with userKey mallory creates alice's thread");

const list = await sdk.threads.list({ userKey: "bob" });
assert.ok(list.threads.length > 0);
assert.ok(list.threads.every((t) => t.userKey === "alice"));
assert.ok(!list.threads.some((t) => t.id === bobThread));
ok("threads.list with userKey bob lists alice's threads only");

await assert.rejects(sdk.threads.retrieve(bobThread, { userKey: "bob" }), (e) => e.status === 403);
ok("threads.retrieve of bob's thread, with userKey bob: 403");

const up = await sdk.threads.update(th.id, { userKey: "bob", name: "renamed" });
assert.equal(up.name, "renamed");
ok("threads.update");

// A run on a thread where the browser offers no tool: the fake's model
// calls the server-side tool, the handler answers it and continues.
const stream = await sdk.threads.runs.run(th.id, {
  message: { role: "user", content: [{ type: "text", text: "proxy" }] },
  userKey: "bob",
});
let text = "";
const started = [];
const types = [];
for await (const ev of stream) {
  types.push(ev.type === "CUSTOM" ? ev.name : ev.type);
  if (ev.type === "RUN_STARTED") started.push(ev.runId);
  if (ev.type === "TEXT_MESSAGE_CONTENT") text += ev.delta;
}
assert.equal(started.length, 2, types.join(" "));
assert.ok(!types.includes("tambo.run.awaiting_input"), types.join(" "));
assert.match(text, /a definition of proxy/);
ok(`runs.run streams both runs of a server-side tool pause in one response: ${JSON.stringify(text)}`);

const again = await sdk.threads.runs.run(th.id, {
  message: { role: "user", content: [{ type: "text", text: "thanks" }] },
  previousRunId: started[1],
});
for await (const ev of again) {
  if (ev.type === "RUN_ERROR") throw new Error(ev.message);
}
ok("the next run, previousRunId the last RUN_STARTED's, is accepted");

const msgs = await sdk.threads.messages.list(th.id, { userKey: "bob" });
assert.ok(msgs.messages.length >= 4);
const one = await sdk.threads.messages.get(msgs.messages[0].id, { threadId: th.id });
assert.equal(one.id, msgs.messages[0].id);
ok(`messages.list (${msgs.messages.length}) and messages.get`);

const sg = await sdk.threads.suggestions.create(msgs.messages[0].id, { threadId: th.id, maxSuggestions: 2 });
assert.equal(sg.suggestions.length, 2);
const sl = await sdk.threads.suggestions.list(msgs.messages[0].id, { threadId: th.id });
assert.equal(sl.suggestions.length, 2);
ok("suggestions.create and suggestions.list");

await assert.rejects(sdk.threads.runs.delete(started[1], { threadId: th.id }), (e) => e.status === 404);
ok("runs.delete of a finished run: the service's 404, passed on");

await sdk.threads.delete(th.id, { userKey: "bob" });
await assert.rejects(sdk.threads.retrieve(th.id), (e) => e.status === 403);
ok("threads.delete");

// --- @tambo-ai/client, as a React app uses it. ---
const lastText = (thread) => {
  const m = thread.messages.filter((m) => m.role === "assistant").at(-1);
  return m.content.filter((c) => c.type === "text").map((c) => c.text).join("");
};
const getLocation = {
  name: "get_location",
  description: "Where the user is",
  tool: () => "Lisbon",
  inputSchema: { type: "object", properties: {} },
  outputSchema: { type: "string" },
};
// TamboClient forgets a thread's active run a tick after its thread
// promise resolves: a run started at once on the same thread is refused
// ("A run is already active"), whatever the server.
const tick = () => new Promise((r) => setTimeout(r, 0));
const client = new TamboClient({ apiKey: "unused", tamboUrl: base, userKey: "mallory", tools: [getLocation] });

const t1 = await client.run("hi there").thread;
assert.match(lastText(t1), /Lisbon/);
ok(`TamboClient.run with a browser tool: ${JSON.stringify(lastText(t1))}`);

await tick();
const t2 = await client.run("and then?", { threadId: t1.id }).thread;
assert.ok(lastText(t2).length > 0);
ok(`TamboClient.run continues the thread: ${JSON.stringify(lastText(t2))}`);

await fetch(new URL("/control/mixed", base), { method: "POST" });
const t3 = await client.run("both please", { threadId: t1.id }).thread;
// The service hands the model only the last call's result of a turn
// (the fake's live habits copy it: threadstest.WithLastToolCallOnly), so
// the reply names the server's lookup only; the run being accepted shows
// that both results went (the service refuses a continuation that lacks
// one).
assert.match(lastText(t3), /a definition of tea/);
ok(`a pause mixing get_location (browser) and lookup (server): ${JSON.stringify(lastText(t3))}`);

await tick();
const t4 = await client.run("and now?", { threadId: t1.id }).thread;
assert.ok(lastText(t4).length > 0);
ok("TamboClient.run after the mixed pause");

const plain = new TamboClient({ apiKey: "unused", tamboUrl: base, userKey: "mallory" });
const t5 = await plain.run("golang").thread;
assert.match(lastText(t5), /a definition of golang/);
ok(`TamboClient.run with only a server-side tool: ${JSON.stringify(lastText(t5))}`);
await tick();
const t6 = await plain.run("more", { threadId: t5.id }).thread;
assert.ok(lastText(t6).length > 0);
ok("TamboClient.run continues it (previousRunId accepted)");

const threads = await client.listThreads();
assert.ok(threads.length >= 2);
ok(`TamboClient.listThreads: ${threads.length}`);

console.log(`\nall ${checks} checks passed`);
