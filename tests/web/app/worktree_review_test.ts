import assert from "node:assert/strict";
import { UiActions } from "../../../src/ui/actions.ts";
import { pendingSession, type SessionRecord } from "../../../src/ui/model.ts";
import { hrefOf, routeOf } from "../../../src/web/app/route.ts";
import {
  discardQuestion,
  landLabel,
  loadReview,
  moreDiff,
  offersDiff,
} from "../../../src/web/app/worktree_review.ts";
import type { LandCheck } from "../../../src/worktrees/land_types.ts";

const NOW = "2026-01-01T00:00:00.000Z";

function isolated(landedAt: string | null = null): SessionRecord {
  return {
    ...pendingSession("ses_1", NOW),
    worktree: { path: "/w", branch: "svc/ses_1", repository: "/repo", landedAt },
  };
}

const check = (over: Partial<LandCheck> = {}): LandCheck => ({
  sessionId: "ses_1",
  clean: true,
  conflicts: [],
  bothChanged: [],
  branch: "refs/heads/main",
  headCommit: "a".repeat(40),
  verify: { configured: false },
  ...over,
});

/** Actions over a fake daemon: the check, and the diff `pages` keyed by offset. */
function actions(
  landCheck: { status: number; body: unknown },
  pages: Record<number, { data: string; nextOffset: number | null } | null>,
) {
  const paths: string[] = [];
  const ui = new UiActions(
    {
      post: () => Promise.reject(new Error("no posts")),
      get: <T>(path: string) => {
        paths.push(path);
        if (path.endsWith("/worktree/check")) {
          return Promise.resolve(
            { ok: landCheck.status === 200, ...landCheck } as {
              ok: boolean;
              status: number;
              body: T;
            },
          );
        }
        const offset = Number(new URL(path, "http://x").searchParams.get("offset"));
        const page = pages[offset];
        return Promise.resolve(
          (page === null
            ? { ok: false, status: 409, body: { error: { message: "worktree removed" } } }
            : { ok: true, status: 200, body: { diff: page } }) as {
              ok: boolean;
              status: number;
              body: T;
            },
        );
      },
    } as unknown as ConstructorParameters<typeof UiActions>[0],
  );
  return { ui, paths };
}

Deno.test("the diff view is offered for an isolated session to an operate device only", () => {
  assert.ok(offersDiff(isolated(), ["operate"]));
  assert.ok(!offersDiff(isolated(), ["approve"]));
  assert.ok(!offersDiff(isolated(), ["read"]));
  assert.ok(!offersDiff(pendingSession("ses_2", NOW), ["operate"]));
});

Deno.test("routeOf() and hrefOf() know /#/s/<id>/diff", () => {
  const route = { view: "diff", sessionId: "ses_a b" } as const;
  assert.equal(hrefOf(route), "/#/s/ses_a%20b/diff");
  assert.deepEqual(routeOf({ pathname: "/", hash: hrefOf(route).slice(1) }), route);
  assert.deepEqual(routeOf({ pathname: "/", hash: "#/s/ses_1" }), {
    view: "session",
    sessionId: "ses_1",
  });
});

Deno.test("loadReview(): a clean land on a branch offers the three modes; moreDiff() pages on", async () => {
  const { ui, paths } = actions(
    { status: 200, body: { check: check() } },
    {
      0: { data: "diff --git a/x b/x\n", nextOffset: 19 },
      19: { data: "+more\n", nextOffset: null },
    },
  );
  const review = await loadReview(ui, "ses_1");
  assert.equal(review.check, `Lands cleanly on main (${"a".repeat(12)})`);
  assert.deepEqual(review.modes, ["squash", "merge", "rebase"]);
  assert.deepEqual(review.modes.map(landLabel), [
    "Land (squash)",
    "Land (merge)",
    "Land (rebase)",
  ]);
  assert.equal(review.nextOffset, 19);
  const all = await moreDiff(ui, "ses_1", review);
  assert.equal(all.diff, "diff --git a/x b/x\n+more\n");
  assert.equal(all.nextOffset, null);
  assert.equal(await moreDiff(ui, "ses_1", all), all);
  assert.ok(paths.some((path) => path.includes("/worktree/diff?offset=19&")), paths.join());
});

Deno.test("loadReview(): a conflict or a detached HEAD offers no land; a failed diff says why", async () => {
  const conflicted = await loadReview(
    actions({ status: 200, body: { check: check({ clean: false, conflicts: ["x"] }) } }, {
      0: { data: "d", nextOffset: null },
    }).ui,
    "ses_1",
  );
  assert.match(conflicted.check, /^Conflicts with main .* in 1 file: x$/);
  assert.deepEqual(conflicted.modes, []);
  const detached = await loadReview(
    actions({ status: 200, body: { check: check({ branch: null }) } }, { 0: null }).ui,
    "ses_1",
  );
  assert.deepEqual(detached.modes, []);
  assert.equal(detached.diff, null);
  assert.equal(detached.problem, "worktree removed");
  const refused = await loadReview(
    actions({ status: 404, body: { error: { message: "no worktree" } } }, {
      0: { data: "", nextOffset: null },
    }).ui,
    "ses_1",
  );
  assert.equal(refused.check, "no worktree");
  assert.deepEqual(refused.modes, []);
});

Deno.test("discardQuestion(): work never landed is forced and said to be lost", () => {
  const never = discardQuestion(isolated());
  assert.equal(never.force, true);
  assert.match(never.warning, /^Its work was never landed/);
  assert.match(never.question, /svc\/ses_1/);
  const landed = discardQuestion(isolated(NOW));
  assert.equal(landed.force, false);
  assert.equal(landed.warning, "Its work was landed");
});
