/** The permission requests of a chat (D18), with a fake client and terminal. */
import assert from "node:assert/strict";
import type { ClientResponse, SvcClient } from "../../src/client/client.ts";
import type { ChatTerminal } from "../../src/cli/chat_loop.ts";
import { PermissionPrompt, permissionQuestion } from "../../src/cli/permission_prompt.ts";
import type { SessionRecord } from "../../src/store/sessions_store.ts";

/** A client whose `request` records the bodies it is given and answers `answers` in turn. */
function fakeClient(answers: ClientResponse[]) {
  const bodies: unknown[] = [];
  const client = {
    request(_method: string, _path: string, body: unknown) {
      bodies.push(body);
      return Promise.resolve(answers.shift()!);
    },
  } as unknown as SvcClient;
  return { client, bodies };
}

function fakeTerminal() {
  const notices: string[] = [];
  const questions: Array<string | null> = [];
  const terminal: ChatTerminal = {
    interactive: false,
    color: false,
    next: () => Promise.resolve(null),
    print() {},
    notice: (text) => notices.push(text),
    ask: (question) => questions.push(question),
    close() {},
  };
  return { terminal, notices, questions };
}

const session = { id: "ses_1", last_seq: 3 } as SessionRecord;
const asked = (seq: number, requestId: string, command: string) => ({
  seq,
  kind: "agent.permission",
  payload_json: JSON.stringify({
    requestId,
    tool: "Bash",
    summary: `Bash: ${command}`,
    options: [],
  }),
});
const resolved = (seq: number, requestId: string) => ({
  seq,
  kind: "agent.permission.resolved",
  payload_json: JSON.stringify({ requestId, decision: "deny", by: "timeout" }),
});
const signal = new AbortController().signal;

Deno.test("permissionQuestion() names the tool and cuts a long summary", () => {
  assert.equal(
    permissionQuestion({ tool: "Bash", summary: "Bash: touch x" }),
    "Allow Bash: touch x? [y]es / [n]o / [a]lways",
  );
  const long = permissionQuestion({ tool: "Bash", summary: `Bash: ${"x".repeat(200)}` });
  assert.match(long, /^Allow Bash: x{73}…\? \[y\]es/);
});

Deno.test("permissionQuestion() names a permissions request's whole profile, never cut (issue 33)", () => {
  const deep = `/home/me/${"d".repeat(100)}`;
  const profile = { network: true, read: [], write: [deep, "/"] };
  assert.equal(
    permissionQuestion({ tool: "permissions", summary: "permissions: … (cache)", profile }),
    `Allow permissions: write ${deep}, /; network? [y]es / [n]o / [a]lways`,
  );
});

Deno.test("PermissionPrompt asks the oldest waiting request once the history is read", () => {
  const { client } = fakeClient([]);
  const fake = fakeTerminal();
  const prompt = new PermissionPrompt(client, fake.terminal, { session, afterSeq: 0 });
  prompt.observe(asked(1, "req_1", "a"));
  prompt.observe(asked(2, "req_2", "b"));
  assert.equal(prompt.asking, false, "req_1 may have been answered later in the history");
  prompt.observe(resolved(3, "req_1"));
  assert.deepEqual(fake.questions, ["Allow Bash: b? [y]es / [n]o / [a]lways"]);
  assert.equal(prompt.asking, true);
  prompt.observe(asked(4, "req_3", "c"));
  prompt.observe(resolved(5, "req_2"));
  prompt.observe(resolved(6, "req_3"));
  assert.deepEqual(fake.questions, [
    "Allow Bash: b? [y]es / [n]o / [a]lways",
    "Allow Bash: c? [y]es / [n]o / [a]lways",
    null,
  ]);
  assert.equal(prompt.asking, false);
});

Deno.test("PermissionPrompt.answer() approves the asked request; a late answer is a note", async () => {
  const { client, bodies } = fakeClient([
    { status: 200, ok: true, body: { ok: true } },
    {
      status: 409,
      ok: false,
      body: { ok: false, error: { code: "approval_not_pending", message: "Already resolved" } },
    },
    {
      status: 403,
      ok: false,
      body: { ok: false, error: { code: "AUTHORITY_REQUIRED", message: "Owner only" } },
    },
  ]);
  const fake = fakeTerminal();
  const prompt = new PermissionPrompt(client, fake.terminal, { session, afterSeq: 3 });
  prompt.observe(asked(4, "req_1", "a"));
  prompt.observe(asked(5, "req_2", "b"));
  prompt.observe(asked(6, "req_3", "c"));
  await prompt.answer({ decision: "allow", remember: true, scope: "session" }, signal);
  assert.deepEqual(bodies[0], {
    action: "svc.sessions.approve",
    origin: "cli",
    sessionId: "ses_1",
    requestId: "req_1",
    decision: "allow",
    remember: true,
    scope: "session",
  });
  assert.equal(fake.questions.at(-1), "Allow Bash: b? [y]es / [n]o / [a]lways");
  await prompt.answer({ decision: "deny", remember: false }, signal);
  assert.equal((bodies[1] as { requestId: string }).requestId, "req_2");
  assert.deepEqual(fake.notices, ["Too late: request req_2 was already resolved"]);
  await prompt.answer({ decision: "deny", remember: false }, signal);
  assert.equal(fake.notices.at(-1), "AUTHORITY_REQUIRED: Owner only");
  assert.equal(fake.questions.at(-1), null);
  await prompt.answer({ decision: "allow", remember: false }, signal);
  assert.equal(fake.notices.at(-1), "No permission request is waiting");
  assert.equal(bodies.length, 3);
});

Deno.test("PermissionPrompt: always asks where, showing the rule each scope creates (D28)", async () => {
  const pending = {
    sessionId: "ses_1",
    requestId: "req_1",
    tool: "Bash",
    summary: "Bash: npm test",
    requestedAt: "2026-11-23T10:00:00Z",
    expiresAt: "2026-11-23T10:10:00Z",
    kind: "shell",
    command: "npm test",
    argv: ["npm", "test"],
    paths: [],
    projectRoot: "/p",
  };
  const listed = { status: 200, ok: true, body: { ok: true, result: { approvals: [pending] } } };
  const created = {
    status: 200,
    ok: true,
    body: { ok: true, result: { rule: { id: "apr_1" } } },
  };
  const { client, bodies } = fakeClient([listed, listed, created]);
  const fake = fakeTerminal();
  const prompt = new PermissionPrompt(client, fake.terminal, { session, afterSeq: 3 });
  prompt.observe(asked(4, "req_1", "npm test"));
  await prompt.answer({ decision: "allow", remember: true }, signal);
  assert.equal((bodies[0] as { action: string }).action, "svc.sessions.approvals");
  assert.deepEqual(fake.notices.at(-1)!.split("\n"), [
    "Always allow — the rule it creates:",
    '  [s] session    allow shell command starting ["npm","test"] in session ses_1',
    '  [p] project    allow shell command starting ["npm","test"] in project /p',
    '  [e] everywhere allow shell command starting ["npm","test"] everywhere',
  ]);
  assert.equal(
    fake.questions.at(-1),
    "Always allow where? [s]ession / [p]roject / [e]verywhere / [n]o, back",
  );
  assert.equal(prompt.asking, true);
  // n goes back to the request's own question; nothing was answered.
  await prompt.answer({ decision: "deny", remember: false }, signal);
  assert.equal(fake.questions.at(-1), "Allow Bash: npm test? [y]es / [n]o / [a]lways");
  assert.equal(bodies.length, 1);
  await prompt.answer({ decision: "allow", remember: true }, signal);
  await prompt.answer({ decision: "allow", remember: true, scope: "project" }, signal);
  assert.deepEqual(bodies[2], {
    action: "svc.sessions.approve",
    origin: "cli",
    sessionId: "ses_1",
    requestId: "req_1",
    decision: "allow",
    remember: true,
    scope: "project",
  });
  assert.equal(fake.notices.at(-1), "Created approval rule apr_1");
  assert.equal(prompt.asking, false);
});
