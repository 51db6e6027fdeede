/** kill -9 of the daemon during a flood, then a restart (issue 3 "Done when", D7, D8). */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SvcClient } from "../../src/client/client.ts";
import { fixtureHarnesses } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { alive, startServe } from "../helpers/process.ts";

type Page = { events: Array<Record<string, unknown>>; nextCursor: { afterSeq: number } };

Deno.test("kill -9 during a flood: served events survive at the same seqs, the session is orphaned", async () => {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  await Deno.writeTextFile(
    `${home}/config.json`,
    JSON.stringify({ harnesses: fixtureHarnesses() }),
  );
  const first = await startServe(home);
  const client = new SvcClient({ socketPath: `${home}/svc.sock` });
  const served: Array<Record<string, unknown>> = [];
  let sessionId = "";
  let grandchildPid = 0;
  try {
    const launched = await client.post<Record<string, unknown>>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "grandchild; flood 100000000",
    });
    assert.equal(launched.status, 201, JSON.stringify(launched.body));
    sessionId = launched.body.id as string;
    let cursor = 0;
    while (served.length < 2000) {
      const page = await client.get<Page>(
        `/sessions/${sessionId}/events?afterSeq=${cursor}&limit=500&waitMs=2000`,
      );
      served.push(...page.body.events);
      cursor = page.body.nextCursor.afterSeq;
      for (const event of page.body.events) {
        const match = /grandchild (\d+)/.exec(event.payload_json as string);
        if (match) grandchildPid = Number(match[1]);
      }
    }
  } finally {
    client.close();
    await first.stop("SIGKILL");
  }
  // The flooding harness may die of SIGPIPE; its idle grandchild (same group) outlives the daemon.
  assert.ok(grandchildPid > 0, `grandchild pid seen in ${served.length} events`);
  assert.ok(alive(grandchildPid), "a leftover of the session outlives kill -9");

  const second = await startServe(home);
  const after = new SvcClient({ socketPath: `${home}/svc.sock` });
  try {
    const record = await after.get<Record<string, unknown>>(`/sessions/${sessionId}`);
    assert.equal(record.body.status, "orphaned");
    assert.equal(record.body.exit_code, null);
    assert.equal(typeof record.body.ended_at, "string");
    const stored: Array<Record<string, unknown>> = [];
    for (let cursor = 0, more = true; more;) {
      const page = await after.get<Page & { hasMore: boolean }>(
        `/sessions/${sessionId}/events?afterSeq=${cursor}&limit=1000`,
      );
      stored.push(...page.body.events);
      cursor = page.body.nextCursor.afterSeq;
      more = page.body.hasMore;
    }
    assert.deepEqual(stored.slice(0, served.length), served, "every served event is still there");
    const ended = stored.at(-1)!;
    assert.equal(ended.kind, "session.ended");
    assert.equal(JSON.parse(ended.payload_json as string).status, "orphaned");
    const seqs = stored.map((e) => e.seq as number);
    assert.deepEqual(seqs, seqs.map((_, i) => i + 1), "gap-free across the crash");
    for (let i = 0; i < 100 && alive(grandchildPid); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(!alive(grandchildPid), "the leftover process group was terminated at start-up");
  } finally {
    after.close();
    await second.stop();
  }
  const db = new DatabaseSync(`${home}/svc.db`);
  assert.equal(
    (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check,
    "ok",
  );
  db.close();
  await removeTree(home);
  await removeTree(project);
});
