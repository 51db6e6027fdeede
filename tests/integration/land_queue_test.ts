/**
 * Landing as a pipeline end to end (D34): the real socket, a real repository
 * and the real `git`. The "agents'" work is written in the worktrees by the
 * test after the fixture sessions end.
 */
import assert from "node:assert/strict";
import {
  allEvents,
  fixtureHarnesses,
  freePort,
  restartTestDaemon,
  startTestDaemon,
  type TestDaemon,
} from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { isolatedSession } from "../helpers/isolated_session.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";
import { openSse, type SseReader } from "../helpers/sse.ts";

// deno-lint-ignore no-explicit-any
type AnyJson = Record<string, any>;

/** An ended isolated session whose worktree holds `files` (uncommitted). */
async function sessionWith(
  t: TestDaemon,
  repo: string,
  files: Record<string, string>,
): Promise<string> {
  const { id, path } = await isolatedSession(t, repo);
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${path}/${name}`, text);
  }
  return id;
}

/** Everything of the checkout a refused land or a check must leave as it was. */
async function checkoutState(repo: string) {
  return {
    status: await git(repo, "status", "--porcelain=v2", "--branch", "--untracked-files=all"),
    refs: await git(repo, "for-each-ref"),
    index: await Deno.readFile(`${repo}/.git/index`),
    files: await Deno.readTextFile(`${repo}/a.txt`),
  };
}

/** The data of the feed's next `event` notice (bounded: 10 s). */
async function nextNotice(feed: SseReader, event: string): Promise<AnyJson> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No ${event} notice within 10 s`)), 10_000);
  });
  const found = (async () => {
    for (;;) {
      const message = await feed.next();
      if (message === null) throw new Error(`The feed ended before ${event}`);
      if (message.event === event) return JSON.parse(message.data) as AnyJson;
    }
  })();
  try {
    return await Promise.race([found, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls the queue until `done` holds of its items (bounded: 60 s). */
async function queueUntil(t: TestDaemon, done: (items: AnyJson[]) => boolean): Promise<AnyJson[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const items = (await t.client.get<AnyJson>("/land-queue")).body.items as AnyJson[];
    if (done(items)) return items;
    if (Date.now() > deadline) {
      throw new Error(`The queue never got there: ${JSON.stringify(items)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function withRepo(body: (repo: string, scratch: string) => Promise<void>) {
  const repo = await gitRepository();
  const scratch = await Deno.realPath(await tempHome());
  try {
    await body(repo, scratch);
  } finally {
    await removeTree(repo);
    await removeTree(scratch);
  }
}

const config = { harnesses: fixtureHarnesses() };

Deno.test("check: clean or the conflicting files, and nothing of the checkout written (D34)", async () => {
  await withRepo(async (repo) => {
    await using t = await startTestDaemon({ configJson: config });
    const clean = await sessionWith(t, repo, { "new.txt": "new\n" });
    const conflicting = await sessionWith(t, repo, {
      "a.txt": "agent\n",
      "README.md": "# Agent\n",
    });
    await Deno.writeTextFile(`${repo}/a.txt`, "owner\n");
    await git(repo, "commit", "-q", "-am", "owner: a");
    const before = await checkoutState(repo);
    const good = await t.client.get<AnyJson>(`/sessions/${clean}/worktree/check`);
    assert.equal(good.status, 200, JSON.stringify(good.body));
    assert.deepEqual(good.body.check, {
      sessionId: clean,
      branch: "refs/heads/main",
      headCommit: (await git(repo, "rev-parse", "HEAD")).trim(),
      clean: true,
      conflicts: [],
      bothChanged: [],
      verify: { configured: false },
    });
    const bad = await t.client.get<AnyJson>(`/sessions/${conflicting}/worktree/check`);
    assert.equal(bad.status, 200, JSON.stringify(bad.body));
    assert.equal(bad.body.check.clean, false);
    assert.deepEqual(bad.body.check.conflicts, ["a.txt"]);
    assert.deepEqual(bad.body.check.bothChanged, ["a.txt"]);
    assert.deepEqual(await checkoutState(repo), before);
  });
});

Deno.test("verify: green lands, red is 409 verify_failed with the tail and the checkout byte-identical (D34)", async () => {
  await withRepo(async (repo) => {
    await using t = await startTestDaemon({
      configJson: {
        ...config,
        projects: [{ root: repo, land: { verify: { command: ["false"] } } }],
      },
    });
    const id = await sessionWith(t, repo, { "one.txt": "one\n" });
    const checked = await t.client.get<AnyJson>(`/sessions/${id}/worktree/check`);
    assert.equal(checked.body.check.verify.configured, true);
    const before = await checkoutState(repo);
    const red = await t.client.post<AnyJson>(`/sessions/${id}/worktree/land`, {
      mode: "squash",
      verify: { command: ["sh", "-c", "test -f one.txt && echo 'tests: 3 failed' && exit 3"] },
    });
    assert.equal(red.status, 409, JSON.stringify(red.body));
    assert.equal(red.body.error.code, "verify_failed");
    assert.equal(red.body.error.details.exitCode, 3);
    assert.match(red.body.error.details.tail, /tests: 3 failed/);
    assert.deepEqual(await checkoutState(repo), before);
    const configured = await t.client.post<AnyJson>(`/sessions/${id}/worktree/land`, {
      mode: "squash",
    });
    assert.equal(configured.body.error.code, "verify_failed", "the project's verify runs");
    assert.deepEqual(await checkoutState(repo), before);
    const green = await t.client.post<AnyJson>(`/sessions/${id}/worktree/land`, {
      mode: "squash",
      verify: { command: ["sh", "-c", "test -f one.txt"] },
    });
    assert.equal(green.status, 200, JSON.stringify(green.body));
    assert.equal(await Deno.readTextFile(`${repo}/one.txt`), "one\n");
    const verifyEvents = (await allEvents(t.client, id)).filter((e) =>
      e.kind === "worktree.verify"
    );
    assert.ok(
      verifyEvents.some((e) =>
        e.payload.step === "output" && /tests: 3 failed/.test(String(e.payload.data))
      ),
    );
    assert.deepEqual(
      verifyEvents.filter((e) => e.payload.step === "end").map((e) => e.payload.exitCode),
      [3, 1, 0],
    );
    assert.equal(
      await git(repo, "worktree", "list", "--porcelain").then((list) =>
        list.split("\n").filter((line) => line.startsWith("worktree ")).length
      ),
      2,
      "the scratch worktrees are gone",
    );
  });
});

Deno.test("queue: three land in order, each verify sees the lands before it (D34)", async () => {
  await withRepo(async (repo, scratch) => {
    await using t = await startTestDaemon({ configJson: config });
    const ids = [
      await sessionWith(t, repo, { "one.txt": "1\n" }),
      await sessionWith(t, repo, { "two.txt": "2\n" }),
      await sessionWith(t, repo, { "three.txt": "3\n" }),
    ];
    const seen = `${scratch}/seen`;
    const queued = await t.client.post<AnyJson>("/land-queue", {
      items: ids,
      mode: "squash",
      verify: { command: ["sh", "-c", `ls *.txt | tr '\\n' ' ' >> ${seen}; echo >> ${seen}`] },
    });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    assert.deepEqual(queued.body.items.map((item: AnyJson) => item.sessionId), ids);
    const items = await queueUntil(t, (all) => all.every((item) => item.state === "landed"));
    assert.deepEqual(
      (await Deno.readTextFile(seen)).trim().split("\n").map((line) => line.trim()),
      [
        "a.txt one.txt",
        "a.txt one.txt two.txt",
        "a.txt one.txt three.txt two.txt",
      ],
    );
    const log = (await git(repo, "log", "--format=%H", "-3")).trim().split("\n").reverse();
    assert.deepEqual(items.map((item) => item.landedCommit), log);
  });
});

Deno.test("queue: a failure stops it until cancelled, which /stream says; TCP is refused (D34, D23)", async () => {
  await withRepo(async (repo) => {
    const port = freePort();
    await using t = await startTestDaemon({
      configJson: config,
      tcp: { hostname: "127.0.0.1", port },
    });
    const ids = [
      await sessionWith(t, repo, { "a.txt": "first\n" }),
      await sessionWith(t, repo, { "a.txt": "second\n" }),
      await sessionWith(t, repo, { "three.txt": "3\n" }),
    ];
    await t.client.post<AnyJson>("/land-queue", { items: ids, mode: "squash" });
    let items = await queueUntil(t, (all) => all[1].state === "failed");
    assert.deepEqual(items.map((item) => item.state), ["landed", "failed", "queued"]);
    assert.equal(items[1].lastError.code, "land_conflict");
    assert.deepEqual(items[1].lastError.files, ["a.txt"]);
    const feed = await openSse(t.socket, "/stream");
    try {
      const cancelled = await t.client.post<AnyJson>(`/land-queue/${items[1].itemId}/cancel`, {});
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.deepEqual(await nextNotice(feed, "land.cancelled"), {
        itemId: items[1].itemId,
        sessionId: ids[1],
      });
    } finally {
      await feed.close();
    }
    items = await queueUntil(t, (all) => all[2].state === "landed");
    assert.deepEqual(items.map((item) => item.state), ["landed", "cancelled", "landed"]);
    const again = await t.client.post<AnyJson>(`/land-queue/${items[0].itemId}/cancel`, {});
    assert.equal(again.body.error.code, "land_item_busy");
    for (
      const [method, path, body] of [
        ["GET", "/api/v1/land-queue", undefined],
        ["POST", "/api/v1/land-queue", JSON.stringify({ items: ids, mode: "squash" })],
        ["GET", `/api/v1/sessions/${ids[0]}/worktree/check`, undefined],
      ] as const
    ) {
      const tcp = await rawHttp(
        { hostname: "127.0.0.1", port },
        httpRequest(method, path, {
          host: `127.0.0.1:${port}`,
          ...(body && { body, headers: { "content-type": "application/json" } }),
        }),
      );
      assert.equal(tcp.status, 403, path);
    }
  });
});

Deno.test("queue: a restart mid-queue lands each item exactly once (D34)", async () => {
  await withRepo(async (repo, scratch) => {
    const home = await tempHome();
    const ids: string[] = [];
    try {
      {
        await using t = await startTestDaemon({ home, configJson: config });
        ids.push(await sessionWith(t, repo, { "one.txt": "1\n" }));
        ids.push(await sessionWith(t, repo, { "two.txt": "2\n", "hold.txt": "\n" }));
        ids.push(await sessionWith(t, repo, { "three.txt": "3\n" }));
        // The second item's verify holds until the daemon restarted.
        const hold = `if [ -f hold.txt ] && [ ! -f ${scratch}/restarted ]; then ` +
          `touch ${scratch}/holding; sleep 120; fi`;
        await t.client.post<AnyJson>("/land-queue", {
          items: ids,
          mode: "squash",
          verify: { command: ["sh", "-c", hold] },
        });
        await queueUntil(t, (all) => all[1].state === "verifying");
        for (const deadline = Date.now() + 30_000; !await exists(`${scratch}/holding`);) {
          assert.ok(Date.now() < deadline, "the verify never started");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      await Deno.writeTextFile(`${scratch}/restarted`, "");
      await using t = await restartTestDaemon({ home, configJson: config });
      const items = await queueUntil(t, (all) => all.every((item) => item.state === "landed"));
      // Exactly three lands on top of the first commit: none twice, none lost.
      assert.equal((await git(repo, "rev-list", "--count", "HEAD")).trim(), "4");
      const subjects = (await git(repo, "log", "--format=%s", "-4")).trim().split("\n");
      assert.equal(subjects[3], "initial");
      assert.equal(new Set(items.map((item) => item.landedCommit)).size, 3);
    } finally {
      await removeTree(home);
    }
  });
});

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}
