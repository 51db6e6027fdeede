/**
 * The line being typed at the chat prompt, fed with the keys a terminal in
 * cbreak mode sends (no echo, no line editing by the kernel). Pure: the
 * terminal draws `text()` after each change.
 *
 * Enter submits; Backspace, Ctrl-U (line) and Ctrl-W (word) delete; Ctrl-D
 * on an empty line ends input. Escape sequences (arrows, function keys) are
 * skipped. Newlines inside a bracketed paste stay in the line, so a pasted
 * paragraph is one message.
 */

/** What a key did: submitted a line, ended input, or changed the line. */
export type EditorAction =
  | { type: "submit"; line: string }
  | { type: "eof" }
  | { type: "change" };

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** One prompt's line editor. */
export class LineEditor {
  #chars: string[] = [];
  /** An escape sequence split across reads, kept until it is complete. */
  #escape = "";
  #inPaste = false;
  /** The last key was CR: a following LF is the same Enter. */
  #afterCr = false;

  /** The line typed so far (newlines of a paste included). */
  text(): string {
    return this.#chars.join("");
  }

  /** Feeds the decoded text of one read; returns what happened, in order. */
  feed(input: string): EditorAction[] {
    const actions: EditorAction[] = [];
    let changed = false;
    const flushChange = () => {
      if (changed) actions.push({ type: "change" });
      changed = false;
    };
    for (const char of input) {
      if (this.#escape !== "" || char === "\x1b") {
        this.#escape += char;
        const done = this.#escapeDone();
        if (done === "pending") continue;
        if (this.#escape === PASTE_START) this.#inPaste = true;
        if (this.#escape === PASTE_END) this.#inPaste = false;
        this.#escape = "";
        continue;
      }
      const afterCr = this.#afterCr;
      this.#afterCr = char === "\r";
      if (char === "\r" || char === "\n") {
        if (char === "\n" && afterCr) continue;
        if (this.#inPaste) {
          this.#chars.push("\n");
          changed = true;
          continue;
        }
        flushChange();
        actions.push({ type: "submit", line: this.text() });
        this.#chars = [];
        continue;
      }
      switch (char) {
        case "\x7f":
        case "\b":
          changed = this.#chars.pop() !== undefined || changed;
          continue;
        case "\x15": // Ctrl-U
          changed = changed || this.#chars.length > 0;
          this.#chars = [];
          continue;
        case "\x17": // Ctrl-W
          changed = this.#deleteWord() || changed;
          continue;
        case "\x04": // Ctrl-D
          if (this.#chars.length === 0) {
            flushChange();
            actions.push({ type: "eof" });
          }
          continue;
        case "\t":
          this.#chars.push(" ");
          changed = true;
          continue;
      }
      if (char < " " || (char >= "\x80" && char <= "\x9f")) continue;
      this.#chars.push(char);
      changed = true;
    }
    flushChange();
    return actions;
  }

  /** Whether the escape sequence in progress is complete (CSI, SS3, or ESC + one key). */
  #escapeDone(): "pending" | "done" {
    const sequence = this.#escape;
    if (sequence.length < 2) return "pending";
    if (sequence[1] === "[") {
      // CSI: parameters and intermediates, then one final byte in @..~.
      if (sequence.length === 2) return "pending";
      const last = sequence[sequence.length - 1];
      return last >= "@" && last <= "~" ? "done" : "pending";
    }
    if (sequence[1] === "O") return sequence.length < 3 ? "pending" : "done";
    return "done";
  }

  #deleteWord(): boolean {
    const before = this.#chars.length;
    while (this.#chars.length > 0 && /\s/.test(this.#chars.at(-1)!)) this.#chars.pop();
    while (this.#chars.length > 0 && !/\s/.test(this.#chars.at(-1)!)) this.#chars.pop();
    return this.#chars.length !== before;
  }
}
