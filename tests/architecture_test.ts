/**
 * The domain does not depend on the HTTP layer (issue 15): sessions,
 * automations, events, store, agents, approvals, worktrees, notify, policy
 * and config throw the one `ServiceError` of src/errors.ts and validate
 * with src/validate.ts; only api/ maps errors to the envelope.
 */
import assert from "node:assert/strict";

const DOMAIN = [
  "agents",
  "approvals",
  "automations",
  "config",
  "events",
  "notify",
  "policy",
  "sessions",
  "store",
  "worktrees",
];

Deno.test("no domain module imports from src/api/", async () => {
  const offenders: string[] = [];
  for (const area of DOMAIN) {
    const dir = new URL(`../src/${area}/`, import.meta.url);
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.name.endsWith(".ts")) continue;
      const text = await Deno.readTextFile(new URL(entry.name, dir));
      if (/from "\.\.\/api\//.test(text)) offenders.push(`src/${area}/${entry.name}`);
    }
  }
  assert.deepEqual(offenders, []);
});
