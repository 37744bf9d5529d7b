// check.mjs: the official TypeScript SDK's /v1 calls against `threads fake --live-habits` (see README.md).
import assert from "node:assert/strict";
import TamboAI from "@tambo-ai/typescript-sdk";
const sdk = new TamboAI({ apiKey: process.env.THREADS_API_KEY, baseURL: process.env.THREADS_BASE_URL });
let n = 0; const ok = (w) => { n++; console.log("ok -", w); };
const th = await sdk.threads.create({ userKey: "u1", metadata: { n: 1 } }); assert.equal(th.userKey, "u1"); ok("threads.create");
const list = await sdk.threads.list({ userKey: "u1" }); assert.ok(list.threads.some((t) => t.id === th.id)); ok("threads.list");
const got = await sdk.threads.retrieve(th.id, { userKey: "u1" }); assert.equal(got.id, th.id); ok("threads.retrieve");
const up = await sdk.threads.update(th.id, { userKey: "u1", name: "renamed" }); assert.equal(up.name, "renamed"); ok("threads.update");
const s = await sdk.threads.runs.run(th.id, { message: { role: "user", content: [{ type: "text", text: "hello" }] }, userKey: "u1" });
let text = "", runId = ""; for await (const ev of s) { if (ev.type === "RUN_STARTED") runId = ev.runId; if (ev.type === "TEXT_MESSAGE_CONTENT") text += ev.delta; if (ev.type === "RUN_ERROR") throw new Error(ev.message); }
assert.ok(text.length > 0); ok(`runs.run streams: ${JSON.stringify(text.slice(0, 40))}`);
const s2 = await sdk.threads.runs.run(th.id, { message: { role: "user", content: [{ type: "text", text: "again" }] }, userKey: "u1", previousRunId: runId });
for await (const ev of s2) { if (ev.type === "RUN_ERROR") throw new Error(ev.message); } ok("runs.run with previousRunId");
// A cancel after the first delta ends the stream RUN_ERROR CANCELLED, as the service ends it (captures 53, 57, 58).
const sc = await sdk.threads.runs.create({ message: { role: "user", content: [{ type: "text", text: "a long answer please" }] }, thread: { userKey: "u1" } });
let cancelRun = "", cancelThread = "", cancelled = false, end = "";
for await (const ev of sc) {
  if (ev.type === "RUN_STARTED") { cancelRun = ev.runId; cancelThread = ev.threadId; }
  if (ev.type === "TEXT_MESSAGE_CONTENT" && !cancelled) { cancelled = true; const d = await sdk.threads.runs.delete(cancelRun, { threadId: cancelThread, userKey: "u1" }); assert.equal(d.status, "cancelled"); }
  if (ev.type === "RUN_FINISHED" || ev.type === "RUN_ERROR") { end = ev.type === "RUN_ERROR" ? `RUN_ERROR ${ev.code}` : ev.type; break; }
}
assert.ok(cancelled); assert.equal(end, "RUN_ERROR CANCELLED"); ok("runs.delete after the first delta: RUN_ERROR CANCELLED");
const c = await sdk.threads.runs.create({ message: { role: "user", content: [{ type: "text", text: "new" }] }, thread: { userKey: "u1" } });
for await (const ev of c) { if (ev.type === "RUN_ERROR") throw new Error(ev.message); } ok("runs.create (new thread)");
const msgs = await sdk.threads.messages.list(th.id, { userKey: "u1" }); assert.ok(msgs.messages.length >= 4); ok(`messages.list (${msgs.messages.length})`);
const one = await sdk.threads.messages.get(msgs.messages[0].id, { threadId: th.id, userKey: "u1" }); assert.equal(one.id, msgs.messages[0].id); ok("messages.get");
const sg = await sdk.threads.suggestions.create(msgs.messages[1].id, { threadId: th.id, maxSuggestions: 2, userKey: "u1" }); assert.equal(sg.suggestions.length, 2); ok("suggestions.create");
const sl = await sdk.threads.suggestions.list(msgs.messages[1].id, { threadId: th.id, userKey: "u1" }); assert.ok(sl.suggestions.length >= 1); ok("suggestions.list");
await sdk.threads.delete(th.id, { userKey: "u1" }); await assert.rejects(sdk.threads.retrieve(th.id, { userKey: "u1" }), (e) => e.status === 404 || e.status === 403); ok("threads.delete (then retrieve refused)");
console.log(`all ${n} checks passed`);
