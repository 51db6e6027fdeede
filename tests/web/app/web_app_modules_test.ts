import assert from "node:assert/strict";
import { approvalCard } from "../../../src/web/app/approval_card.ts";
import { BrowserClient } from "../../../src/web/app/browser_client.ts";
import { allows, pairDevice, readDevice } from "../../../src/web/app/device.ts";
import { hrefOf, routeOf } from "../../../src/web/app/route.ts";
import { sessionControls } from "../../../src/web/app/session_controls.ts";
import { pendingSession } from "../../../src/ui/model.ts";
import type { PendingApproval } from "../../../src/ui/model.ts";

const answer = (status: number, body: unknown) => () =>
  Promise.resolve(new Response(JSON.stringify(body), { status }));

Deno.test("routeOf() reads the view from the fragment; hrefOf() writes it back", () => {
  assert.deepEqual(routeOf({ pathname: "/pair", hash: "#abc" }), { view: "pair", code: "abc" });
  assert.deepEqual(routeOf({ pathname: "/", hash: "" }), { view: "fleet" });
  assert.deepEqual(routeOf({ pathname: "/", hash: "#/approvals" }), { view: "approvals" });
  const session = { view: "session", sessionId: "ses_a b" } as const;
  assert.deepEqual(routeOf({ pathname: "/", hash: hrefOf(session).slice(1) }), session);
  assert.deepEqual(routeOf({ pathname: "/", hash: "#/s/%E0" }), { view: "fleet" });
  assert.deepEqual(routeOf({ pathname: "/", hash: hrefOf({ view: "new" }).slice(1) }), {
    view: "new",
  });
});

Deno.test("allows() nests the scopes", () => {
  assert.ok(allows(["operate"], "approve"));
  assert.ok(!allows(["read"], "approve"));
});

Deno.test("readDevice() and pairDevice() turn the daemon's answers into states and sentences", async () => {
  assert.deepEqual(
    await readDevice(answer(401, { error: { code: "device_revoked" } })),
    { status: "revoked" },
  );
  assert.deepEqual(await readDevice(answer(401, { error: { code: "not_paired" } })), {
    status: "not_paired",
  });
  assert.deepEqual(await readDevice(() => Promise.reject(new TypeError("down"))), {
    status: "unreachable",
  });
  const refused = await pairDevice("x", answer(401, { error: { code: "pairing_refused" } }));
  assert.ok(!refused.ok && /already used/.test(refused.message));
  assert.deepEqual(
    await pairDevice("x", answer(200, { device: { name: "p", scopes: ["read"] } })),
    {
      ok: true,
      name: "p",
      scopes: ["read"],
    },
  );
});

Deno.test("approvalCard() shows the whole command and paths with invisible characters escaped", () => {
  const approval = {
    sessionId: "ses_1",
    requestId: "r1",
    tool: "Bash",
    summary: "Bash: rm",
    command: "rm -rf \u202e/tmp\u200b",
    argv: null,
    paths: ["/a\u2066b"],
    kind: "shell",
    projectRoot: null,
    profile: null,
    requestedAt: "2026-01-01T00:00:00Z",
    expiresAt: "2026-01-01T00:01:00Z",
  } as PendingApproval;
  const card = approvalCard(approval, Date.parse("2026-01-01T00:00:30Z"));
  assert.equal(card.label, "Bash: rm -rf <U+202E>/tmp<U+200B>");
  assert.deepEqual(card.paths, ["/a<U+2066>b"]);
  assert.equal(card.left, "0:30 left");
});

Deno.test("sessionControls() offers what the state and the scopes allow", () => {
  const running = {
    ...pendingSession("ses_1", "2026-01-01T00:00:00Z"),
    activity: "working" as const,
  };
  assert.deepEqual(sessionControls(running, ["approve"]), {
    controls: ["interrupt"],
    input: false,
  });
  assert.deepEqual(sessionControls(running, ["operate"]), {
    controls: ["interrupt", "close", "kill"],
    input: true,
  });
  const ended = { ...running, status: "completed", resumable: true };
  assert.deepEqual(sessionControls(ended, ["operate"]), { controls: ["resume"], input: true });
  assert.deepEqual(sessionControls(ended, ["read"]), { controls: [], input: false });
});

Deno.test("BrowserClient tells of a revoked device and makes a dropped connection unreachable", async () => {
  const refusals: string[] = [];
  const client = new BrowserClient({
    fetch: answer(401, { error: { code: "device_revoked" } }),
    onRefused: (refusal) => refusals.push(refusal),
  });
  assert.equal((await client.get("/health")).status, 401);
  assert.deepEqual(refusals, ["device_revoked"]);
  const away = new BrowserClient({
    fetch: () => Promise.reject(new TypeError("Failed to fetch")),
    onRefused: () => {},
  });
  await assert.rejects(() => away.get("/health"), { code: "unreachable" });
});
