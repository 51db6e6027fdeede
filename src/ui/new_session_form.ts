/**
 * The new-session form (D25 view 7) as data: its fields and what a key does
 * to it. Face-free: the terminal and a web face both hand it commands of the
 * one keymap, and typed text for the text fields.
 */
import type { LaunchForm } from "./actions.ts";
import { commandFor } from "./keymap.ts";
import { edit } from "./key_input.ts";
import type { HarnessChoice, Snapshot } from "./model.ts";

/** The form's fields, in order. */
export const FORM_FIELDS = ["harness", "projectRoot", "prompt", "model", "worktree"] as const;
export type FormField = typeof FORM_FIELDS[number];

/** What the form holds. */
export interface FormState {
  field: FormField;
  harness: number;
  projectRoot: string;
  prompt: string;
  model: string;
  worktree: boolean;
}

/** An empty form whose project root is `projectRoot`; the cursor on the prompt. */
export function emptyForm(projectRoot: string): FormState {
  return { field: "prompt", harness: 0, projectRoot, prompt: "", model: "", worktree: false };
}

/** What a key did to the form: a new form, a launch, leaving it, quitting, or nothing. */
export type FormStep =
  | { form: FormState }
  | { do: "launch" | "back" | "quit" }
  | null;

/** The key `name` (typed `text`) in the form, with `harnesses` harnesses to choose from. */
export function formKey(
  form: FormState,
  input: {
    name: string;
    text: string;
    key: { backspace: boolean; delete: boolean; ctrl: boolean; meta: boolean };
  },
  harnesses: number,
): FormStep {
  const { name, text } = input;
  const field = form.field;
  if (field === "projectRoot" || field === "prompt" || field === "model") {
    if (name === text || input.key.backspace || input.key.delete) {
      return { form: { ...form, [field]: edit(form[field], text, input.key) } };
    }
  }
  switch (commandFor(name, "new")) {
    case "back":
      return { do: "back" };
    case "open":
      return { do: "launch" };
    case "quit":
      return name === "<ctrl-c>" ? { do: "quit" } : null;
    case "up":
    case "down": {
      if (name !== "<up>" && name !== "<down>") return null;
      const at = FORM_FIELDS.indexOf(form.field) + (name === "<up>" ? -1 : 1);
      return {
        form: { ...form, field: FORM_FIELDS[(at + FORM_FIELDS.length) % FORM_FIELDS.length] },
      };
    }
    case "previous-harness":
    case "next-harness": {
      // From any field: the text fields have no cursor to move (issue 38 item 12).
      const count = Math.max(1, harnesses);
      const by = name === "<left>" ? count - 1 : 1;
      return { form: { ...form, harness: (form.harness + by) % count } };
    }
    case "toggle-worktree":
      return form.field === "worktree" ? { form: { ...form, worktree: !form.worktree } } : null;
    default:
      return null;
  }
}

/** What Enter launches: the form with its harness's id, or why it cannot launch yet. */
export function launchOf(
  form: FormState,
  harnesses: readonly HarnessChoice[],
): LaunchForm | { problem: string } {
  const harness = harnesses[form.harness % Math.max(1, harnesses.length)];
  if (!harness) return { problem: "No harness to launch with" };
  if (form.prompt.trim() === "") return { problem: "Type a prompt first" };
  return { ...form, harness: harness.id };
}

/**
 * Why the form cannot be filled in, or null: the harnesses come from the
 * daemon, so without one the form says that, not that none is enabled.
 */
export function formUnavailable(
  harnesses: readonly HarnessChoice[],
  connection: Snapshot["connection"],
): string | null {
  if (harnesses.length > 0) return null;
  // The first answer has not come yet: not a daemon away (the web page opens on this form).
  if (connection === "connecting") return "Reading the harnesses from the daemon…";
  return connection === "connected"
    ? "No harness is enabled: see svc capabilities. Esc goes back."
    : "No daemon answers, and the harnesses come from it: start one with svc serve. Esc goes back.";
}
