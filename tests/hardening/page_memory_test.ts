/**
 * Large event pages held for slow readers are bounded (issue 13: 200 parallel
 * 4 MiB page reads took the daemon to 1.3 GB). 200 clients ask for a 4 MiB
 * page and read nothing; the daemon's RSS stays within the budget (64 MiB of
 * pages, docs/api.md §10) plus its working set, and every client later gets
 * its whole page.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SvcClient } from "../../src/client/client.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { startServe } from "../helpers/process.ts";

type Json = Record<string, unknown>;

function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/**
 * Measured on 2 cores: growth ≈ 157 MiB with the budget (64 MiB of pages in
 * flight as bytes, the rest waiting before they are built; the pages'
 * strings and V8 slack), ≈ 940 MiB without it (every page held at once).
 */
const MAX_GROWTH_MIB = 400;
const READERS = 200;

Deno.test({
  name: "200 stalled readers of 4 MiB pages keep the daemon's RSS bounded, then get their pages",
  ignore: Deno.build.os !== "linux",
}, async () => {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  await Deno.writeTextFile(
    join(home, "config.json"),
    JSON.stringify({
      harnesses: {
        big: { command: ["sh", "-c", "yes 0123456789abcdef | head -c 4000000"], prompt: "none" },
      },
    }),
  );
  const serve = await startServe(home);
  const client = new SvcClient({ socketPath: join(home, "svc.sock") });
  const conns: Deno.UnixConn[] = [];
  try {
    const pid = (await client.get<Json>("/health")).body.pid as number;
    const launched = await client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "big",
      prompt: "go",
    });
    const id = launched.body.id as string;
    for (;;) {
      const record = await client.get<Json>(`/sessions/${id}`);
      if (record.body.status !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const before = rssMiB(pid);
    const request = new TextEncoder().encode(
      `GET /api/v1/sessions/${id}/events?afterSeq=0&limit=1000 HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    );
    for (let i = 0; i < READERS; i++) {
      const conn = await Deno.connect({ transport: "unix", path: join(home, "svc.sock") });
      await conn.write(request);
      conns.push(conn);
    }
    let peak = before;
    for (let i = 0; i < 30; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      peak = Math.max(peak, rssMiB(pid));
    }
    assert.ok(
      peak - before <= MAX_GROWTH_MIB,
      `RSS grew by ${Math.round(peak - before)} MiB (from ${Math.round(before)} MiB)`,
    );
    // Every reader then gets its whole page (one by one: the budget lets the rest through).
    let complete = 0;
    await Promise.all(conns.map(async (conn) => {
      const buffer = new Uint8Array(256 * 1024);
      let head = "";
      let tail = "";
      for (;;) {
        const read = await conn.read(buffer);
        if (read === null) break;
        const chunk = new TextDecoder().decode(buffer.subarray(0, read));
        if (head.length < 16) head += chunk.slice(0, 16);
        tail = (tail + chunk).slice(-64);
        if (tail.endsWith("\r\n0\r\n\r\n")) break; // The end of a chunked body.
      }
      if (head.startsWith("HTTP/1.1 200")) complete++;
    }));
    assert.equal(complete, READERS);
    console.log(`RSS before ${Math.round(before)} MiB, peak ${Math.round(peak)} MiB`);
  } finally {
    for (const conn of conns) {
      try {
        conn.close();
      } catch { /* closed */ }
    }
    client.close();
    await serve.stop();
    await removeTree(home);
    await removeTree(project);
  }
});
