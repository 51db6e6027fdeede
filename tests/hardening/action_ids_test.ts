/**
 * Issue 28 item 4: an action id named like an Object.prototype member is an
 * unknown action, 400 in the action failure shape, and no client error
 * writes a stack trace to the daemon's log (D10, C4.1).
 */
import assert from "node:assert/strict";
import { startTestDaemon } from "../helpers/daemon.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const PROTOTYPE_NAMES = [
  "constructor",
  "toString",
  "toLocaleString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
  "__proto__",
];

Deno.test("POST /actions with a prototype name as the action: 400 unknown action, nothing logged", async () => {
  await using t = await startTestDaemon({ scheduler: false });
  const logPath = `${t.home}/logs/daemon.log`;
  const logBefore = (await Deno.stat(logPath)).size;
  for (const action of PROTOTYPE_NAMES) {
    const response = await t.client.post<Json>("/actions", { action });
    assert.equal(response.status, 400, `${action}: ${JSON.stringify(response.body)}`);
    assert.equal(response.body.error.code, "invalid_request", action);
    assert.equal(response.body.error.message, `Unknown action "${action}"`);
    assert.equal(response.body.ok, false);
    assert.equal(response.body.status, "rejected");
  }
  // Prototype names elsewhere in the body are schema errors, not crashes.
  const tricky: Json[] = [
    JSON.parse('{"action":"svc.automations.list","__proto__":{"limit":5}}'),
    JSON.parse('{"action":"svc.automations.get","id":"constructor"}'),
    JSON.parse('{"action":"svc.automations.create","definition":{"__proto__":{"id":"x"}}}'),
    { action: "svc.automations.health", id: "__proto__" },
    { action: "svc.automations.runs", id: "hasOwnProperty" },
  ];
  for (const body of tricky) {
    const response = await t.client.post<Json>("/actions", body);
    assert.ok(
      response.status >= 200 && response.status < 500,
      `${JSON.stringify(body)} → ${response.status} ${JSON.stringify(response.body)}`,
    );
  }
  const logged = (await Deno.readTextFile(logPath)).slice(logBefore);
  assert.doesNotMatch(logged, /Unexpected error/);
  assert.doesNotMatch(logged, /"stack"/);
});
