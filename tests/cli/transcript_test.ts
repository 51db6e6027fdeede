/** The transcript renderer (D17): one event record in, lines out; pure. */
import assert from "node:assert/strict";
import {
  createTranscript,
  formatDuration,
  formatUsage,
  toolSummary,
  type Transcript,
  type TranscriptPiece,
} from "../../src/cli/transcript.ts";

const event = (kind: string, payload: unknown) => ({ kind, payload_json: JSON.stringify(payload) });

/** The text of the line pieces an event renders to. */
function lines(transcript: Transcript, kind: string, payload: unknown): string[] {
  return transcript.render(event(kind, payload)).map((piece) => {
    assert.equal(piece.type, "line", `${kind} renders lines`);
    return (piece as Extract<TranscriptPiece, { type: "line" }>).text;
  });
}

const plain = () => createTranscript({ protocol: "claude", color: false });
const USAGE = { inputTokens: 120, outputTokens: 40, cachedInputTokens: 0, costUsd: 0.01 };

Deno.test("createTranscript() renders each typed kind of a conversation", async (t) => {
  await t.step("messages: you and agent, continuation lines indented", () => {
    const transcript = plain();
    assert.deepEqual(lines(transcript, "agent.message", { role: "user", text: "fix it" }), [
      "you › fix it",
    ]);
    assert.deepEqual(
      lines(transcript, "agent.message", { role: "assistant", text: "Done.\nTwo files.\n" }),
      ["agent › Done.", "        Two files."],
    );
    assert.deepEqual(lines(transcript, "agent.message", { role: "assistant", text: " \n" }), []);
  });

  await t.step("tool calls: started, then the end status named by callId", () => {
    const transcript = plain();
    const input = JSON.stringify({ command: "touch x" });
    assert.deepEqual(
      lines(transcript, "agent.tool", {
        callId: "toolu_1",
        name: "Bash",
        status: "started",
        input,
        output: null,
      }),
      ["  ⚙ Bash: touch x"],
    );
    assert.deepEqual(
      lines(transcript, "agent.tool", {
        callId: "toolu_1",
        name: "",
        status: "declined",
        input: null,
        output: "denied: no\nsecond line",
      }),
      ["  ⚙ Bash: touch x … declined", "    → denied: no (+1 line)"],
    );
    assert.deepEqual(
      lines(transcript, "agent.tool", {
        callId: "unknown",
        name: "",
        status: "completed",
        input: null,
        output: null,
      }),
      ["  ⚙ tool … completed"],
    );
    assert.deepEqual(
      lines(transcript, "agent.tool", {
        callId: "c2",
        name: "shell",
        status: "failed",
        input: "npm test",
        output: "",
      }),
      ["  ⚙ shell: npm test … failed"],
    );
  });

  await t.step("permissions: the request and how it was resolved", () => {
    const transcript = plain();
    assert.deepEqual(
      lines(transcript, "agent.permission", {
        requestId: "req_1",
        tool: "Bash",
        summary: "Bash: touch x",
        options: [],
      }),
      ["  ? Bash: touch x asks permission (request req_1)"],
    );
    assert.deepEqual(
      lines(transcript, "agent.permission.resolved", {
        requestId: "req_1",
        decision: "deny",
        by: "policy",
      }),
      ["  ✗ request req_1 denied (policy)"],
    );
    assert.deepEqual(
      lines(transcript, "agent.permission.resolved", {
        requestId: "req_2",
        decision: "allow",
        by: "owner",
      }),
      ["  ✓ request req_2 allowed (owner)"],
    );
  });

  await t.step("turns: status, reason, duration and usage", () => {
    const transcript = plain();
    assert.deepEqual(
      lines(transcript, "agent.turn", {
        turn: 2,
        status: "completed",
        reason: null,
        result: null,
        usage: USAGE,
        durationMs: 1234,
      }),
      ["  ✓ turn 2 completed · 1.2 s · in 120 / out 40 tokens · $0.0100"],
    );
    assert.deepEqual(
      lines(transcript, "agent.turn", {
        turn: 3,
        status: "interrupted",
        reason: "timeout",
        result: null,
        usage: null,
        durationMs: null,
      }),
      ["  ⊘ turn 3 interrupted (timeout)"],
    );
    assert.deepEqual(
      lines(transcript, "agent.turn", {
        turn: 4,
        status: "interrupted",
        reason: "interrupted",
        result: "",
        usage: null,
        durationMs: 500,
      }),
      ["  ⊘ turn 4 interrupted · 0.5 s"],
    );
  });

  await t.step("a turn's result is shown once: only when no message said it", () => {
    const transcript = plain();
    lines(transcript, "agent.message", { role: "assistant", text: "echo: hi" });
    const turn = { turn: 1, status: "completed", reason: null, usage: null, durationMs: null };
    assert.deepEqual(lines(transcript, "agent.turn", { ...turn, result: "echo: hi" }), [
      "  ✓ turn 1 completed",
    ]);
    assert.deepEqual(
      lines(transcript, "agent.turn", {
        ...turn,
        turn: 2,
        status: "failed",
        reason: "error_during_execution",
        result: "it failed",
      }),
      ["agent › it failed", "  ✗ turn 2 failed (error_during_execution)"],
    );
  });

  await t.step("agent.started, agent.error, session lifecycle and unknown kinds", () => {
    const transcript = plain();
    assert.deepEqual(
      lines(transcript, "agent.started", {
        protocol: "claude",
        agentSessionId: "s-1",
        model: "opus",
        agentVersion: null,
      }),
      ["· agent started · claude · model opus · session s-1"],
    );
    assert.deepEqual(lines(transcript, "agent.error", { message: "Agent exited\nbadly" }), [
      "! Agent exited badly",
    ]);
    assert.deepEqual(
      lines(transcript, "session.started", { harness: "claude", pid: 42, cwd: "/p", prompt: "x" }),
      ["· session started · claude · pid 42"],
    );
    assert.deepEqual(
      lines(transcript, "session.ended", { status: "completed", exitCode: 0, signal: null }),
      ["· session completed · exit 0"],
    );
    assert.deepEqual(
      lines(transcript, "session.ended", {
        status: "failed",
        exitCode: 0,
        signal: null,
        error: "The turn ended failed",
      }),
      ["! session failed · exit 0 · The turn ended failed"],
    );
    assert.deepEqual(
      lines(transcript, "session.ended", { status: "killed", exitCode: null, signal: "SIGTERM" }),
      ["· session killed · SIGTERM"],
    );
    assert.deepEqual(lines(transcript, "run.linked", { routineId: "nightly", runId: "run_1" }), [
      "· run run_1 of routine nightly",
    ]);
    assert.deepEqual(lines(transcript, "future.kind", { a: 1 }), ['· future.kind {"a":1}']);
  });

  await t.step("a stop's end and the resume seam read as lines (issue 38 item 14)", () => {
    const seam = { agentSessionId: "a-1", previousStatus: "killed", resumes: 1 };
    const cases: Array<[string, unknown, string]> = [
      // svc stop ends a session gracefully: not red, the exit code explained.
      [
        "session.ended",
        { status: "killed", exitCode: 143, signal: null },
        "· session killed · exit 143 (SIGTERM)",
      ],
      [
        "session.resumed",
        seam,
        "· conversation resumed · was killed · resume 1 · agent session a-1",
      ],
      // D33: an adopted session's log starts with where it came from.
      [
        "session.adopted",
        { harness: "claude", agentSessionId: "a-1", imported: 2, transcript: "read" },
        "· session adopted · claude · agent session a-1 · 2 messages imported from its transcript",
      ],
      [
        "session.adopted",
        { harness: "acp", agentSessionId: "a-1", imported: 0, transcript: "unreadable" },
        "· session adopted · acp · agent session a-1 · its transcript could not be read",
      ],
    ];
    for (const [kind, payload, line] of cases) {
      assert.deepEqual(lines(plain(), kind, payload), [line]);
    }
  });
});

Deno.test("createTranscript() hides a conversation's protocol lines, shows a raw session's", async (t) => {
  await t.step("protocol sessions: output and input are the vendor's JSON lines", () => {
    const transcript = plain();
    assert.deepEqual(transcript.render(event("output", { stream: "stdout", data: "{}\n" })), []);
    assert.deepEqual(transcript.render(event("input", { data: "{}\n" })), []);
  });

  await t.step("raw sessions: output as written on its stream, input as you", () => {
    const transcript = createTranscript({ protocol: "raw", color: false });
    assert.deepEqual(transcript.render(event("output", { stream: "stderr", data: "oops" })), [
      { type: "output", stream: "stderr", data: "oops" },
    ]);
    assert.deepEqual(transcript.render(event("output", { stream: "stdout", data: "hi\n" })), [
      { type: "output", stream: "stdout", data: "hi\n" },
    ]);
    assert.deepEqual(transcript.render(event("output", { stream: "stdout", data: "" })), []);
    assert.deepEqual(lines(transcript, "input", { data: "yes\n" }), ["you › yes"]);
  });
});

Deno.test("createTranscript() colours only when asked, and shows control sequences visibly", () => {
  const colored = createTranscript({ protocol: "claude", color: true });
  const [you] = lines(colored, "agent.message", { role: "user", text: "hi" });
  assert.equal(you, "\x1b[1m\x1b[36myou › \x1b[39m\x1b[22mhi");
  const [error] = lines(colored, "agent.error", { message: "boom" });
  assert.equal(error, "\x1b[31m! boom\x1b[39m");
  const [turn] = lines(colored, "agent.turn", {
    turn: 1,
    status: "completed",
    reason: null,
    result: null,
    usage: USAGE,
    durationMs: 100,
  });
  assert.ok(turn.includes("\x1b[32m✓\x1b[39m"), turn);

  const transcript = plain();
  const [hostile] = lines(transcript, "agent.message", {
    role: "assistant",
    text: "a\x1b[2J\x1b]0;title\x07b\rc\x00d",
  });
  assert.equal(hostile, "agent › a^[[2J^[]0;title^Gb^Mc^@d");
  for (
    const [kind, payload] of [
      ["agent.message", { role: "user", text: "x" }],
      ["agent.turn", { turn: 1, status: "failed", reason: "x", result: "r", usage: USAGE }],
      ["session.ended", { status: "failed", exitCode: 1, signal: null }],
    ] as const
  ) {
    for (const text of lines(plain(), kind, payload)) assert.ok(!text.includes("\x1b"), text);
  }
});

Deno.test("formatUsage() leaves out what the harness did not report", () => {
  assert.equal(formatUsage(USAGE), "in 120 / out 40 tokens · $0.0100");
  assert.equal(
    formatUsage({ inputTokens: 10, outputTokens: null, cachedInputTokens: 4, costUsd: null }),
    "in 10 (4 cached) / out ? tokens",
  );
  assert.equal(
    formatUsage({ inputTokens: null, outputTokens: null, cachedInputTokens: null, costUsd: 0.5 }),
    "$0.5000",
  );
  assert.equal(
    formatUsage({ inputTokens: null, outputTokens: null, cachedInputTokens: null, costUsd: null }),
    null,
  );
  assert.equal(formatUsage(null), null);
});

Deno.test("formatDuration() prints seconds, then minutes", () => {
  assert.equal(formatDuration(0), "0.0 s");
  assert.equal(formatDuration(1234), "1.2 s");
  assert.equal(formatDuration(59_900), "59.9 s");
  assert.equal(formatDuration(125_000), "2 min 5 s");
});

Deno.test("toolSummary() picks the command or path of a JSON input, else the text", () => {
  assert.equal(toolSummary(JSON.stringify({ command: "ls -la" })), "ls -la");
  assert.equal(toolSummary(JSON.stringify({ file_path: "/a/b.ts", content: "x" })), "/a/b.ts");
  assert.equal(toolSummary(JSON.stringify({ other: 1 })), '{"other":1}');
  assert.equal(toolSummary("git status\n--short"), "git status --short");
  const long = toolSummary("x".repeat(300));
  assert.equal([...long].length, 100);
  assert.ok(long.endsWith("…"));
});

/** What the pieces print, partial text as it is and lines with their newline. */
function printed(transcript: Transcript, events: Array<[string, unknown]>): string {
  return events.flatMap(([kind, payload]) => transcript.render(event(kind, payload)))
    .map((piece) =>
      piece.type === "partial" ? piece.text : piece.type === "line" ? piece.text + "\n" : piece.data
    ).join("");
}

Deno.test("createTranscript() prints partial text live and not the final message twice (D29)", async (t) => {
  await t.step("deltas then the same message: one line", () => {
    assert.equal(
      printed(plain(), [
        ["agent.message.delta", { turn: 1, text: "Hi" }],
        ["output", { stream: "stdout", data: "{}\n" }],
        ["agent.message.delta", { turn: 1, text: " there\nsecond" }],
        ["agent.message", { role: "assistant", text: "Hi there\nsecond" }],
        ["agent.turn", { turn: 1, status: "completed", reason: null, result: "Hi there\nsecond" }],
      ]),
      "agent › Hi there\n        second\n  ✓ turn 1 completed\n",
    );
  });
  await t.step("a notice mid-stream ends the partial line; the rest follows indented", () => {
    assert.equal(
      printed(plain(), [
        ["agent.message.delta", { text: "Hal" }],
        ["agent.notice", {
          level: "warning",
          message: "529 overloaded",
          attempt: 2,
          maxAttempts: 10,
        }],
        ["agent.message.delta", { text: "f" }],
        ["agent.message", { role: "assistant", text: "Half done" }],
      ]),
      "agent › Hal\n… retrying (attempt 2/10): 529 overloaded\n        f done\n",
    );
  });
  await t.step("missed pieces: the whole message is printed", () => {
    assert.equal(
      printed(plain(), [
        ["agent.message.delta", { text: "abc" }],
        ["agent.message", { role: "assistant", text: "xyz" }],
      ]),
      "agent › abc\nagent › xyz\n",
    );
  });
  await t.step("partial text is terminal-safe", () => {
    assert.equal(
      printed(plain(), [["agent.message.delta", { text: "\x1b[2Jboom" }]]),
      "agent › ^[[2Jboom",
    );
  });
});

Deno.test("createTranscript() renders agent.notice as one dim line (D29)", () => {
  const transcript = createTranscript({ protocol: "codex-app-server", color: true });
  const [notice] = lines(transcript, "agent.notice", {
    level: "warning",
    message: "Reconnecting...\nwaiting",
  });
  assert.equal(notice, "\x1b[2m… Reconnecting... waiting\x1b[22m");
  assert.deepEqual(lines(plain(), "agent.notice", { level: "error", message: "gave up" }), [
    "… gave up",
  ]);
  assert.deepEqual(
    lines(plain(), "agent.turn", {
      turn: 1,
      status: "failed",
      reason: "API Error: Unable to connect to API (ConnectionRefused)",
      result: null,
    }),
    ["  ✗ turn 1 failed (API Error: Unable to connect to API (ConnectionRefused))"],
  );
});
