/**
 * Issue 28 item 6: every field the CLI prints carries terminal escapes in
 * these tests (title change, clear screen, clipboard write, C1 CSI), and no
 * printed byte may be a control a terminal acts on. Tabs are allowed: free
 * text keeps them, and a terminal only advances over one.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/client.ts";
import { approvalsTable, describeRequest } from "../../src/cli/approvals.ts";
import { inboxTable } from "../../src/cli/inbox.ts";
import { runCli } from "../../src/cli/main.ts";
import { describeError } from "../../src/cli/output.ts";
import { permissionQuestion } from "../../src/cli/permission_prompt.ts";
import { createTranscript, toolSummary } from "../../src/cli/transcript.ts";
import { usageTable } from "../../src/cli/usage.ts";
import { describeNotice, watchFeed } from "../../src/cli/watch.ts";
import { captureIo } from "../helpers/capture_io.ts";
import { runSvc } from "../helpers/process.ts";
import { startCliDaemon } from "./cli_daemon.ts";
import {
  HOSTILE,
  hostile,
  HOSTILE_SHOWN,
  hostileEvents,
  hostileNotices,
  startHostileDaemon,
} from "./hostile_daemon.ts";

/** A byte a terminal would act on: C0 but newline and tab, DEL, C1. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/** The SGR codes of color.ts: the only escapes svc itself may print, and only in colour. */
// deno-lint-ignore no-control-regex
const OWN_COLOURS = /\x1b\[(?:1|2|22|31|32|33|36|39)m/g;

/** Fails when `text` holds a control, or does not show the hostile bytes it printed. */
function assertSafe(text: string, where: string, { shown = true } = {}): void {
  const control = text.match(CONTROL);
  assert.equal(
    control,
    null,
    `${where}: ${JSON.stringify(control?.[0])} at ${control?.index} of ${JSON.stringify(text)}`,
  );
  if (shown) assert.ok(text.includes(HOSTILE_SHOWN), `${where} shows the escapes: ${text}`);
}

Deno.test("createTranscript() shows every field of every kind without a control", async (t) => {
  for (const color of [false, true]) {
    await t.step(color ? "coloured" : "plain", () => {
      const transcript = createTranscript({ protocol: "claude", color });
      for (const event of hostileEvents()) {
        // A conversation hides its input lines (the vendor's JSON); the raw step shows one.
        if (event.kind === "input") continue;
        const pieces = transcript.render(event as { kind: string; payload_json: string });
        assert.ok(pieces.length > 0, `${event.kind} renders`);
        const text = pieces
          .map((piece) => piece.type === "line" ? piece.text : assert.fail("a line"))
          .join("\n");
        assertSafe(text.replace(OWN_COLOURS, ""), String(event.kind));
      }
    });
  }
  await t.step("a raw session's input, and escapes decoded from a tool's JSON input", () => {
    const raw = createTranscript({ protocol: "raw", color: false });
    const [input] = raw.render({
      kind: "input",
      payload_json: JSON.stringify(hostile({ data: "y" })),
    });
    assertSafe(input.type === "line" ? input.text : "", "input");
    assertSafe(toolSummary(JSON.stringify(hostile({ command: "ls" }))), "toolSummary");
  });
});

Deno.test("the pure printers show every field without a control", async (t) => {
  await t.step("describeNotice(), every kind", () => {
    for (const [kind, data] of hostileNotices()) assertSafe(describeNotice(kind, data), kind);
  });
  await t.step("approvalsTable(), describeRequest(), permissionQuestion()", () => {
    const approval = hostile({
      sessionId: "ses_1",
      requestId: "req_1",
      tool: "Bash",
      summary: "touch x",
      requestedAt: "2026-11-23T10:00:00Z",
      expiresAt: "2026-11-23T10:04:10Z",
    });
    assertSafe(approvalsTable([approval], Date.parse("2026-11-23T10:00:00Z")), "approvals");
    assertSafe(describeRequest(approval), "describeRequest");
    assertSafe(describeRequest({ tool: approval.tool, summary: "" }), "describeRequest, tool");
    assertSafe(permissionQuestion(approval), "permissionQuestion");
    const profile = { network: true, read: [`/r${HOSTILE}`], write: [`/w${HOSTILE}`] };
    assertSafe(permissionQuestion({ ...approval, profile }), "permissionQuestion, profile");
  });
  await t.step("inboxTable(), usageTable()", () => {
    const entry = hostile({
      runId: "run_1",
      routineId: "nightly",
      status: "succeeded" as const,
      endedAt: "2026-11-23T10:00:00Z",
      path: "/r.md",
      readAt: null,
      headline: "All\ngreen",
    });
    assertSafe(inboxTable([entry]), "inbox");
    const total = {
      key: "nightly",
      sessions: 1,
      inputTokens: 1,
      cachedInputTokens: 0,
      outputTokens: 2,
      costUsd: 0.5,
    };
    assertSafe(
      usageTable(hostile({ by: "routine", since: null, groups: [total], total })),
      "usage",
    );
  });
  await t.step("describeError(), an envelope and a body that is not one", () => {
    assertSafe(
      describeError(hostile({ error: { code: "c", message: "m", details: { field: "f" } } })),
      "envelope",
    );
    assertSafe(describeError(hostile({ unexpected: "x" })), "not an envelope", { shown: false });
  });
});

/** Commands that quote the daemon's answer as JSON: C0 controls are escaped, so unseen. */
const QUOTE_JSON = new Set(["stop"]);

/** Every command whose human output prints what the fake daemon answered. */
const COMMANDS: string[][] = [
  ["sessions", "list"],
  ["sessions", "show", "ses_1"],
  ["sessions", "kill", "ses_1"],
  ["sessions", "input", "ses_1", "x"],
  ["events", "ses_1"],
  ["events", "ses_1", "--raw"],
  ["events", "ses_raw"],
  ["events", "ses_1", "--follow"],
  ["automations", "list"],
  ["automations", "get", "nightly"],
  ["automations", "runs", "nightly"],
  ["automations", "health", "nightly"],
  ["automations", "tick"],
  ["automations", "import"],
  ["automations", "run", "nightly"],
  ["automations", "delete", "nightly"],
  ["approvals"],
  ["approve", "ses_1", "req_1" + HOSTILE],
  ["inbox"],
  ["inbox", "show", "run_1"],
  ["worktrees", "list"],
  ["worktrees", "prune"],
  ["usage", "--by", "routine"],
  ["capabilities"],
  ["status"],
  ["stop"],
];

Deno.test("every command prints a hostile daemon's answers without a control", async (t) => {
  await using daemon = await startHostileDaemon();
  for (const args of COMMANDS) {
    await t.step(`svc ${args.join(" ")}`, async () => {
      const captured = captureIo({ NO_COLOR: "1" });
      const code = await runCli([...args, "--home", daemon.home], captured.io);
      assert.ok(code === 0 || code === 1, `exit ${code}: ${captured.stderr()}`);
      assertSafe(captured.stdout() + captured.stderr(), args.join(" "), {
        shown: !QUOTE_JSON.has(args[0]),
      });
    });
  }
  await t.step("svc automations create -f FILE", async () => {
    const file = `${daemon.home}/routine.json`;
    await Deno.writeTextFile(file, JSON.stringify({ id: "nightly" }));
    const captured = captureIo({ NO_COLOR: "1" });
    assert.equal(
      await runCli(["automations", "create", "-f", file, "--home", daemon.home], captured.io),
      0,
    );
    assertSafe(captured.stdout(), "automations create");
  });
  await t.step("svc logs: the daemon log's lines", async () => {
    await Deno.mkdir(`${daemon.home}/logs`, { recursive: true });
    await Deno.writeTextFile(
      `${daemon.home}/logs/daemon.log`,
      `2026-11-23T10:00:00Z WARN agent said ${hostile("x")}\n`,
    );
    const captured = captureIo({ NO_COLOR: "1" });
    assert.equal(await runCli(["logs", "--home", daemon.home], captured.io), 0);
    assertSafe(captured.stdout(), "logs");
  });
  await t.step("watchFeed(): every notice", async () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const captured = captureIo({});
    const io = {
      ...captured.io,
      out: (text: string) => {
        lines.push(text);
        if (lines.length === hostileNotices().length) controller.abort();
      },
    };
    const client = new SvcClient({ socketPath: `${daemon.home}/svc.sock` });
    try {
      assert.equal(await watchFeed(client, io, { signal: controller.signal }), 130);
    } finally {
      client.close();
    }
    for (const line of lines) assertSafe(line, "watch");
    assertSafe(captured.stderr(), "watch notes", { shown: false });
  });
});

Deno.test("svc chat and svc attach print a hostile conversation without a control", async (t) => {
  await using daemon = await startHostileDaemon();
  const commands = [
    ["attach", "ses_1"],
    ["chat", "--harness", "claude", "--project-root", daemon.home, "hello"],
  ];
  for (const args of commands) {
    await t.step(`svc ${args[0]}`, async () => {
      const result = await runSvc([...args, "--home", daemon.home]);
      assert.equal(result.code, 1, result.stderr);
      assertSafe(result.stdout, `${args[0]} stdout`);
      // stderr: the permission question still waiting, and chat's "session ID" note.
      assertSafe(result.stderr, `${args[0]} stderr`);
    });
  }
});

Deno.test("svc sessions list, svc approvals and svc events show a real agent's escapes", async () => {
  await using d = await startCliDaemon();
  // The scripted agent asks permission for the tool its prompt names (tests/fixtures).
  const launched = await d.client.post<{ id: string }>("/sessions", {
    projectRoot: d.project,
    harness: "agent",
    prompt: `ask Bash${HOSTILE} touch${HOSTILE}`,
    title: `Fix${HOSTILE}`,
    approvals: "ask",
  });
  const id = launched.body.id;
  try {
    const sessions = await d.svc(["sessions", "list"]);
    assert.equal(sessions.code, 0, sessions.stderr);
    assert.match(sessions.stdout, new RegExp(`${id} .* Fix\\^\\[\\]0;T\\^G`));
    assertSafe(sessions.stdout, "sessions list");
    const deadline = Date.now() + 20_000;
    let approvals = await d.svc(["approvals"]);
    while (!approvals.stdout.includes(id)) {
      assert.ok(Date.now() < deadline, "Timed out waiting for the permission request");
      await new Promise((resolve) => setTimeout(resolve, 100));
      approvals = await d.svc(["approvals"]);
    }
    assert.match(approvals.stdout, /req_1\s+Bash\^\[\]0;T\^G/);
    assertSafe(approvals.stdout, "approvals");
    const events = await d.svc(["events", id]);
    assert.equal(events.code, 0, events.stderr);
    assertSafe(events.stdout, "events");
  } finally {
    await d.client.post(`/sessions/${id}/kill`, { signal: "SIGKILL" });
  }
});

Deno.test("a bad option or argument is quoted without a control, on every start path (D1)", async () => {
  for (
    const args of [["serve", `--bad${HOSTILE}`], ["sessions", `x${HOSTILE}`], [
      "events",
      `--bad${HOSTILE}`,
    ]]
  ) {
    const result = await runSvc(args);
    assert.equal(result.code, 2, result.stderr);
    // An option's name ends at its "=": the escapes before it are shown, as text.
    assertSafe(result.stderr, args.join(" "), { shown: false });
    assert.ok(result.stderr.includes("^[]0;T^G^[[2J"), result.stderr);
  }
});
