/** `svc approvals` and `svc approve` against a real `svc serve` (issue 10, D18). */
import assert from "node:assert/strict";
import { approvalsTable, describeRequest, logTable } from "../../src/cli/approvals.ts";
import { localTime } from "../../src/cli/output.ts";
import { waitForEnd } from "../helpers/daemon.ts";
import { startCliDaemon } from "./cli_daemon.ts";

type Json = Record<string, unknown>;

Deno.test("approvalsTable() lists requests with their expiry, or says there are none", () => {
  assert.equal(approvalsTable([], 0), "No pending approvals");
  const now = Date.parse("2026-11-23T10:00:00Z");
  const text = approvalsTable([{
    sessionId: "ses_1",
    requestId: "req_1",
    tool: "Bash",
    summary: "Bash: touch\nx",
    requestedAt: "2026-11-23T10:00:00Z",
    expiresAt: "2026-11-23T10:04:10Z",
  }], now);
  assert.deepEqual(text.split("\n").map((line) => line.split(/\s{2,}/)), [
    ["SESSION", "REQUEST", "TOOL", "EXPIRES", "SUMMARY"],
    ["ses_1", "req_1", "Bash", "in 4m 10s", "Bash: touch x"],
  ]);
});

Deno.test("logTable() prints each decision's time as every command does, --utc in UTC (issue 38 item 14)", () => {
  const entry = {
    cursor: "1",
    at: "2026-11-23T10:00:00.000Z",
    sessionId: "ses_1",
    harness: "claude",
    requestId: "req_1",
    tool: "Bash",
    summary: "touch x",
    command: "touch x",
    paths: [],
    decision: "allow" as const,
    by: "owner" as const,
    ruleId: null,
    device: null,
  };
  const row = (utc: boolean) => logTable([entry], utc).split("\n")[1].split(/\s{2,}/);
  assert.deepEqual(row(true), [
    "2026-11-23 10:00 UTC",
    "ses_1",
    "allow",
    "owner",
    "Bash",
    "touch x",
  ]);
  assert.equal(row(false)[0], localTime(entry.at));
});

Deno.test("describeRequest() is the summary, named after the tool when it does not say it", () => {
  assert.equal(describeRequest({ tool: "Bash", summary: "Bash: touch x" }), "Bash: touch x");
  assert.equal(
    describeRequest({ tool: "execute", summary: "Run\n touch x" }),
    "execute: Run touch x",
  );
  assert.equal(describeRequest({ tool: "Read", summary: "" }), "Read");
  assert.equal(describeRequest({ tool: "Bash", summary: "Bash: \x1b[2Jx" }), "Bash: ^[[2Jx");
  assert.equal(
    describeRequest({ tool: "B\x1b]0;t\x07", summary: "touch\x9b x" }),
    "B^[]0;t^G: touch<U+009B> x",
  );
});

/** Polls until `check` returns a value, for at most 20 s. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("svc approvals lists a pending request; svc approve answers it once", async () => {
  await using d = await startCliDaemon();
  const launched = await d.client.post<Json>("/sessions", {
    projectRoot: d.project,
    harness: "agent",
    prompt: "ask Bash touch x",
    approvals: "ask",
  });
  const id = launched.body.id as string;
  /** The `result` of the session's `turn`th turn, once it has ended. */
  const turnResult = (turn: number) =>
    eventually(`turn ${turn}`, async () => {
      const page = await d.client.get<{ events: Json[] }>(
        `/sessions/${id}/events?kinds=agent.turn`,
      );
      const event = page.body.events[turn - 1];
      return event && JSON.parse(event.payload_json as string).result as string;
    });
  const listed = await eventually("the pending request", async () => {
    const { stdout } = await d.svc(["approvals"]);
    return stdout.includes(id) ? stdout : undefined;
  });
  assert.match(listed, /^SESSION\s+REQUEST\s+TOOL\s+EXPIRES\s+SUMMARY$/m);
  assert.match(listed, /req_1\s+Bash\s+in \d+m \d+s\s+Bash: touch x$/m);
  const json = JSON.parse((await d.svc(["approvals", "--session", id, "--json"])).stdout);
  assert.equal(json.length, 1, "a list command's --json is the list (issue 27 item 10)");

  const denied = await d.svc(["approve", id, "req_1", "--deny", "--message", "no"]);
  assert.equal(denied.code, 0, denied.stderr);
  assert.equal(denied.stdout, `Denied Bash: touch x (${id} req_1)\n`);
  const again = await d.svc(["approve", id, "req_1"]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /^approval_not_pending: /);
  const unknown = await d.svc(["approve", id, "nope"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^approval_not_found: /);
  assert.equal(unknown.stdout, "");
  // One argument is a request id prefix or a session with one pending request (issue 27 item 9).
  const nothingPending = await d.svc(["approve", id]);
  assert.equal(nothingPending.code, 1);
  assert.match(nothingPending.stderr, /^approval_not_found: No pending permission request matches/);
  assert.equal((await d.svc(["approve", id, "r", "--deny", "--remember"])).code, 2);
  assert.equal(await turnResult(1), "denied: no");
  assert.equal((await d.svc(["approvals"])).stdout, "No pending approvals\n");

  // A second request, allowed (with --remember, a plain allow for claude).
  await d.client.post(`/sessions/${id}/input`, { data: "ask Bash touch y" });
  await eventually("the second request", async () => {
    const { stdout } = await d.svc(["approvals", "--session", id]);
    return stdout.includes("req_2") ? stdout : undefined;
  });
  const allowed = await d.svc(["approve", id, "req_2", "--remember"]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.equal(allowed.stdout, `Allowed Bash: touch y (${id} req_2)\n`);
  assert.equal(await turnResult(2), "allowed");
  await d.client.post(`/sessions/${id}/kill`, {});
  await waitForEnd(d.client, id);
});

Deno.test("svc approvals rules add/list/rm and svc approvals log (D28)", async () => {
  await using d = await startCliDaemon();
  const added = await d.svc([
    "approvals",
    "rules",
    "add",
    "--allow",
    "--command",
    "touch",
    "--command",
    "ruled",
    "--project",
    d.project,
    "--note",
    "fine",
  ]);
  assert.equal(added.code, 0, added.stderr);
  const id = added.stdout.match(/^Added (apr_\w+): allow any tool command starting/)?.[1];
  assert.ok(id, added.stdout);
  const listed = await d.svc(["approvals", "rules"]);
  assert.match(listed.stdout, /^ID\s+DECISION\s+SCOPE\s+TOOL\s+COMMAND\s+PATH\s+NOTE$/m);
  assert.match(listed.stdout, new RegExp(`${id}\\s+allow\\s+project \\S+\\s+-\\s+"touch" "ruled"`));
  assert.equal((await d.svc(["approvals", "rules", "add", "--tool", "x"])).code, 2);
  const launched = await d.client.post<Json>("/sessions", {
    projectRoot: d.project,
    harness: "agent",
    prompt: "ask Bash touch ruled",
    approvals: "ask",
  });
  const session = launched.body.id as string;
  const log = await eventually("the rule's decision in the log", async () => {
    const { stdout } = await d.svc(["approvals", "log", "--session", session]);
    return stdout.includes(`rule ${id}`) ? stdout : undefined;
  });
  assert.match(log, /^TIME\s+SESSION\s+DECISION\s+BY\s+TOOL\s+COMMAND \/ PATHS$/m);
  assert.match(log, /^\d{4}-\d\d-\d\d \d\d:\d\d \S+\s+ses_/m, "a local time, not ISO");
  assert.match(log, new RegExp(`${session}\\s+allow\\s+rule ${id}\\s+Bash\\s+touch ruled$`, "m"));
  const json = JSON.parse((await d.svc(["approvals", "log", "--json"])).stdout);
  assert.equal(json.entries[0].by, "rule");
  const removed = await d.svc(["approvals", "rules", "rm", id]);
  assert.deepEqual([removed.code, removed.stdout], [0, `Removed ${id}\n`]);
  assert.equal((await d.svc(["approvals", "rules", "rm", id])).code, 1);
  assert.equal((await d.svc(["approvals", "rules"])).stdout, "No approval rules\n");
  await d.client.post(`/sessions/${session}/kill`, {});
  await waitForEnd(d.client, session);
});
