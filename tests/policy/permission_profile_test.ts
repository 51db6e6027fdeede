/**
 * Permission profiles (issue 33 item 5, D28): an "always" answer to a codex
 * permissions request grants what was shown and nothing beyond it; a rule of
 * the old shape `{tool: "permissions"}` no longer grants anything.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type ApprovalRule,
  describeRule,
  matchRules,
  prepareRequest,
  proposeRule,
  type RuleSession,
} from "../../src/policy/approval_rules.ts";
import {
  type PermissionProfile,
  profileCovers,
  profileText,
} from "../../src/policy/permission_profile.ts";

const profile = (fields: Partial<PermissionProfile>): PermissionProfile => ({
  network: false,
  read: [],
  write: [],
  ...fields,
});

Deno.test("profileCovers() grants paths under granted ones and network only when granted", () => {
  const granted = profile({ write: ["/home/me/.cache"], read: ["/opt/data"] });
  assert.equal(profileCovers(granted, profile({ write: ["/home/me/.cache/tool/x"] })), true);
  assert.equal(profileCovers(granted, profile({ read: ["/home/me/.cache", "/opt/data/a"] })), true);
  assert.equal(profileCovers(granted, profile({})), true);
  for (
    const escalation of [
      profile({ write: ["/"] }),
      profile({ write: ["/home/me"] }),
      profile({ write: ["/home/me/.cache-other"] }),
      profile({ write: ["/opt/data/a"] }), // read access does not grant writes
      profile({ read: ["/home/me/.ssh"] }),
      profile({ network: true }),
    ]
  ) {
    assert.equal(profileCovers(granted, escalation), false, JSON.stringify(escalation));
  }
  assert.equal(profileCovers(profile({ write: ["/"] }), profile({ write: ["/etc"] })), true);
});

Deno.test("profileText() names what a profile asks for, or says it asks for nothing", () => {
  assert.equal(
    profileText(profile({ network: true, read: ["/a"], write: ["/b", "/c"] })),
    "write /b, /c; read /a; network",
  );
  assert.equal(profileText(profile({})), "nothing");
});

Deno.test("matchRules() scopes a permissions rule to the profile it was made for", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const session: RuleSession = {
      sessionId: "s1",
      harness: "codex",
      projectRoot: root,
      cwd: root,
    };
    const cache = join(root, "cache");
    const decide = async (rules: ApprovalRule[], asked: PermissionProfile) => {
      const target = { kind: "other" as const, command: null, paths: [], profile: asked };
      const prepared = await prepareRequest("permissions", target, session);
      return matchRules(rules, prepared, session)?.id ?? null;
    };
    // What "always" stores for a request that asked to write `cache`: that profile.
    const fields = proposeRule({
      sessionId: "s1",
      projectRoot: root,
      tool: "permissions",
      kind: "other",
      argv: null,
      command: null,
      profile: profile({ write: [cache] }),
    }, "session");
    assert.deepEqual(fields, {
      decision: "allow",
      sessionId: "s1",
      tool: "permissions",
      profile: profile({ write: [cache] }),
    });
    assert.match(describeRule(fields!), /permissions write .*cache/);
    const scoped: ApprovalRule = { ...fields!, id: "apr_scoped", createdAt: "t" };
    assert.equal(await decide([scoped], profile({ write: [join(cache, "a")] })), "apr_scoped");
    assert.equal(await decide([scoped], profile({ write: ["/"] })), null);
    assert.equal(await decide([scoped], profile({ write: [cache], network: true })), null);
    assert.equal(await decide([scoped], profile({ read: ["/etc"] })), null);
    // A relative path is taken from the session's cwd, `..` and all.
    assert.equal(await decide([scoped], profile({ write: ["cache/../other"] })), null);
    // The old shape, stored before profiles: it no longer grants a permissions request.
    const unscoped: ApprovalRule = {
      id: "apr_old",
      decision: "allow",
      tool: "permissions",
      createdAt: "t",
    };
    assert.equal(await decide([unscoped], profile({ write: [cache] })), null);
    assert.equal(await decide([{ ...unscoped, tool: "other" }], profile({})), null);
    // Deny rules stay broad; a profile rule never answers a request of another kind.
    assert.equal(
      await decide([scoped, { ...unscoped, id: "apr_no", decision: "deny" }], profile({})),
      "apr_no",
    );
    const shell = await prepareRequest(
      "permissions",
      { kind: "other", command: null, paths: [] },
      session,
    );
    assert.equal(matchRules([scoped], shell, session), null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
