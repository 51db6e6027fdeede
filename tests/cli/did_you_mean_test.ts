import assert from "node:assert/strict";
import { closestWord, didYouMean, editDistance } from "../../src/cli/did_you_mean.ts";
import { subcommandUsage } from "../../src/cli/subcommand_help.ts";
import { sessionsCommand } from "../../src/cli/sessions.ts";

Deno.test("editDistance() counts edits, a swap of neighbours as one", () => {
  assert.equal(editDistance("sessions", "sesions"), 1);
  assert.equal(editDistance("harness", "harnes"), 1);
  assert.equal(editDistance("watch", "wacth"), 1);
  assert.equal(editDistance("", "abc"), 3);
});

Deno.test("closestWord() suggests only what is near", () => {
  const commands = ["sessions", "status", "stop", "serve", "chat"];
  assert.equal(closestWord("sesions", commands), "sessions");
  assert.equal(closestWord("stauts", commands), "status");
  assert.equal(closestWord("frobnicate", commands), null);
  assert.equal(closestWord("x", commands), null);
  assert.equal(didYouMean("--harnes", ["--harness", "--home"]), " (did you mean --harness?)");
  assert.equal(didYouMean("--zzz", ["--harness"]), "");
});

Deno.test("subcommandUsage() is one subcommand's entry and the shared trailer", () => {
  const kill = subcommandUsage("sessions", sessionsCommand.usage, "kill")!;
  assert.match(kill, /^Usage: svc sessions kill ID \[--signal SIGTERM\|SIGKILL\]\n {4}Signals/);
  assert.doesNotMatch(kill, /list|input/);
  assert.match(kill, /\n\nEvery subcommand takes --home DIR/);
  assert.equal(subcommandUsage("sessions", sessionsCommand.usage, "nope"), null);
  assert.equal(subcommandUsage("x", "Usage: svc x", "kill"), null);
});
