/**
 * A paused stream reader costs the daemon neither memory nor events (issue
 * 11, D19): while a session writes 100 MB and the reader reads nothing, the
 * daemon's RSS stays bounded; then the reader receives every event.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SvcClient } from "../../src/client/client.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { startServe } from "../helpers/process.ts";

type Json = Record<string, unknown>;

/** The daemon's resident set, in MiB (Linux). */
function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/**
 * The bound this test holds the daemon to while 100 MB pass a paused reader.
 * Measured on 2 cores: the same 100 MB with no reader grows the daemon's RSS
 * by ≈ 60 MiB (ingestion: the 8 MiB queue high-water mark, V8 heap slack);
 * with a paused reader by 68–143 MiB over runs. The reader's own share (one
 * 128-event batch, socket buffers) does not account for all of that: the
 * spread is an open question (issue 11). The bound is what keeps
 * a stalled client from costing the daemon the whole stream.
 */
const MAX_GROWTH_MIB = 200;
const READER = new URL("../fixtures/paused_sse_reader.ts", import.meta.url).pathname;
const TOTAL_BYTES = 100 * 1024 * 1024;

Deno.test({
  name: "a paused reader of a 100 MB session keeps the daemon's RSS bounded, then gets it all",
  ignore: Deno.build.os !== "linux",
}, async () => {
  const home = await tempHome();
  const project = await Deno.realPath(await tempHome());
  const line = "x".repeat(1023) + "\n";
  await Deno.writeTextFile(
    join(home, "config.json"),
    JSON.stringify({
      harnesses: {
        big: {
          command: ["sh", "-c", `yes '${line.trimEnd()}' | head -c ${TOTAL_BYTES}`],
          prompt: "none",
        },
      },
    }),
  );
  const serve = await startServe(home);
  const client = new SvcClient({ socketPath: join(home, "svc.sock") });
  try {
    const pid = (await client.get<Json>("/health")).body.pid as number;
    const before = rssMiB(pid);
    const launched = await client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "big",
      prompt: "go",
    });
    const id = launched.body.id as string;
    // A reader in another process that connects, then reads nothing until told on stdin:
    // paused at the socket, as a stalled client is. It then copies the stream to its stdout.
    const reader = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", READER, join(home, "svc.sock"), id],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    let peak = before;
    for (;;) {
      peak = Math.max(peak, rssMiB(pid));
      const record = (await client.get<Json>(`/sessions/${id}`)).body;
      if (record.status !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    peak = Math.max(peak, rssMiB(pid));
    console.log(`daemon RSS ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB peak`);
    assert.ok(peak - before < MAX_GROWTH_MIB, `RSS grew ${(peak - before).toFixed(0)} MiB`);

    // Now read it all: every output byte arrives, seqs without a gap, then `end`.
    await reader.stdin.close(); // Resume reading.
    const frames = readFrames(reader.stdout);
    let bytes = 0;
    let lastId = 0;
    for await (const frame of frames) {
      const id = /^id: (\d+)$/m.exec(frame)?.[1];
      if (frame.startsWith("event: end")) {
        assert.equal(JSON.parse(frame.slice(frame.indexOf("data: ") + 6)).lastSeq, lastId);
        break;
      }
      if (id === undefined) continue;
      assert.equal(Number(id), lastId + 1, "no gap");
      lastId = Number(id);
      if (lastId % 200 === 0) console.log("at", lastId, bytes);
      if (/^event: output$/m.test(frame)) {
        const record = JSON.parse(frame.slice(frame.indexOf("data: ") + 6));
        bytes += new TextEncoder().encode(JSON.parse(record.payload_json).data).length;
      }
    }
    await reader.stdout.cancel().catch(() => {});
    await reader.status;
    assert.equal(bytes, TOTAL_BYTES, "every byte reached the reader");
  } finally {
    client.close();
    await serve.stop();
    await removeTree(home);
    await removeTree(project);
  }
});

/** SSE frames of a stream body. */
async function* readFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let text = "";
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    text += chunk;
    let start = 0;
    for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n", start)) {
      yield text.slice(start, end);
      start = end + 2;
    }
    text = text.slice(start);
  }
}
