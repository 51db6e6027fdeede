import assert from "node:assert/strict";
import { commandFor, helpSections, KEYMAP, VIEW_TITLES, VIEWS } from "../../src/ui/keymap.ts";

Deno.test("commandFor(): a view's own key wins over a global one", () => {
  assert.equal(commandFor("n", "fleet"), null);
  assert.equal(commandFor("!", "approvals"), "next-attention");
  assert.equal(commandFor("n", "approvals"), "deny");
  assert.equal(commandFor("a", "fleet"), "toggle-ended");
  assert.equal(commandFor("a", "approvals"), "always");
  assert.equal(commandFor("r", "routines"), "run-routine");
  assert.equal(commandFor("r", "session"), "resume");
  assert.equal(commandFor("x", "fleet"), null);
  assert.equal(commandFor("q", "inbox"), "quit");
});

Deno.test("helpSections() lists every key: the view's own first, then every view, then by view", () => {
  for (const view of VIEWS) {
    const sections = helpSections(view);
    // The attention view has no keys of its own: Enter and ! work everywhere.
    const own = view === "attention" ? [] : [`${VIEW_TITLES[view]} (this view)`];
    assert.deepEqual(sections.slice(0, own.length + 1).map((s) => s.title), [...own, "Every view"]);
    const texts = sections.flatMap((section) => section.entries.map((entry) => entry.help));
    for (const binding of KEYMAP) {
      assert.ok(texts.includes(binding.help), `${view}: ${binding.help}`);
    }
    const everyView = sections[own.length].entries;
    assert.ok(everyView.some((entry) => entry.keys === "1–7"), view);
    assert.ok(everyView.some((entry) => entry.keys === "↑/k"), view);
  }
});

Deno.test("every help entry fits its column at 80 columns (issue 38 item 8)", () => {
  for (const binding of KEYMAP) {
    assert.ok(binding.help.length <= 29, `${binding.help} (${binding.help.length})`);
    assert.ok((binding.label ?? binding.key).length <= 7, binding.key);
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

Deno.test("commandFor(): a key means one thing in every view (issue 38 item 9)", () => {
  // D25 names `a` (ended sessions in the fleet, always elsewhere) and `r` (resume, run a routine)
  // per view, and Ctrl-C interrupts a turn but quits elsewhere; every other key has one meaning.
  const perView = new Set(["a", "r", "<ctrl-c>"]);
  for (const key of new Set(KEYMAP.map((binding) => binding.key))) {
    if (perView.has(key)) continue;
    const commands = new Set(
      VIEWS.map((view) => commandFor(key, view)).filter((command) => command !== null),
    );
    assert.equal(commands.size, 1, `${key}: ${[...commands].join(", ")}`);
  }
  for (const view of ["session", "approvals"] as const) assert.equal(commandFor("n", view), "deny");
  for (const view of ["fleet", "session", "approvals"] as const) {
    assert.equal(commandFor("!", view), "next-attention");
    assert.equal(commandFor("j", view), "down");
    assert.equal(commandFor("k", view), "up");
  }
});
