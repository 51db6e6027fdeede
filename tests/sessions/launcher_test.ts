import assert from "node:assert/strict";
import { ServiceError } from "../../src/errors.ts";
import type { CapabilityRegistry } from "../../src/sessions/capabilities.ts";
import { BUILTIN_HARNESSES, type HarnessSpec } from "../../src/sessions/harnesses.ts";
import { Launcher } from "../../src/sessions/launcher.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { runningSessionRow } from "../helpers/rows.ts";

const builtins = new Map<string, HarnessSpec>(BUILTIN_HARNESSES.map((spec) => [spec.id, spec]));

/** Claude is installed, gemini is not; codex and opencode are unknown to the registry. */
const capabilities = {
  harness: (id: string) =>
    id === "claude" ? { status: "enabled" } : id === "gemini" ? { status: "disabled" } : null,
} as unknown as CapabilityRegistry;

function launcher(projectRoots: string[] | null = null): Launcher {
  return new Launcher({
    home: "/home/svc",
    harnesses: () => builtins,
    capabilities,
    projectRoots: () => projectRoots,
    inspectWorktree: () => Promise.resolve("present"),
  });
}

const refusal = (code: string, match: (error: ServiceError) => boolean) => (error: unknown) =>
  error instanceof ServiceError && error.code === code && match(error);

Deno.test("Launcher.command() builds one start's argv, environment and cwd", async (t) => {
  const claude = builtins.get("claude")!;
  const row = { ...runningSessionRow("ses_1"), resumes: 2 };
  await t.step("a launch: the prompt goes as the first turn, the start is marked", () => {
    const command = launcher().command(row, {
      harness: claude,
      cwd: "/work",
      prompt: "hello",
      model: "opus",
      approvals: "ask",
      resumeFrom: null,
    });
    assert.equal(command.argv[0], "claude");
    assert.deepEqual(command.argv.slice(-2), ["--model", "opus"]);
    assert.equal(command.cwd, "/work");
    assert.equal(command.stdinPrompt, null, "claude takes no prompt on stdin");
    assert.deepEqual(command.env, {
      SVC_SESSION_ID: "ses_1",
      SVC_SESSION_HOME: "/home/svc",
      SVC_SESSION_START: "2",
    });
  });
  await t.step("a resume: the agent's resume arguments, no model flag without a model", () => {
    const command = launcher().command(row, {
      harness: claude,
      cwd: "/work",
      prompt: null,
      model: null,
      approvals: "ask",
      resumeFrom: "0b7c9f5e-1d2a-4c3b-8e4f-5a6b7c8d9e0f",
    });
    assert.equal(command.argv.includes("--model"), false);
    assert.equal(command.argv.at(-1), "--resume=0b7c9f5e-1d2a-4c3b-8e4f-5a6b7c8d9e0f");
  });
  await t.step("opencode: its permissions are routed to svc (D28)", () => {
    const command = launcher().command(row, {
      harness: builtins.get("opencode")!,
      cwd: "/work",
      prompt: "hi",
      model: null,
      approvals: "deny",
      resumeFrom: null,
    });
    assert.ok("OPENCODE_PERMISSION" in command.env!);
  });
});

Deno.test("Launcher.checkLaunch() refuses unknown and uninstalled harnesses and contains paths", async () => {
  const root = await Deno.realPath(await tempHome());
  try {
    const checked = await launcher([root]).checkLaunch({
      projectRoot: root,
      harness: "claude",
      prompt: "first line\nsecond",
    });
    assert.deepEqual([checked.cwd, checked.title, checked.model], [root, "first line", null]);
    await assert.rejects(
      launcher().checkLaunch({ projectRoot: root, harness: "nope", prompt: "x" }),
      refusal("invalid_request", (e) => /enabled harnesses: claude$/.test(e.message)),
    );
    await assert.rejects(
      launcher().checkLaunch({ projectRoot: root, harness: "gemini", prompt: "x" }),
      refusal("invalid_request", (e) => /is not installed/.test(e.message)),
    );
    await assert.rejects(
      launcher(["/nonexistent-root"]).checkLaunch({
        projectRoot: root,
        harness: "claude",
        prompt: "x",
      }),
      refusal("invalid_request", (e) => e.details.field === "projectRoot"),
    );
  } finally {
    await removeTree(root);
  }
});

Deno.test("Launcher.checkResume() gives the harness and the real cwd, or not_resumable", async () => {
  const root = await Deno.realPath(await tempHome());
  try {
    const row = { ...runningSessionRow("ses_2"), harness: "claude", project_root: root, cwd: root };
    const { harness, cwd } = await launcher([root]).checkResume(row);
    assert.deepEqual([harness.id, cwd], ["claude", root]);
    await assert.rejects(
      launcher().checkResume({ ...row, harness: "gemini" }),
      refusal("not_resumable", (e) => e.details.reason === "harness_unavailable"),
    );
  } finally {
    await removeTree(root);
  }
});
