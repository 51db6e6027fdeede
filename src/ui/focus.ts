/**
 * The conversation of the session in focus (D25's session view): its event
 * records rendered into lines by the same transcript renderer as `svc
 * events` and `svc chat` (src/cli/transcript.ts), so both show the same
 * thing, and every string made terminal-safe there. Bounded: the oldest
 * lines go first.
 */
import { AGENT, createTranscript, type Transcript, YOU } from "../cli/transcript.ts";
import { terminalSafe } from "../cli/terminal_text.ts";
import { EXPAND_HINT, outputDetail, toggleOutput } from "./tool_output.ts";
import type { TranscriptScroll } from "./transcript_window.ts";
import { Listeners } from "./listeners.ts";

/** How a line is coloured. */
export type Tone = "you" | "agent" | "bad" | "dim" | "plain";

/** One rendered line of the conversation. */
export interface FocusLine {
  readonly text: string;
  readonly tone: Tone;
  /** A tool call's summary: its whole output, which `o` shows under it (tool_output.ts). */
  readonly detail?: readonly FocusLine[];
}

/** What the session view shows. */
export interface FocusSnapshot {
  readonly sessionId: string | null;
  readonly lines: readonly FocusLine[];
  /** The assistant's line being written, streamed live (D29), or null. */
  readonly partial: string | null;
  /** The stream said the session ended and sent everything. */
  readonly ended: boolean;
}

/** Lines kept per session on screen (scrollback). */
export const MAX_FOCUS_LINES = 5000;

const EMPTY: FocusSnapshot = { sessionId: null, lines: [], partial: null, ended: false };

export class FocusStore {
  #snapshot: FocusSnapshot = EMPTY;
  #transcript: Transcript | null = null;
  /** A raw session's output line not yet ended by a newline. */
  #rawLine = "";
  readonly #listeners = new Listeners();

  readonly snapshot = (): FocusSnapshot => this.#snapshot;

  readonly subscribe = this.#listeners.subscribe;

  /** Starts showing `sessionId` (null: nothing), forgetting the previous one. */
  reset(sessionId: string | null, protocol: string): void {
    this.#transcript = sessionId === null ? null : createTranscript({ protocol, color: false });
    this.#rawLine = "";
    this.#set({ sessionId, lines: [], partial: null, ended: false });
  }

  /**
   * Renders the next event records of the session in focus, in seq order,
   * and live-only deltas (D29) where they came: the transcript hands back the
   * streamed text as pieces of an open line, shown at the bottom until the
   * final message closes it.
   */
  append(records: ReadonlyArray<{ kind: string; payload_json: string }>): void {
    if (this.#transcript === null) return;
    const added: FocusLine[] = [];
    let open = this.#snapshot.partial;
    for (const record of records) {
      const detail = record.kind === "agent.tool" ? toolDetail(record.payload_json) : undefined;
      for (const piece of this.#transcript.render(record)) {
        if (piece.type === "line" && detail !== undefined && piece.text.startsWith(OUTPUT_MARK)) {
          added.push({ text: piece.text + EXPAND_HINT, tone: "dim", detail });
        } else if (piece.type === "line") {
          added.push({ text: piece.text, tone: toneOf(piece.text) });
        } else if (piece.type === "output") {
          added.push(...this.#rawLines(piece.data));
        } else {
          const parts = ((open ?? "") + piece.text).split("\n");
          open = parts.pop() ?? "";
          added.push(...parts.map((text) => ({ text, tone: "agent" as const })));
          if (open === "") open = null;
        }
      }
    }
    const lines = [...this.#snapshot.lines, ...added];
    this.#set({
      ...this.#snapshot,
      lines: lines.length > MAX_FOCUS_LINES ? lines.slice(-MAX_FOCUS_LINES) : lines,
      partial: open,
    });
  }

  /**
   * `o` (issue 38 item 2): the output of the tool call nearest above the
   * window's bottom shown whole, or folded again. Returns where the window
   * stays, or false when there is no output to show.
   */
  toggleOutput(scroll: TranscriptScroll): TranscriptScroll | false {
    const toggled = toggleOutput(this.#snapshot.lines, scroll);
    if (toggled === null) return false;
    this.#set({ ...this.#snapshot, lines: toggled.lines });
    return toggled.scroll;
  }

  /** The stream ended: the session is over and every event was rendered. */
  ended(): void {
    const lines = this.#rawLine === "" ? this.#snapshot.lines : [
      ...this.#snapshot.lines,
      { text: this.#rawLine, tone: "plain" as const },
    ];
    this.#rawLine = "";
    this.#set({ ...this.#snapshot, lines, partial: null, ended: true });
  }

  /** The session in focus was resumed (D26): its stream is followed again, below what was shown. */
  resumed(): void {
    this.#set({ ...this.#snapshot, ended: false });
  }

  /** A raw session's output, cut into whole lines; the unfinished one is held. */
  #rawLines(data: string): FocusLine[] {
    const parts = terminalSafe(this.#rawLine + data, { keepTabs: true }).split("\n");
    this.#rawLine = parts.pop() ?? "";
    return parts.map((text) => ({ text, tone: "plain" }));
  }

  #set(snapshot: FocusSnapshot): void {
    this.#snapshot = snapshot;
    this.#listeners.notify();
  }
}

/** How the transcript starts a tool's output summary (`    → first line`). */
const OUTPUT_MARK = "    → ";

/** The whole output of an `agent.tool` record, when its summary does not show all of it. */
function toolDetail(payloadJson: string): readonly FocusLine[] | undefined {
  try {
    return outputDetail(JSON.parse(payloadJson)?.output);
  } catch {
    return undefined;
  }
}

function toneOf(text: string): Tone {
  if (text.startsWith(YOU)) return "you";
  if (text.startsWith(AGENT)) return "agent";
  if (text.startsWith("!") || text.startsWith("✗")) return "bad";
  if (text.startsWith(" ") || text.startsWith("·") || text.startsWith("─")) return "dim";
  return "plain";
}
