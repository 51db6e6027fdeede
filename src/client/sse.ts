/**
 * A Server-Sent Events parser (the WHATWG `text/event-stream` format), pure:
 * text chunks in, complete messages out. Lines end with CRLF, LF or CR, also
 * when a chunk splits the pair or a line; comments (`: keep-alive`) and
 * `retry` are dropped; a message is dispatched at its blank line, and only
 * when it has data. A message cut off by the end of the stream is never
 * dispatched, as the format requires, so a reader resumes before it.
 */

/** One dispatched message. */
export interface SseMessage {
  /** The `id` field of this message, or null when it has none. */
  id: string | null;
  /** The `event` field, `"message"` when absent. */
  event: string;
  /** The `data` fields joined by `"\n"`. */
  data: string;
}

/** A message (or line) longer than the parser's bound: the stream is not one to trust. */
export class SseMessageTooLarge extends Error {
  constructor(maxLength: number) {
    super(`Stream message exceeds ${maxLength} characters`);
    this.name = "SseMessageTooLarge";
  }
}

/** An incremental parser; use one per connection. */
export class SseParser {
  readonly #maxLength: number;
  readonly #lineEnd = /[\r\n]/g;
  /** The unterminated line carried over from earlier chunks. */
  #line = "";
  /** The last chunk ended with CR: a LF starting the next one belongs to it. */
  #afterCr = false;
  #started = false;
  #id: string | null = null;
  #event = "";
  #data: string[] = [];
  #dataLength = 0;
  #lastEventId = "";

  /** `maxMessageLength` bounds a message's pending text (default: none). */
  constructor({ maxMessageLength = Infinity }: { maxMessageLength?: number } = {}) {
    this.#maxLength = maxMessageLength;
  }

  /**
   * The last event id seen, kept across messages as the format's "last event
   * ID buffer" (what a reconnect sends as `Last-Event-ID`).
   */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** Feeds a chunk of decoded text; returns the messages it completed, in order. */
  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#afterCr && text.length > 0) {
      this.#afterCr = false;
      if (text.startsWith("\n")) text = text.slice(1);
    }
    const messages: SseMessage[] = [];
    let start = 0;
    const lineEnd = this.#lineEnd;
    lineEnd.lastIndex = 0;
    for (let match = lineEnd.exec(text); match !== null; match = lineEnd.exec(text)) {
      const end = match.index;
      const line = this.#line + text.slice(start, end);
      this.#line = "";
      start = end + 1;
      if (text[end] === "\r") {
        if (start === text.length) this.#afterCr = true;
        else if (text[start] === "\n") start++;
      }
      lineEnd.lastIndex = start;
      const message = this.#takeLine(line);
      if (message !== null) messages.push(message);
    }
    this.#line += text.slice(start);
    if (this.#line.length + this.#dataLength > this.#maxLength) {
      throw new SseMessageTooLarge(this.#maxLength);
    }
    return messages;
  }

  #takeLine(line: string): SseMessage | null {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.#data.push(value);
        this.#dataLength += value.length + 1;
        if (this.#dataLength > this.#maxLength) throw new SseMessageTooLarge(this.#maxLength);
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\0")) {
          this.#id = value;
          this.#lastEventId = value;
        }
        break;
    }
    return null;
  }

  #dispatch(): SseMessage | null {
    const message = this.#data.length === 0
      ? null
      : { id: this.#id, event: this.#event || "message", data: this.#data.join("\n") };
    this.#id = null;
    this.#event = "";
    this.#data = [];
    this.#dataLength = 0;
    return message;
  }
}
