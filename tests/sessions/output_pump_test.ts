import assert from "node:assert/strict";
import { silentLogger } from "../../src/log.ts";
import { pumpSessionOutput } from "../../src/sessions/output_pump.ts";
import { FakeProcess } from "../fakes/spawner.ts";
import { runningSessionRow } from "../helpers/rows.ts";
import { withSessionLog } from "../helpers/session_log.ts";

const spawnRequest = { argv: ["x"], cwd: "/", env: {} };

Deno.test("pumpSessionOutput() records stdout and stderr as output events, the raw artifact too (D9)", async () => {
  await withSessionLog(async ({ home, sessions, events, stored }) => {
    sessions.insert(runningSessionRow("ses_a"));
    events.open("ses_a", 0);
    const process = new FakeProcess(spawnRequest);
    const output = pumpSessionOutput(events, process, {
      sessionId: "ses_a",
      artifactsDir: `${home}/artifacts`,
      log: silentLogger,
      conversation: null,
    });
    process.write("out line\n");
    process.write("err line\n", "stderr");
    process.exit(0);
    await output.drain();
    await events.append("ses_a", "marker", {}); // Durable after the output.
    const recorded = stored.readAfter("ses_a", 0, 10).filter((e) => e.kind === "output")
      .map((e) => JSON.parse(e.payload_json)).sort((a, b) => a.stream.localeCompare(b.stream));
    assert.deepEqual(recorded, [
      { stream: "stderr", data: "err line\n" },
      { stream: "stdout", data: "out line\n" },
    ]);
    const raw = await Deno.readTextFile(`${home}/artifacts/ses_a/output`);
    assert.ok(raw.includes("out line\n") && raw.includes("err line\n"), raw);
  });
});

Deno.test("pumpSessionOutput() hands a protocol session's stdout to its conversation", async () => {
  await withSessionLog(async ({ sessions, events }) => {
    sessions.insert(runningSessionRow("ses_a"));
    events.open("ses_a", 0);
    const process = new FakeProcess(spawnRequest);
    const seen: string[] = [];
    const output = pumpSessionOutput(events, process, {
      sessionId: "ses_a",
      artifactsDir: null,
      log: silentLogger,
      conversation: { onStdout: (text) => seen.push(text), streamedPiece: () => false },
    });
    process.write('{"type":"result"}\n');
    process.exit(0);
    await output.drain();
    assert.equal(seen.join(""), '{"type":"result"}\n');
  });
});
