/**
 * Text from the daemon made safe to print on a terminal (issue 28): the one
 * sanitizer of the line-oriented CLI, and of the terminal UI to come (D25).
 */

/**
 * What a terminal could act on or hide: CRLF (kept as a newline), the C0
 * controls but newline, DEL, the C1 controls, the bidirectional marks,
 * embeddings, overrides and isolates, and lone surrogates (the `u` flag
 * makes the surrogate range match only unpaired halves).
 */
const UNSAFE =
  // deno-lint-ignore no-control-regex
  /\r\n|[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/gu;

/** Options of `terminalSafe`. */
export interface TerminalSafeOptions {
  /** Keep tabs as they are (free text: messages, logs); else a tab is shown as `^I`. */
  keepTabs?: boolean;
}

/**
 * `text` with every character a terminal could interpret shown visibly
 * instead, so that no string printed can move the cursor, clear the screen,
 * set the title or the clipboard, ring the bell or reorder what is shown:
 *
 * - a C0 control in caret notation (ESC `^[`, BEL `^G`, CR `^M`, NUL `^@`),
 *   and DEL as `^?`; an escape sequence thus prints as text (`^[[2J`);
 * - a C1 control (U+0080–U+009F), a bidirectional control (U+061C,
 *   U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) or a lone surrogate as
 *   `<U+XXXX>`, as `less` shows them.
 *
 * Newlines are kept (CRLF becomes LF), tabs only with `keepTabs`; all other
 * text, emoji and CJK included, is unchanged. The result holds nothing this
 * function would change again, so applying it twice is harmless.
 */
export function terminalSafe(text: string, options: TerminalSafeOptions = {}): string {
  return text.replace(UNSAFE, (match) => {
    if (match === "\r\n") return "\n";
    if (match === "\t" && options.keepTabs) return "\t";
    const code = match.charCodeAt(0);
    if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
    if (code === 0x7f) return "^?";
    return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  });
}
