import assert from "node:assert/strict";
import { configuredVerify, verifyFailed, verifyPassed } from "../../src/worktrees/land_verify.ts";

Deno.test("configuredVerify() takes the longest project root holding the repository (D34)", () => {
  const outer = { command: ["make", "test"] };
  const inner = { command: ["deno", "task", "check"] };
  const projects = [
    { root: "/home/me", land: { verify: outer } },
    { root: "/home/me/project", land: { verify: inner } },
    { root: "/home/me/other" },
  ];
  assert.deepEqual(configuredVerify(projects, "/home/me/project"), inner);
  assert.deepEqual(configuredVerify(projects, "/home/me/project/sub"), inner);
  assert.deepEqual(configuredVerify(projects, "/home/me/elsewhere"), outer);
  assert.equal(configuredVerify(projects, "/home/me/other"), null);
  assert.equal(configuredVerify(projects, "/srv/x"), null);
});

Deno.test("verifyPassed() and verifyFailed() read how the command ended (D34)", () => {
  const green = { command: ["true"], exitCode: 0, timedOut: false, tail: "" };
  assert.equal(verifyPassed(green), true);
  const red = { command: ["make"], exitCode: 2, timedOut: false, tail: "error: x" };
  assert.equal(verifyPassed(red), false);
  const refusal = verifyFailed("s1", red);
  assert.equal(refusal.code, "verify_failed");
  assert.equal(refusal.status, 409);
  assert.match(refusal.message, /exited with code 2; nothing was changed$/);
  assert.deepEqual(refusal.details, {
    sessionId: "s1",
    command: ["make"],
    exitCode: 2,
    timedOut: false,
    tail: "error: x",
  });
  const slow = {
    command: ["sleep"],
    exitCode: null,
    timedOut: true,
    tail: "",
    error: "timed out after 1 s",
  };
  assert.equal(verifyPassed(slow), false);
  assert.match(verifyFailed("s1", slow).message, /timed out after 1 s/);
});
