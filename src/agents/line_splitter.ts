/**
 * Splits decoded text into lines across chunk boundaries: one protocol
 * message is one line, but one read may hold several lines or half of one.
 * A line longer than `maxChars` is dropped (counted) rather than buffered
 * without bound.
 */
export class LineSplitter {
  readonly #maxChars: number;
  #buffer = "";
  #skipping = false;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** The complete lines in `text` (without "\n" or "\r\n"), and how many were dropped. */
  push(text: string): { lines: string[]; dropped: number } {
    const lines: string[] = [];
    let dropped = 0;
    let start = 0;
    for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n", start)) {
      const line = this.#buffer + text.slice(start, newline);
      this.#buffer = "";
      start = newline + 1;
      if (this.#skipping) {
        this.#skipping = false;
        continue;
      }
      lines.push(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    if (!this.#skipping) this.#buffer += text.slice(start);
    if (this.#buffer.length > this.#maxChars) {
      this.#buffer = "";
      this.#skipping = true;
      dropped++;
    }
    return { lines, dropped };
  }

  /** The last line when the text ended without a newline. */
  flush(): { lines: string[]; dropped: number } {
    const rest = this.#buffer;
    this.#buffer = "";
    this.#skipping = false;
    return { lines: rest === "" ? [] : [rest], dropped: 0 };
  }
}
