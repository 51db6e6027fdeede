/**
 * Pausing and activating a routine by id (D30): the owner on the socket and
 * an `operate` device over TCP may; `read` and `approve` devices get 403 in
 * the action envelope, a TCP peer without a device keeps C4.1's 403, and
 * `svc.automations.update` stays the owner's. Idempotent: a routine already
 * so is answered as it is (`changed: false`), not rewritten.
 */
import assert from "node:assert/strict";
import { fixtureHarnesses } from "../helpers/daemon.ts";
import { gitRepository } from "../helpers/git.ts";
import { removeTree } from "../helpers/home.ts";
import { routineDefinition } from "../helpers/routine.ts";
import { type Json, json, webDaemon } from "../helpers/web_daemon.ts";

Deno.test("svc.automations.pause|activate: the owner and an operate device, nothing more (D30)", async (t) => {
  await using web = await webDaemon({ harnesses: fixtureHarnesses() });
  const owner = async (body: Json) => {
    const answer = await web.t.client.post<Json>("/actions", body);
    return { status: answer.status, body: answer.body };
  };
  const byDevice = async (token: string | null, body: Json) => {
    const answer = await web.send("POST", "/api/v1/actions", {
      headers: token === null
        ? { origin: web.origin, "content-type": "application/json" }
        : json(web.origin, token),
      body: JSON.stringify(body),
    });
    return { status: answer.status, body: answer.body as Json };
  };
  const status = async () => {
    const got = await owner({ action: "svc.automations.get", id: "nightly" });
    return ((got.body.result as Json).routine as Json).status;
  };
  const created = await owner({
    action: "svc.automations.create",
    definition: routineDefinition("nightly", { prompt: "exit 0" }),
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const operator = await web.pair("operate");
  const approver = await web.pair("approve");
  const reader = await web.pair("read");

  await t.step("the owner's socket activates and pauses; again is no change", async () => {
    const activated = await owner({ action: "svc.automations.activate", id: "nightly" });
    assert.equal(activated.status, 200, JSON.stringify(activated.body));
    const result = activated.body.result as Json;
    assert.equal((result.routine as Json).status, "ACTIVE");
    assert.equal(result.changed, true);
    assert.equal((result.routine as Json).prompt, "exit 0", "nothing else of it changes");
    const again = await owner({ action: "svc.automations.activate", id: "nightly" });
    assert.equal(again.status, 200);
    assert.equal((again.body.result as Json).changed, false);
    assert.equal((again.body.result as Json).updatedAt, result.updatedAt, "not rewritten");
    const paused = await owner({ action: "svc.automations.pause", id: "nightly" });
    assert.equal((paused.body.result as Json).changed, true);
    assert.equal(await status(), "PAUSED");
  });

  await t.step("an operate device activates and pauses over TCP", async () => {
    const activated = await byDevice(operator, {
      action: "svc.automations.activate",
      id: "nightly",
    });
    assert.equal(activated.status, 200, JSON.stringify(activated.body));
    assert.equal(activated.body.action, "svc.automations.activate");
    assert.equal(await status(), "ACTIVE");
    const paused = await byDevice(operator, { action: "svc.automations.pause", id: "nightly" });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal(await status(), "PAUSED");
    const again = await byDevice(operator, { action: "svc.automations.pause", id: "nightly" });
    assert.equal(again.status, 200);
    assert.equal((again.body.result as Json).changed, false);
  });

  await t.step("read and approve devices get 403 AUTHORITY_REQUIRED in the envelope", async () => {
    for (const [token, scope] of [[reader, "read"], [approver, "approve"]]) {
      for (const action of ["svc.automations.activate", "svc.automations.pause"]) {
        const refused = await byDevice(token, { action, id: "nightly" });
        assert.equal(refused.status, 403, `${scope} ${action}`);
        assert.equal(refused.body.ok, false);
        assert.equal(refused.body.status, "rejected");
        assert.equal((refused.body.error as Json).code, "AUTHORITY_REQUIRED");
        assert.match(String(refused.body.reason), new RegExp(`has scope "${scope}"`));
      }
    }
    assert.equal(await status(), "PAUSED");
  });

  await t.step("TCP without a device keeps C4.1's 403; update stays the owner's", async () => {
    const anonymous = await byDevice(null, { action: "svc.automations.activate", id: "nightly" });
    assert.equal(anonymous.status, 403);
    assert.equal((anonymous.body.error as Json).code, "AUTHORITY_REQUIRED");
    const update = await byDevice(operator, {
      action: "svc.automations.update",
      definition: routineDefinition("nightly", { status: "ACTIVE" }),
    });
    assert.equal(update.status, 403, JSON.stringify(update.body));
    assert.match(String(update.body.reason), /owner's local socket/);
    assert.equal(await status(), "PAUSED");
  });

  await t.step("an unknown id is 404 routine_not_found; a missing id is 400", async () => {
    const unknown = await byDevice(operator, { action: "svc.automations.pause", id: "nope" });
    assert.equal(unknown.status, 404);
    assert.equal((unknown.body.error as Json).code, "routine_not_found");
    assert.equal(unknown.body.reason, 'Routine "nope" does not exist');
    const onSocket = await owner({ action: "svc.automations.activate", id: "nope" });
    assert.equal(onSocket.status, 404);
    const missing = await byDevice(operator, { action: "svc.automations.pause" });
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.body), /id/);
    const extra = await byDevice(operator, {
      action: "svc.automations.pause",
      id: "nightly",
      definition: {},
    });
    assert.equal(extra.status, 400, "nothing but the id: the definition is not taken");
  });
});

Deno.test("svc.automations.activate checks the definition against this machine as update does; pause always works", async () => {
  await using web = await webDaemon({ harnesses: fixtureHarnesses() });
  const repo = await gitRepository();
  try {
    const act = async (body: Json) => {
      const answer = await web.t.client.post<Json>("/actions", body);
      return { status: answer.status, body: answer.body };
    };
    const definition = routineDefinition("isolated", {
      cwd: repo,
      isolation: "worktree",
      status: "ACTIVE",
    });
    assert.equal((await act({ action: "svc.automations.create", definition })).status, 200);
    await removeTree(`${repo}/.git`);
    const paused = await act({ action: "svc.automations.pause", id: "isolated" });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal((paused.body.result as Json).changed, true);
    const refused = await act({ action: "svc.automations.activate", id: "isolated" });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.match(String(refused.body.reason), /git repository/);
    const got = await act({ action: "svc.automations.get", id: "isolated" });
    assert.equal(((got.body.result as Json).routine as Json).status, "PAUSED");
  } finally {
    await removeTree(repo);
  }
});
