import assert from "node:assert/strict";
import { ApprovalBroker } from "../../src/approvals/broker.ts";
import type { ApprovalRule } from "../../src/policy/approval_rules.ts";
import type { PermissionProfile } from "../../src/policy/permission_profile.ts";
import { FakeClock } from "../fakes/clock.ts";

const request = { requestId: "r1", tool: "Bash", summary: "Bash: ls", options: [] };
const never = new AbortController().signal;

function broker(onPending?: () => void) {
  const clock = new FakeClock(Date.parse("2026-11-23T10:00:00Z"));
  return { clock, broker: new ApprovalBroker({ clock, timeoutMs: () => 1000, onPending }) };
}

/** A broker over a list of rules ("always" appends to it), its sessions in `root`. */
function ruledBroker(root: string, harness: string, onPending?: () => void) {
  const rules: ApprovalRule[] = [];
  return {
    rules,
    broker: new ApprovalBroker({
      clock: new FakeClock(Date.parse("2026-11-23T10:00:00Z")),
      timeoutMs: () => 1000,
      onPending,
      rules: () => rules,
      addRule: (fields) => {
        const rule = { ...fields, id: `apr_${rules.length + 1}`, createdAt: "t" };
        rules.push(rule);
        return rule;
      },
      session: () => ({ harness, projectRoot: root, cwd: root }),
    }),
  };
}

Deno.test("ApprovalBroker answers deny and allow policies at once, without listing them", async () => {
  const { broker: b } = broker(() => assert.fail("no notification for a policy answer"));
  assert.deepEqual(
    { ...await b.decide("s1", "allow", request, never), message: null },
    { decision: "allow", remember: false, message: null, by: "policy" },
  );
  assert.equal((await b.decide("s1", "deny", request, never)).by, "policy");
  assert.deepEqual(b.list(), []);
});

Deno.test("ApprovalBroker keeps an ask request pending until the owner answers, once", async () => {
  let notified = 0;
  const { broker: b } = broker(() => notified++);
  const decided = b.decide("s1", "ask", request, never);
  assert.equal(notified, 1);
  assert.deepEqual(b.list("s1"), [{
    sessionId: "s1",
    requestId: "r1",
    tool: "Bash",
    summary: "Bash: ls",
    requestedAt: "2026-11-23T10:00:00.000Z",
    expiresAt: "2026-11-23T10:00:01.000Z",
    kind: "other",
    command: null,
    argv: null,
    paths: [],
    projectRoot: null,
    profile: null,
  }]);
  assert.deepEqual(b.list("s2"), []);
  // Without a rule store "always" remembers nothing; the agent gets a plain allow (D28).
  assert.deepEqual(b.answer("s1", "r1", { decision: "allow", remember: true, message: null }), {
    rule: null,
  });
  assert.deepEqual(await decided, {
    decision: "allow",
    remember: false,
    message: null,
    by: "owner",
  });
  assert.throws(
    () => b.answer("s1", "r1", { decision: "deny", remember: false, message: null }),
    (error: { code: string; status: number }) =>
      error.code === "approval_not_pending" && error.status === 409,
  );
  assert.throws(
    () => b.answer("s1", "r2", { decision: "deny", remember: false, message: null }),
    (error: { code: string; status: number }) =>
      error.code === "approval_not_found" && error.status === 404,
  );
});

Deno.test("ApprovalBroker denies by timeout, and as ended when the session's signal aborts", async () => {
  const { clock, broker: b } = broker();
  const timedOut = b.decide("s1", "ask", request, never);
  await clock.advance(999);
  assert.equal(b.list().length, 1);
  await clock.advance(1);
  assert.equal((await timedOut).by, "timeout");
  assert.equal(clock.pending, 0, "no timer left behind");

  const abort = new AbortController();
  const ended = b.decide("s1", "ask", { ...request, requestId: "r2" }, abort.signal);
  abort.abort();
  assert.deepEqual([(await ended).decision, (await ended).by], ["deny", "ended"]);
  assert.equal(clock.pending, 0);
  assert.deepEqual(b.list(), []);
  const already = await b.decide("s1", "ask", { ...request, requestId: "r3" }, abort.signal);
  assert.equal(already.by, "ended");
});

Deno.test("ApprovalBroker denies a second request under a pending id at once; the first stays answerable", async () => {
  const resolved: string[] = [];
  const clock = new FakeClock(Date.parse("2026-11-23T10:00:00Z"));
  let pending = 0;
  const b = new ApprovalBroker({
    clock,
    timeoutMs: () => 1000,
    onPending: () => pending++,
    onResolved: (approval, decision) => resolved.push(`${approval.requestId} ${decision.by}`),
  });
  const first = b.decide("s1", "ask", request, never);
  const copy = await b.decide("s1", "ask", { ...request, summary: "Bash: rm -rf /" }, never);
  assert.deepEqual(copy, {
    decision: "deny",
    remember: false,
    message: 'Denied by svc: request "r1" repeats the id of a request still pending',
    by: "policy",
  });
  assert.equal(pending, 1, "the copy is not announced");
  assert.deepEqual(resolved, [], "nor resolved on the feed: that would read as the first's answer");
  assert.deepEqual(b.list().map((approval) => approval.summary), ["Bash: ls"]);
  // The same id in another session is another request.
  const other = b.decide("s2", "ask", request, never);
  assert.equal(b.list().length, 2);

  b.answer("s1", "r1", { decision: "allow", remember: false, message: null });
  assert.equal((await first).by, "owner");
  assert.deepEqual(resolved, ["r1 owner"]);
  await clock.advance(1000);
  assert.equal((await other).by, "timeout");
  assert.deepEqual(b.list(), []);
  assert.equal(clock.pending, 0);
});

Deno.test("ApprovalBroker times out the first of two requests under one id (never lost)", async () => {
  const { clock, broker: b } = broker();
  const first = b.decide("s1", "ask", request, never);
  assert.equal((await b.decide("s1", "ask", request, never)).by, "policy");
  await clock.advance(1000);
  assert.deepEqual([(await first).decision, (await first).by], ["deny", "timeout"]);
  assert.deepEqual(b.list(), []);
  // Once resolved, the id may be asked again and waits like any request.
  const again = b.decide("s1", "ask", request, never);
  assert.equal(b.list().length, 1);
  b.answer("s1", "r1", { decision: "deny", remember: false, message: null });
  assert.equal((await again).by, "owner");
});

Deno.test("ApprovalBroker: rules decide before anyone is asked, under every policy (D28)", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    let pendingCount = 0;
    const { rules, broker: b } = ruledBroker(root, "claude", () => pendingCount++);
    const shell = (requestId: string, command: string) => ({
      ...request,
      requestId,
      target: { kind: "shell" as const, command, paths: [] },
    });
    rules.push({ id: "apr_allow", decision: "allow", command: ["npm", "test"], createdAt: "t" });
    rules.push({ id: "apr_deny", decision: "deny", command: ["rm"], createdAt: "t" });
    assert.deepEqual(await b.decide("s1", "ask", shell("r1", "npm test"), never), {
      decision: "allow",
      remember: false,
      message: null,
      by: "rule",
      ruleId: "apr_allow",
    });
    const denied = await b.decide("s1", "allow", shell("r2", "ls && rm -rf x"), never);
    assert.deepEqual([denied.decision, denied.by, denied.ruleId], ["deny", "rule", "apr_deny"]);
    assert.match(denied.message ?? "", /apr_deny/);
    assert.equal(pendingCount, 0, "nobody was asked");
    // A chained command under the allow rule is asked as usual; unattended it is denied.
    const chained = b.decide("s1", "ask", shell("r3", "npm test; curl x | sh"), never);
    await listed(b);
    assert.equal(pendingCount, 1);
    const [pending] = b.list();
    assert.deepEqual([pending.kind, pending.command, pending.argv, pending.projectRoot], [
      "shell",
      "npm test; curl x | sh",
      null,
      root,
    ]);
    b.answer("s1", "r3", { decision: "deny", remember: false, message: null });
    assert.equal((await chained).by, "owner");
    assert.equal((await b.decide("s1", "deny", shell("r4", "npm test && x"), never)).by, "policy");

    // "Always" becomes svc's rule for its scope; the agent gets a plain allow.
    const always = b.decide("s1", "ask", shell("r5", "git 'status'"), never);
    await listed(b);
    const { rule } = b.answer("s1", "r5", {
      decision: "allow",
      remember: true,
      message: null,
      scope: "project",
    });
    assert.deepEqual(rule, {
      id: "apr_3",
      decision: "allow",
      projectRoot: root,
      tool: "shell",
      command: ["git", "status"],
      createdAt: "t",
    });
    assert.deepEqual((await always).remember, false);
    const next = await b.decide("s2", "ask", shell("r6", "git status --short"), never);
    assert.deepEqual([next.by, next.ruleId], ["rule", "apr_3"]);
    // Checked first (as the conversation does), a request is pending as soon as decide is called.
    assert.equal(await b.checkRules("s1", shell("r7", "make")), null);
    const pendingAtOnce = b.decide("s1", "ask", shell("r7", "make"), never);
    assert.deepEqual(b.list().map((a) => [a.requestId, a.argv]), [["r7", ["make"]]]);
    b.answer("s1", "r7", { decision: "deny", remember: false, message: null });
    assert.equal((await pendingAtOnce).by, "owner");
    assert.deepEqual(
      (await b.checkRules("s1", shell("r8", "git status")))?.ruleId,
      "apr_3",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ApprovalBroker: an always answer to a permissions request covers that profile only (issue 33)", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const { broker: b } = ruledBroker(root, "codex");
    const permissions = (requestId: string, profile: Partial<PermissionProfile>) => ({
      requestId,
      tool: "permissions",
      summary: "permissions: …",
      options: [],
      target: {
        kind: "other" as const,
        command: null,
        paths: [],
        profile: { network: false, read: [], write: [], ...profile },
      },
    });
    const cache = `${root}/cache`;
    const first = b.decide("s1", "ask", permissions("p1", { write: ["cache"] }), never);
    await listed(b);
    // Every face reads the profile from the pending request, paths made absolute.
    assert.deepEqual(b.list()[0].profile, { network: false, read: [], write: [cache] });
    const { rule } = b.answer("s1", "p1", { decision: "allow", remember: true, message: null });
    assert.deepEqual(rule, {
      id: "apr_1",
      decision: "allow",
      sessionId: "s1",
      tool: "permissions",
      profile: { network: false, read: [], write: [cache] },
      createdAt: "t",
    });
    assert.equal((await first).by, "owner");
    const within = await b.decide("s1", "ask", permissions("p2", { write: [`${cache}/x`] }), never);
    assert.deepEqual([within.by, within.ruleId], ["rule", "apr_1"]);
    // Anything beyond what was shown is asked again: the root, another path, the network.
    for (
      const [id, escalation] of [
        ["p3", { write: ["/"] }],
        ["p4", { write: [cache, `${root}/other`] }],
        ["p5", { write: [cache], network: true }],
      ] satisfies [string, Partial<PermissionProfile>][]
    ) {
      const asked = b.decide("s1", "ask", permissions(id, escalation), never);
      await listed(b);
      assert.deepEqual(b.list().map((approval) => approval.requestId), [id]);
      b.answer("s1", id, { decision: "deny", remember: false, message: null });
      assert.equal((await asked).by, "owner");
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** Waits until a request is pending (rules are checked first, with real file-system calls). */
async function listed(b: ApprovalBroker): Promise<void> {
  while (b.list().length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
}
