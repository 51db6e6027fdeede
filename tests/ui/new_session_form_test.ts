import assert from "node:assert/strict";
import { emptyForm, formKey, formUnavailable, launchOf } from "../../src/ui/new_session_form.ts";

const PLAIN = { backspace: false, delete: false, ctrl: false, meta: false };
const key = (name: string, text = "") => ({ name, text, key: PLAIN });

Deno.test("formKey() types into the text fields, keys included", () => {
  const form = emptyForm("/p");
  assert.deepEqual(formKey(form, key("q", "q"), 2), { form: { ...form, prompt: "q" } });
  assert.deepEqual(formKey(form, key(" ", " "), 2), { form: { ...form, prompt: " " } });
  const typed = { ...form, prompt: "ab" };
  assert.deepEqual(
    formKey(typed, { name: "", text: "", key: { ...PLAIN, backspace: true } }, 2),
    { form: { ...typed, prompt: "a" } },
  );
});

Deno.test("formKey() moves between fields, picks the harness, toggles the worktree", () => {
  const form = emptyForm("/p");
  assert.deepEqual(formKey(form, key("<up>"), 2), { form: { ...form, field: "projectRoot" } });
  const onHarness = { ...form, field: "harness" as const };
  assert.deepEqual(formKey(onHarness, key("<left>"), 3), { form: { ...onHarness, harness: 2 } });
  assert.deepEqual(formKey(onHarness, key("<right>"), 3), { form: { ...onHarness, harness: 1 } });
  // The form opens on the prompt: ←/→ choose the harness from there too (issue 38 item 12).
  assert.deepEqual(formKey(form, key("<right>"), 3), { form: { ...form, harness: 1 } });
  assert.deepEqual(formKey(form, key("<left>"), 3), { form: { ...form, harness: 2 } });
  const onWorktree = { ...form, field: "worktree" as const };
  assert.deepEqual(formKey(onWorktree, key(" ", " "), 2), {
    form: { ...onWorktree, worktree: true },
  });
  assert.equal(formKey(onWorktree, key("q", "q"), 2), null, "q does not quit from the form");
});

Deno.test("formKey(): Enter launches, Esc leaves, Ctrl-C quits", () => {
  const form = emptyForm("/p");
  assert.deepEqual(formKey(form, key("<return>"), 1), { do: "launch" });
  assert.deepEqual(formKey(form, key("<escape>"), 1), { do: "back" });
  assert.deepEqual(formKey(form, key("<ctrl-c>"), 1), { do: "quit" });
});

Deno.test("launchOf() names the chosen harness, or why Enter cannot launch", () => {
  const harnesses = [{ id: "claude", label: "Claude Code" }, { id: "codex", label: "Codex" }];
  const form = { ...emptyForm("/p"), harness: 1, prompt: "fix it" };
  assert.deepEqual(launchOf(form, harnesses), { ...form, harness: "codex" });
  assert.deepEqual(launchOf({ ...form, prompt: " " }, harnesses), {
    problem: "Type a prompt first",
  });
  assert.deepEqual(launchOf(form, []), { problem: "No harness to launch with" });
});

Deno.test("formUnavailable() blames the daemon, not the harnesses, when none answers (issue 38 item 12)", () => {
  assert.match(formUnavailable([], "disconnected") ?? "", /^No daemon answers.*svc serve/);
  assert.match(formUnavailable([], "connected") ?? "", /^No harness is enabled/);
  assert.equal(formUnavailable([], "connecting"), "Reading the harnesses from the daemon…");
  assert.equal(formUnavailable([{ id: "claude", label: "Claude" }], "disconnected"), null);
});
