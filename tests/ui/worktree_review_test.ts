import assert from "node:assert/strict";
import { type LandCheck, UiActions } from "../../src/ui/actions.ts";
import { discardConfirm, landConfirm, reviewStep } from "../../src/ui/worktree_review.ts";
import { CLEAN_CHECK, session } from "./fixtures.ts";

const isolated = session({
  id: "ses_01TREE00000000000000000000",
  title: "Fix the parser",
  worktree: { path: "/w/tree", branch: "svc/session/x", repository: "/home/me/project" },
});
const CLEAN: LandCheck = CLEAN_CHECK;

function recording() {
  const posts: Array<{ path: string; body: unknown }> = [];
  const client = {
    get: <T>() => Promise.resolve({ status: 200, ok: true, body: { check: CLEAN } as T }),
    post: <T>(path: string, body: unknown) => {
      posts.push({ path, body });
      return Promise.resolve({ status: 200, ok: true, body: {} as T });
    },
  };
  return { posts, actions: new UiActions(client) };
}

Deno.test("landConfirm() shows the check, then asks squash, merge or rebase (issue 38 item 10, D34)", async () => {
  const { posts, actions } = recording();
  const ask = landConfirm(isolated, { ...CLEAN, verify: { configured: true } }, actions);
  assert.match(
    ask.lines[0],
    /^Land the work of ses_01TREE\S+ \(svc\/session\/x\) on main of \/home\/me\/project\?$/,
  );
  assert.ok(ask.lines.includes("  checked against the checkout's HEAD: it lands cleanly"));
  assert.ok(ask.lines.includes("  the project's verify runs on the result first"));
  assert.match(ask.lines.at(-1)!, /s squash \(one commit: "Fix the parser"\) · m merge · r rebase/);
  assert.deepEqual(ask.keys, { s: "squash", m: "merge", r: "rebase" });
  assert.deepEqual(await ask.run("rebase"), { ok: true, message: "Landed (rebase)" });
  assert.deepEqual(posts, [{
    path: `/sessions/${isolated.id}/worktree/land`,
    body: { mode: "rebase" },
  }]);
});

Deno.test("landConfirm() offers no land when it would conflict or HEAD is detached", () => {
  const { actions } = recording();
  const conflict = landConfirm(
    isolated,
    { ...CLEAN, clean: false, conflicts: ["a.txt", "b\x1b.txt"], bothChanged: ["c.txt"] },
    actions,
  );
  assert.ok(
    conflict.lines.includes("  it would conflict with the checkout's HEAD in: a.txt, b^[.txt"),
  );
  assert.ok(conflict.lines.includes("  changed on both sides: c.txt"));
  assert.deepEqual(conflict.keys, {});
  const detached = landConfirm(isolated, { ...CLEAN, branch: null }, actions);
  assert.ok(detached.lines.includes("  the checkout's HEAD is detached: check out a branch first"));
  assert.deepEqual(detached.keys, {});
});

Deno.test("discardConfirm() forces only what it said would be lost", async () => {
  const { posts, actions } = recording();
  const unlanded = discardConfirm(isolated, actions);
  assert.match(unlanded.lines.join("\n"), /never landed: discarding loses it for good/);
  await unlanded.run();
  const landed = session({
    ...isolated,
    worktree: { ...isolated.worktree!, landedAt: "2026-11-27T11:00:00Z" },
  });
  await discardConfirm(landed, actions).run();
  assert.deepEqual(posts.map((post) => post.body), [{ force: true }, { force: false }]);
});

Deno.test("reviewStep() needs a worktree; L checks before it asks", async () => {
  const { actions } = recording();
  assert.deepEqual(await reviewStep("land", session({ id: "ses_plain" }), actions), {
    message: { ok: false, message: "This session has no worktree" },
  });
  const step = await reviewStep("land", isolated, actions);
  assert.ok("confirm" in step);
  assert.match(step.confirm.lines.join("\n"), /lands cleanly/);
});
