/**
 * What the terminal sends, as `svc ui` reads it: Ink's key named as the
 * keymap names it, a chunk typed ahead or pasted cut into keys, and a text
 * field (the input line, the filter, the form) after a key.
 */
import type { Key } from "ink";

/**
 * One character of a chunk the terminal sent at once (typed ahead or pasted):
 * Enter, Tab, Backspace and Esc in it are keys, not text.
 */
export function splitKey(char: string, key: Key): { text: string; key: Key } {
  const plain = { ...key };
  switch (char) {
    case "\r":
    case "\n":
      return { text: "", key: { ...plain, return: true } };
    case "\t":
      return { text: "", key: { ...plain, tab: true } };
    case "\x7f":
    case "\b":
      return { text: "", key: { ...plain, backspace: true } };
    case "\x1b":
      return { text: "", key: { ...plain, escape: true } };
    default:
      return { text: char, key: plain };
  }
}

/** Ink's key as the keymap names it. */
export function keyName(
  text: string,
  key: {
    upArrow: boolean;
    downArrow: boolean;
    leftArrow: boolean;
    rightArrow: boolean;
    pageUp: boolean;
    pageDown: boolean;
    return: boolean;
    escape: boolean;
    tab: boolean;
    ctrl: boolean;
  },
): string {
  if (key.upArrow) return "<up>";
  if (key.downArrow) return "<down>";
  if (key.leftArrow) return "<left>";
  if (key.rightArrow) return "<right>";
  if (key.pageUp) return "<pageup>";
  if (key.pageDown) return "<pagedown>";
  if (key.return) return "<return>";
  if (key.escape) return "<escape>";
  if (key.tab) return "<tab>";
  if (key.ctrl && text === "c") return "<ctrl-c>";
  return text;
}

/** A text field after a key: typed characters appended, Backspace deletes one. */
export function edit(
  current: string,
  text: string,
  key: { backspace: boolean; delete: boolean; ctrl: boolean; meta: boolean },
): string {
  if (key.backspace || key.delete) return [...current].slice(0, -1).join("");
  if (key.ctrl || key.meta) return current;
  // Pasted or typed text; control characters are never kept (they would reach the terminal).
  return current + [...text].filter((char) => !isControl(char)).join("");
}

function isControl(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0);
}

/** The browser's names of the keys the keymap names in angle brackets (`KeyboardEvent.key`). */
const BROWSER_KEYS: Record<string, string> = {
  ArrowUp: "<up>",
  ArrowDown: "<down>",
  ArrowLeft: "<left>",
  ArrowRight: "<right>",
  PageUp: "<pageup>",
  PageDown: "<pagedown>",
  Enter: "<return>",
  Escape: "<escape>",
  Tab: "<tab>",
};

/**
 * A browser's key as the keymap names it (the web face of D30 runs the same
 * keymap): `<up>`, `<return>`, `G`, `<ctrl-c>`. Null for a key the keymap
 * never names: a lone modifier, a function key, a chord with Ctrl, Alt or Meta.
 */
export function browserKeyName(
  event: { key: string; ctrlKey: boolean; altKey: boolean; metaKey: boolean },
): string | null {
  if (event.altKey || event.metaKey) return null;
  if (event.ctrlKey) return event.key.toLowerCase() === "c" ? "<ctrl-c>" : null;
  const named = BROWSER_KEYS[event.key];
  if (named !== undefined) return named;
  return [...event.key].length === 1 ? event.key : null;
}
