/**
 * Standing approval rules with the real CLIs (issue 25, D28), set up as in
 * agents_e2e_test.ts: each built-in against the fake provider, in a project
 * that is not a git repository. An allow rule runs the tool without asking
 * (`by: "rule"`), a deny rule denies it, a chained command under an allow
 * rule is still asked, and an unattended routine allowed `touch` by a rule
 * creates its file while a different command is denied. opencode runs with
 * the test environment's own `permission` config removed: svc's launch alone
 * must route its shell commands and edits to the broker.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { HARNESSES } from "../../scripts/agents_install.ts";
import type { Harness } from "./agent_bins.ts";
import { type AgentDaemon, startAgentDaemon } from "./agent_daemon.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";
import type { ToolCall } from "./fake_provider.ts";
import { routineDefinition } from "../helpers/routine.ts";

type Json = Record<string, unknown>;

const TURN_TIMEOUT_MINUTES = 0.5;
const APPROVAL_TIMEOUT_SECONDS = 30;

/** A tool call that makes `cli` run `command` with its shell tool. */
function shellCall(cli: Harness, command: string): ToolCall {
  switch (cli) {
    case "claude":
      return { name: "Bash", arguments: { command, description: "Run it" } };
    case "codex":
      return { name: "exec_command", arguments: { cmd: command } };
    case "gemini":
      return { name: "run_shell_command", arguments: { command, description: "Run it" } };
    case "opencode":
      return { name: "bash", arguments: { command, description: "Run it" } };
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function addRule(d: AgentDaemon, fields: Json): Promise<string> {
  const added = await d.act("svc.approvals.rules.add", fields);
  assert.equal(added.ok, true, JSON.stringify(added));
  return ((added.result as Json).rule as Json).id as string;
}

async function removeRule(d: AgentDaemon, id: string): Promise<void> {
  const removed = await d.act("svc.approvals.rules.remove", { id });
  assert.equal(removed.ok, true, JSON.stringify(removed));
}

async function reset(d: AgentDaemon, ...files: string[]): Promise<void> {
  d.provider.clearScript();
  for (const file of files) await Deno.remove(join(d.project, file)).catch(() => {});
}

/** An allow rule on `touch` runs the command without asking anyone. */
async function allowedByRule(d: AgentDaemon, cli: Harness): Promise<void> {
  await reset(d, "created.txt");
  const ruleId = await addRule(d, { decision: "allow", command: ["touch"] });
  d.provider.script([{ toolCall: shellCall(cli, "touch created.txt") }, { text: "done" }]);
  const id = await d.launch({ prompt: "create a file", oneShot: true, approvals: "ask" });
  const ended = await d.waitForEnd(id);
  const [resolved] = await d.waitForKind(id, "agent.permission.resolved", 1);
  assert.deepEqual(resolved, {
    requestId: resolved.requestId,
    decision: "allow",
    by: "rule",
    ruleId,
  });
  assert.equal(ended.status, "completed", JSON.stringify(ended));
  assert.ok(await exists(join(d.project, "created.txt")), "the tool ran");
  await removeRule(d, ruleId);
}

/** A deny rule denies, even in a session whose policy is allow. */
async function deniedByRule(d: AgentDaemon, cli: Harness): Promise<void> {
  await reset(d, "created.txt");
  const ruleId = await addRule(d, { decision: "deny", command: ["touch"], note: "no touching" });
  d.provider.script([{ toolCall: shellCall(cli, "touch created.txt") }, { text: "done" }]);
  const id = await d.launch({ prompt: "create a file", oneShot: true, approvals: "allow" });
  await d.waitForEnd(id);
  const [resolved] = await d.waitForKind(id, "agent.permission.resolved", 1);
  assert.deepEqual([resolved.decision, resolved.by, resolved.ruleId], ["deny", "rule", ruleId]);
  assert.equal(await exists(join(d.project, "created.txt")), false, "the tool never ran");
  await removeRule(d, ruleId);
}

/** `touch … && touch …` under an allow rule on `touch` is asked (here: the owner denies). */
async function chainedIsAsked(d: AgentDaemon, cli: Harness): Promise<void> {
  await reset(d, "created.txt", "other.txt");
  const ruleId = await addRule(d, { decision: "allow", command: ["touch"] });
  const command = "touch created.txt && touch other.txt";
  d.provider.script([{ toolCall: shellCall(cli, command) }, { text: "done" }]);
  const id = await d.launch({ prompt: "create files", oneShot: true, approvals: "ask" });
  const [request] = await d.waitForKind(id, "agent.permission", 1);
  assert.match(String(request.command), /touch created\.txt && touch other\.txt/);
  const listed = await d.act("svc.sessions.approvals", { sessionId: id });
  const [pending] = (listed.result as { approvals: Json[] }).approvals;
  assert.deepEqual([pending.requestId, pending.kind, pending.argv], [
    request.requestId,
    "shell",
    null,
  ]);
  const answered = await d.act("svc.sessions.approve", {
    sessionId: id,
    requestId: request.requestId,
    decision: "deny",
  });
  assert.equal(answered.ok, true, JSON.stringify(answered));
  await d.waitForEnd(id);
  const [resolved] = await d.waitForKind(id, "agent.permission.resolved", 1);
  assert.deepEqual([resolved.decision, resolved.by], ["deny", "owner"]);
  assert.equal(await exists(join(d.project, "created.txt")), false);
  assert.equal(await exists(join(d.project, "other.txt")), false);
  await removeRule(d, ruleId);
}

/**
 * An unattended routine (approvals: deny) allowed `touch` by a rule: the
 * touch runs, the next command (`mkdir`) is denied by the routine's policy.
 */
async function unattendedRoutine(d: AgentDaemon, cli: Harness, model: string | null) {
  await reset(d, "created.txt");
  await Deno.remove(join(d.project, "made"), { recursive: true }).catch(() => {});
  const ruleId = await addRule(d, {
    decision: "allow",
    command: ["touch"],
    projectRoot: d.project,
    note: "nightly may touch",
  });
  d.provider.script([
    { toolCall: shellCall(cli, "touch created.txt") },
    { toolCall: shellCall(cli, "mkdir made") },
    { text: "routine done" },
  ]);
  const routineId = `rules-${d.harness}`;
  const created = await d.act("svc.automations.create", {
    definition: routineDefinition(routineId, {
      runtime: d.harness,
      prompt: "touch then mkdir",
      cwd: d.project,
      approvals: "deny",
      ...(model ? { model } : {}),
    }),
  });
  assert.equal(created.ok, true, JSON.stringify(created));
  const run = (await d.act("svc.automations.run", { id: routineId })).result as Json;
  assert.equal(run.error ?? null, null, JSON.stringify(run));
  const sessionId = run.sessionId as string;
  await d.waitForEnd(sessionId);
  const resolved = await d.waitForKind(sessionId, "agent.permission.resolved", 2);
  assert.deepEqual(
    resolved.map((r) => [r.decision, r.by, r.ruleId ?? null]),
    [["allow", "rule", ruleId], ["deny", "policy", null]],
  );
  assert.ok(await exists(join(d.project, "created.txt")), "the allowed touch ran");
  assert.equal(await exists(join(d.project, "made")), false, "the other command was denied");
  const log = await d.client.get<{ entries: Json[] }>(`/approvals/log?sessionId=${sessionId}`);
  assert.deepEqual(
    log.body.entries.map((entry) => [entry.by, entry.decision, entry.tool !== null]),
    [["rule", "allow", true], ["policy", "deny", true]],
  );
  await removeRule(d, ruleId);
}

/** opencode's edits reach svc: asked under `ask`; an allow rule on edits lets them run. */
async function opencodeEdits(d: AgentDaemon): Promise<void> {
  await reset(d, "note.txt");
  const write: ToolCall = {
    name: "write",
    arguments: { filePath: join(d.project, "note.txt"), content: "hello\n" },
  };
  d.provider.script([{ toolCall: write }, { text: "done" }]);
  const asked = await d.launch({ prompt: "write a note", oneShot: true, approvals: "ask" });
  const [request] = await d.waitForKind(asked, "agent.permission", 1);
  assert.deepEqual(request.paths, [join(d.project, "note.txt")]);
  await d.act("svc.sessions.approve", {
    sessionId: asked,
    requestId: request.requestId,
    decision: "deny",
  });
  await d.waitForEnd(asked);
  assert.equal(await exists(join(d.project, "note.txt")), false, "the edit waited and was denied");

  await reset(d, "note.txt");
  const ruleId = await addRule(d, { decision: "allow", tool: "edit", path: "*.txt" });
  d.provider.script([{ toolCall: write }, { text: "done" }]);
  const ruled = await d.launch({ prompt: "write a note", oneShot: true, approvals: "ask" });
  await d.waitForEnd(ruled);
  const [resolved] = await d.waitForKind(ruled, "agent.permission.resolved", 1);
  assert.deepEqual([resolved.by, resolved.ruleId], ["rule", ruleId]);
  assert.equal(await Deno.readTextFile(join(d.project, "note.txt")), "hello\n");
  await removeRule(d, ruleId);
}

const options = { ignore: !runAgentTests, sanitizeOps: false, sanitizeResources: false };

/** The test environment's opencode config without its own `permission` (svc must set it). */
function withoutOwnPermission(env: Record<string, string>): Record<string, string> {
  if (env.OPENCODE_CONFIG_CONTENT === undefined) return env;
  const config = JSON.parse(env.OPENCODE_CONFIG_CONTENT);
  delete config.permission;
  return { ...env, OPENCODE_CONFIG_CONTENT: JSON.stringify(config) };
}

for (const cli of HARNESSES) {
  Deno.test({ name: `${cli}: standing approval rules (D28)`, ...options }, async (t) => {
    requireAgent(cli);
    await using d = await startAgentDaemon(cli, {
      config: {
        turnTimeoutMinutes: TURN_TIMEOUT_MINUTES,
        approvals: { timeoutSeconds: APPROVAL_TIMEOUT_SECONDS },
      },
      env: withoutOwnPermission,
    });
    const model = cli === "gemini" ? "gemini-2.5-flash" : null;
    await t.step("an allow rule runs the tool without a prompt", () => allowedByRule(d, cli));
    await t.step("a deny rule denies it, even under policy allow", () => deniedByRule(d, cli));
    await t.step("a chained command under an allow rule is asked", () => chainedIsAsked(d, cli));
    await t.step(
      "an unattended routine: the rule's command runs, another is denied",
      () => unattendedRoutine(d, cli, model),
    );
    if (cli === "opencode") {
      await t.step(
        "opencode's edits are asked, and allowed by an edit rule",
        () => opencodeEdits(d),
      );
    }
  });
}
