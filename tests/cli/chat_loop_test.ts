/**
 * The conversation loop of `svc chat` / `svc attach` (D16, D17) with a fake
 * terminal, against an in-process daemon and the scripted stream-json agent.
 */
import assert from "node:assert/strict";
import {
  type ChatTerminal,
  converse,
  DOUBLE_INTERRUPT_MS,
  parseChatLine,
} from "../../src/cli/chat_loop.ts";
import { InputQueue } from "../../src/cli/chat_terminal.ts";
import { EXIT } from "../../src/cli/command.ts";
import type { TranscriptPiece } from "../../src/cli/transcript.ts";
import type { SessionRecord } from "../../src/store/sessions_store.ts";
import { startTestDaemon, type TestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { cliHarnesses } from "./cli_daemon.ts";

/** A terminal that records what is printed and is typed at by the test. */
function fakeTerminal() {
  const queue = new InputQueue();
  const printed: string[] = [];
  const notices: string[] = [];
  const terminal: ChatTerminal = {
    interactive: false,
    color: false,
    next: (signal) => queue.next(signal),
    print(pieces: TranscriptPiece[]) {
      for (const piece of pieces) printed.push(piece.type === "line" ? piece.text : piece.data);
    },
    notice: (text) => notices.push(text),
    close() {},
  };
  return {
    terminal,
    printed,
    notices,
    type: (text: string) => queue.push({ type: "line", text }),
    interrupt: () => queue.push({ type: "interrupt" }),
    eof: () => queue.push({ type: "eof" }),
    /** Waits until a printed line matches `pattern`. */
    async waitFor(pattern: RegExp): Promise<void> {
      const deadline = Date.now() + 20_000;
      while (!printed.some((line) => pattern.test(line))) {
        if (Date.now() > deadline) {
          throw new Error(`No line matches ${pattern}: ${JSON.stringify(printed)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

async function withDaemon(fn: (t: TestDaemon, project: string) => Promise<void>) {
  await using t = await startTestDaemon({ configJson: { harnesses: cliHarnesses() } });
  const project = await Deno.realPath(await tempHome());
  try {
    await fn(t, project);
  } finally {
    await removeTree(project);
  }
}

async function launch(
  t: TestDaemon,
  project: string,
  prompt: string,
  harness = "agent",
): Promise<SessionRecord> {
  const response = await t.client.post<SessionRecord>("/sessions", {
    projectRoot: project,
    harness,
    prompt,
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

Deno.test("parseChatLine() tells turns from chat commands", () => {
  assert.deepEqual(parseChatLine("  "), { type: "none" });
  assert.deepEqual(parseChatLine("fix the tests"), { type: "send", text: "fix the tests" });
  assert.deepEqual(parseChatLine("/close"), { type: "close" });
  assert.deepEqual(parseChatLine(" /quit "), { type: "quit" });
  assert.deepEqual(parseChatLine("/interrupt"), { type: "interrupt" });
  assert.deepEqual(parseChatLine("/help"), { type: "help" });
  assert.deepEqual(parseChatLine("/qiut"), { type: "unknown", command: "/qiut" });
  assert.deepEqual(parseChatLine("/review this"), { type: "unknown", command: "/review" });
  assert.deepEqual(parseChatLine("//review this"), { type: "send", text: "/review this" });
  assert.deepEqual(parseChatLine("/usr/bin/env is missing"), {
    type: "send",
    text: "/usr/bin/env is missing",
  });
});

Deno.test("converse(): turns typed, the transcript printed, /close ends it (exit 0)", async () => {
  await withDaemon(async (t, project) => {
    const session = await launch(t, project, "hello");
    const fake = fakeTerminal();
    const done = converse(t.client, session, fake.terminal);
    await fake.waitFor(/^ {2}✓ turn 1 completed/);
    fake.type("second");
    await fake.waitFor(/^ {2}✓ turn 2 completed/);
    fake.type("//slash");
    await fake.waitFor(/^agent › echo: \/slash$/);
    fake.type("/close");
    assert.equal(await done, EXIT.ok);
    const conversation = fake.printed.filter((line) => /^(you|agent) › /.test(line));
    assert.deepEqual(conversation, [
      "you › hello",
      "agent › echo: hello",
      "you › second",
      "agent › echo: second",
      "you › /slash",
      "agent › echo: /slash",
    ]);
    assert.equal(fake.printed.at(-1), "· session completed · exit 0");
    assert.ok(fake.notices.some((notice) => notice.startsWith("Closing: ")), fake.notices.join());
  });
});

Deno.test("converse(): Ctrl-C interrupts the turn; twice within 2 s detaches", async () => {
  await withDaemon(async (t, project) => {
    const session = await launch(t, project, "hang");
    let now = 0;
    const fake = fakeTerminal();
    const done = converse(t.client, session, fake.terminal, { now: () => now, home: "/h" });
    await fake.waitFor(/^you › hang$/);
    fake.interrupt();
    await fake.waitFor(/^ {2}⊘ turn 1 interrupted/);
    fake.type("hang");
    await fake.waitFor(/^you › hang$/);
    now += DOUBLE_INTERRUPT_MS + 1; // A second Ctrl-C, but not a quick one: interrupts again.
    fake.interrupt();
    await fake.waitFor(/^ {2}⊘ turn 2 interrupted/);
    now += DOUBLE_INTERRUPT_MS / 2;
    fake.interrupt();
    assert.equal(await done, EXIT.ok);
    assert.match(
      fake.notices.at(-1)!,
      new RegExp(
        `^Detached: session ${session.id} keeps running\\. ` +
          `Re-attach: svc attach ${session.id} --home /h$`,
      ),
    );
    const record = (await t.client.get<SessionRecord>(`/sessions/${session.id}`)).body;
    assert.equal(record.status, "running");
    await t.client.post(`/sessions/${session.id}/close`, {});
    assert.equal((await waitForEnd(t.client, session.id)).status, "completed");
  });
});

Deno.test("converse(): end of input closes; refusals and unknown commands are notices", async () => {
  await withDaemon(async (t, project) => {
    const session = await launch(t, project, "hang");
    const fake = fakeTerminal();
    const done = converse(t.client, session, fake.terminal);
    await fake.waitFor(/^you › hang$/);
    fake.type("/help");
    fake.type("/nope");
    fake.type("/close");
    fake.type("more");
    fake.eof();
    fake.type("/interrupt");
    assert.equal(await done, EXIT.ok);
    assert.ok(fake.notices.some((notice) => notice.includes("/quit")), "help lists commands");
    assert.ok(fake.notices.includes('Unknown command "/nope" (/help lists them)'));
    assert.ok(
      fake.notices.some((notice) => notice.startsWith("session_input_closed: ")),
      fake.notices.join("\n"),
    );
    assert.ok(fake.printed.some((line) => /^ {2}⊘ turn 1 interrupted/.test(line)));
    assert.equal(fake.printed.at(-1), "· session completed · exit 0");
  });
});

Deno.test("converse(): a session that fails exits 1; an ended one prints its transcript", async () => {
  await withDaemon(async (t, project) => {
    const session = await launch(t, project, "exit 3");
    const fake = fakeTerminal();
    assert.equal(await converse(t.client, session, fake.terminal), EXIT.refused);
    assert.match(fake.printed.at(-1)!, /^! session failed · exit 3/);

    // Attaching afterwards: the transcript so far, nothing typed, the same exit.
    const again = fakeTerminal();
    assert.equal(await converse(t.client, session, again.terminal), EXIT.refused);
    assert.deepEqual(again.printed, fake.printed);
  });
});

Deno.test("converse(): a raw session shows its output and takes lines with a newline", async () => {
  await withDaemon(async (t, project) => {
    const session = await launch(t, project, "x", "fixture-stdin");
    assert.equal(session.protocol, "raw");
    const fake = fakeTerminal();
    const done = converse(t.client, session, fake.terminal);
    fake.type("ping");
    await fake.waitFor(/^you › ping$/);
    fake.eof();
    assert.equal(await done, EXIT.ok);
    assert.ok(fake.printed.some((text) => text.includes("ping")), fake.printed.join("|"));
  });
});
