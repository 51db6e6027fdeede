/**
 * The slow variant of tests/faults/store_faults_test.ts (`deno task
 * test:faults`): the store's disk stays full for many retry rounds while
 * several sessions flood and readers long-poll, then the daemon is killed
 * -9 while still degraded, space returns, and it restarts: every served
 * event is still there at its seq, no stored stream has a gap, sessions are
 * orphaned, and the store passes `integrity_check`. Needs root (tmpfs).
 */
import assert from "node:assert/strict";
import { canMount, fillDisk, releaseTmpfsHome, tmpfsHome } from "../faults/disk.ts";
import {
  assertWholeLog,
  delay,
  eventually,
  faultRig,
  follow,
  integrityCheck,
  type Json,
  outputText,
  readAll,
  type ServedEvent,
} from "../faults/fault_rig.ts";
import { get } from "../fuzz/raw_client.ts";
import { HANG_MS, withinHang } from "../helpers/hang.ts";
import { runSlow } from "./slow_gate.ts";

const DEGRADED_MS = 8000;

/** Lines of a stream must be `line i` (or `err i`) for consecutive i of one parity: no gap. */
function assertNoGap(text: string, prefix: string, first: number, step: number): number {
  const lines = text.split("\n").filter((line) => line.startsWith(prefix));
  lines.forEach((line, index) => assert.equal(line, `${prefix}${first + index * step}`));
  return lines.length;
}

Deno.test({
  name: "a long full disk, kill -9 while degraded, restart once space returns",
  ignore: !runSlow || !canMount,
  async fn() {
    const home = await tmpfsHome("16m");
    try {
      await using rig = await faultRig({ home });
      const prompts = ["flood 100000000", "errflood 100000000", "flood 100000000"];
      const ids: string[] = [];
      for (const prompt of prompts) {
        const launched = await rig.client.post<Json>("/sessions", {
          projectRoot: rig.project,
          harness: "fixture",
          prompt,
        });
        assert.equal(launched.status, 201, JSON.stringify(launched.body));
        ids.push(launched.body.id);
      }
      // Readers see a good part of each flood before the disk fills (three floods fill 16 MiB in
      // a few seconds, unevenly: one had only 353 events stored when it filled).
      const served = new Map<string, ServedEvent[]>();
      await Promise.all(ids.map(async (id) => {
        served.set(id, await follow(rig.client, id, (events) => events.length >= 200));
      }));
      const filler = await fillDisk(home);
      await eventually("the store to degrade", async () => {
        const health = await get(rig.socket, "/api/v1/health", { timeoutMs: HANG_MS });
        return (health.body as Json).store === "degraded" ? true : undefined;
      }, 15_000);

      // Readers keep long-polling through the degraded period: every long-poll answers (none
      // hangs on the failing store).
      const deadline = Date.now() + DEGRADED_MS;
      await Promise.all(ids.map(async (id) => {
        const events = served.get(id)!;
        let cursor = events.at(-1)!.seq;
        while (Date.now() < deadline) {
          const page = await withinHang(
            rig.client.get<Json>(
              `/sessions/${id}/events?afterSeq=${cursor}&limit=1000&waitMs=1000`,
            ),
            HANG_MS,
            "a long-poll while the store is degraded",
          );
          assert.equal(page.status, 200);
          events.push(...page.body.events);
          cursor = page.body.nextCursor.afterSeq;
        }
      }));
      const health = await get(rig.socket, "/api/v1/health", { timeoutMs: HANG_MS });
      assert.equal((health.body as Json).ok, false, "still degraded after many retries");

      await rig.kill9();
      await Deno.remove(filler);
      await rig.start();
      assert.equal((await rig.client.health()).ok, true);
      for (const [index, id] of ids.entries()) {
        const record = await rig.client.get<Json>(`/sessions/${id}`);
        assert.equal(record.body.status, "orphaned");
        const stored = await readAll(rig.client, id);
        assert.deepEqual(stored.slice(0, served.get(id)!.length), served.get(id));
        assertWholeLog(stored);
        if (prompts[index].includes("errflood")) {
          assertNoGap(outputText(stored, "stderr"), "err ", 0, 1);
        } else {
          assertNoGap(outputText(stored, "stdout"), "line ", 0, 2);
          assertNoGap(outputText(stored, "stderr"), "line ", 1, 2);
        }
      }
      await delay(100);
      await rig.stop();
      assert.equal(integrityCheck(home), "ok");
    } finally {
      await releaseTmpfsHome(home);
    }
  },
});
