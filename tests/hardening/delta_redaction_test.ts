/**
 * A key the model writes in token-sized deltas reaches no reader and no stored event (issue 33
 * item 2, D29): the scripted claude agent spells it out three characters a delta, and the live
 * stream is read over the socket and over the TCP listener.
 */
import assert from "node:assert/strict";
import { allEvents, freePort, startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { agentConfig, launchAgent, waitForKind } from "../helpers/scripted_agent.ts";
import { openSse, type SseMessage } from "../helpers/sse.ts";

const SECRET = "ghp_" + "Zq7".repeat(12);
const REPLY = `Here is the token: ${SECRET} and keep it safe.`;

/** A stream's frames until its `end` frame. */
async function readToEnd(next: () => Promise<SseMessage | null>): Promise<SseMessage[]> {
  const frames: SseMessage[] = [];
  for (let frame = await next(); frame !== null; frame = await next()) {
    frames.push(frame);
    if (frame.event === "end") break;
  }
  return frames;
}

/** The text of the `agent.message.delta` frames in a raw SSE body. */
function deltaTexts(body: string): string[] {
  return body.split("\n\n").filter((frame) => frame.startsWith("event: agent.message.delta"))
    .map((frame) => {
      const record = JSON.parse(frame.slice(frame.indexOf("data: ") + 6));
      return JSON.parse(record.payload_json).text;
    });
}

Deno.test("a key streamed in token-sized deltas is redacted for every reader and in the log", async () => {
  const port = freePort();
  await using t = await startTestDaemon({
    configJson: agentConfig(),
    tcp: { hostname: "127.0.0.1", port },
  });
  const project = await Deno.realPath(await tempHome());
  try {
    const id = await launchAgent(t, project, { prompt: "hello" });
    await waitForKind(t, id, "agent.turn", 1);
    const socketReader = await openSse(t.socket, `/sessions/${id}/events/stream`);
    const tcpResponse = await fetch(`http://127.0.0.1:${port}/api/v1/sessions/${id}/events/stream`);
    assert.equal(tcpResponse.status, 200);
    const tcpBody = tcpResponse.text();
    await t.client.post(`/sessions/${id}/input`, { data: `spell 3 ${REPLY}` });
    await waitForKind(t, id, "agent.turn", 2);
    await t.client.post(`/sessions/${id}/close`, {});
    await waitForEnd(t.client, id);

    const frames = await readToEnd(socketReader.next);
    await socketReader.close();
    const overSocket = frames.filter((frame) => frame.event === "agent.message.delta")
      .map((frame) => JSON.parse(JSON.parse(frame.data).payload_json).text as string);
    const overTcp = deltaTexts(await tcpBody);
    const expected = "Here is the token: [REDACTED:github] and keep it safe.";
    for (const [reader, texts] of [["socket", overSocket], ["TCP", overTcp]] as const) {
      assert.ok(texts.length > 3, `${reader}: the reply came in pieces`);
      assert.equal(texts.join(""), expected, reader);
    }

    const log = await allEvents(t.client, id);
    for (const event of log) {
      assert.ok(!JSON.stringify(event.payload).includes(SECRET), JSON.stringify(event));
    }
    const message = log.find((e) =>
      e.kind === "agent.message" && e.payload.role === "assistant" &&
      e.seq > log.find((turn) => turn.kind === "agent.turn")!.seq
    );
    assert.equal(message?.payload.text, expected);
    // The stored stdout holds no piece of the key: its delta lines are not kept (D29).
    const stdout = log.filter((e) => e.kind === "output" && e.payload.stream === "stdout")
      .map((e) => e.payload.data as string).join("");
    for (const piece of ["Zq7", "q7Z", "7Zq"]) assert.ok(!stdout.includes(piece), stdout);
  } finally {
    await removeTree(project);
  }
});
