import assert from "node:assert/strict";
import { commandFor, helpFor, KEYMAP, VIEWS } from "../../src/ui/keymap.ts";

Deno.test("commandFor(): a view's own key wins over a global one", () => {
  assert.equal(commandFor("n", "fleet"), "next-attention");
  assert.equal(commandFor("n", "approvals"), "deny");
  assert.equal(commandFor("a", "fleet"), "toggle-ended");
  assert.equal(commandFor("a", "approvals"), "always");
  assert.equal(commandFor("r", "routines"), "run-routine");
  assert.equal(commandFor("r", "session"), "resume");
  assert.equal(commandFor("x", "fleet"), null);
  assert.equal(commandFor("q", "inbox"), "quit");
});

Deno.test("helpFor() lists every key of every view once, number keys as 1–6", () => {
  for (const view of VIEWS) {
    const help = helpFor(view);
    const texts = help.map((line) => line.help);
    assert.equal(new Set(texts).size, texts.length, view);
    for (const binding of KEYMAP) {
      if (binding.views && !binding.views.includes(view)) continue;
      assert.ok(texts.includes(binding.help), `${view}: ${binding.help}`);
    }
    assert.ok(help.some((line) => line.keys === "1–6"), view);
  }
});

Deno.test("every command of the keymap is reachable from some view", () => {
  for (const binding of KEYMAP) {
    const views = binding.views ?? VIEWS;
    assert.ok(
      views.some((view) => commandFor(binding.key, view) === binding.command),
      `${binding.key} → ${binding.command}`,
    );
  }
});
