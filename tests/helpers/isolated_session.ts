import assert from "node:assert/strict";
import { type TestDaemon, waitForEnd } from "./daemon.ts";

// deno-lint-ignore no-explicit-any
type AnyJson = Record<string, any>;

/** An ended isolated session of the fixture harness in `repo`: its id and worktree path (D20). */
export async function isolatedSession(
  t: Pick<TestDaemon, "client">,
  repo: string,
): Promise<{ id: string; path: string }> {
  const launch = await t.client.post<AnyJson>("/sessions", {
    projectRoot: repo,
    harness: "fixture",
    prompt: "exit 0",
    isolation: "worktree",
  });
  assert.equal(launch.status, 201, JSON.stringify(launch.body));
  await waitForEnd(t.client, launch.body.id);
  return { id: launch.body.id, path: launch.body.worktree.path };
}
