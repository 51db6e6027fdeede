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
  /** What `ask` was given, in order (null: the question was taken away). */
  const questions: Array<string | null> = [];
  const terminal: ChatTerminal = {
    interactive: false,
    color: false,
    next: (signal, options) => queue.next(signal, options),
    print(pieces: TranscriptPiece[]) {
      for (const piece of pieces) printed.push(piece.type === "output" ? piece.data : piece.text);
    },
    notice: (text) => notices.push(text),
    ask: (question) => questions.push(question),
    close() {},
  };
  return {
    terminal,
    printed,
    notices,
    questions,
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
    approvals: "ask",
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

Deno.test("parseChatLine() reads y, n, a as answers only while a request is asked", () => {
  const allow = { type: "answer", decision: "allow", remember: false };
  assert.deepEqual(parseChatLine("y"), { type: "send", text: "y" });
  assert.deepEqual(parseChatLine(" Y ", { asked: true }), allow);
  assert.deepEqual(parseChatLine("n", { asked: true }), { ...allow, decision: "deny" });
  assert.deepEqual(parseChatLine("a", { asked: true }), { ...allow, remember: true });
  assert.deepEqual(parseChatLine("yes please", { asked: true }), {
    type: "send",
    text: "yes please",
  });
  assert.deepEqual(parseChatLine("/allow"), allow);
  assert.deepEqual(parseChatLine("/always"), { ...allow, remember: true });
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

Deno.test("converse(): y answers a waiting permission request; an attach later asks nothing", async () => {
  await withDaemon(async (t, project) => {
    const session = await launch(t, project, "ask Bash touch x");
    const fake = fakeTerminal();
    const done = converse(t.client, session, fake.terminal);
    await fake.waitFor(/^ {2}\? Bash: touch x asks permission \(request req_1\)$/);
    const deadline = Date.now() + 20_000;
    while (fake.questions.length === 0) {
      assert.ok(Date.now() < deadline, "no question was put");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(fake.questions, ["Allow Bash: touch x? [y]es / [n]o / [a]lways"]);
    fake.type("y");
    await fake.waitFor(/^agent › allowed$/);
    assert.ok(fake.printed.includes("  ✓ request req_1 allowed (owner)"), fake.printed.join("\n"));
    assert.deepEqual(fake.questions, ["Allow Bash: touch x? [y]es / [n]o / [a]lways", null]);
    // Nothing asked now: y is a turn.
    fake.type("y");
    await fake.waitFor(/^agent › echo: y$/);
    fake.type("/allow");
    fake.type("/close");
    assert.equal(await done, EXIT.ok);
    assert.ok(fake.notices.includes("No permission request is waiting"), fake.notices.join());

    // Attaching afterwards: the request is in the transcript, answered, and not asked again.
    const ended = (await t.client.get<SessionRecord>(`/sessions/${session.id}`)).body;
    const again = fakeTerminal();
    assert.equal(await converse(t.client, ended, again.terminal), EXIT.ok);
    assert.ok(again.printed.includes("  ✓ request req_1 allowed (owner)"));
    assert.deepEqual(again.questions, []);
  });
});

Deno.test("converse(): attaching to a waiting request asks it; n denies it", async () => {
  await withDaemon(async (t, project) => {
    const launched = await launch(t, project, "ask Bash touch x");
    let session = launched;
    const deadline = Date.now() + 20_000;
    while (session.activity !== "waiting_approval") {
      assert.ok(Date.now() < deadline, "the request never waited");
      await new Promise((resolve) => setTimeout(resolve, 20));
      session = (await t.client.get<SessionRecord>(`/sessions/${launched.id}`)).body;
    }
    const fake = fakeTerminal();
    const done = converse(t.client, session, fake.terminal);
    await fake.waitFor(/asks permission \(request req_1\)$/);
    while (fake.questions.length === 0) {
      assert.ok(Date.now() < deadline, "no question was put");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    fake.type("n");
    await fake.waitFor(/^agent › denied: /);
    fake.type("/close");
    assert.equal(await done, EXIT.ok);
    assert.deepEqual(fake.questions, ["Allow Bash: touch x? [y]es / [n]o / [a]lways", null]);
  });
});
