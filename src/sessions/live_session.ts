/**
 * A running start of a session (D7): its process, its stdin and what is
 * queued on it, whether a kill was asked for, and its conversation. The
 * supervisor holds one per live session, from spawn to its end.
 */
import type { Conversation } from "../agents/conversation.ts";
import { StreamRedactor } from "../events/stream_redactor.ts";
import type { SessionRow } from "../store/sessions_store.ts";
import type { MarkedReaper } from "./process_tree.ts";
import type { SpawnedProcess } from "./spawner.ts";

/** One start of a live session. */
export interface LiveSession {
  row: SessionRow;
  process: SpawnedProcess;
  /** Which start of the session this process is (its marker): 0 at launch, +1 per resume. */
  generation: number;
  stdin: WritableStreamDefaultWriter<Uint8Array> | null;
  /** Input bytes accepted but not yet taken by the child (it may not be reading). */
  pendingInput: number;
  killRequested: boolean;
  killTimer: ReturnType<typeof setTimeout> | null;
  ended: Promise<SessionRow>;
  /** The agent conversation of a protocol session; null for raw ones. */
  conversation: Conversation | null;
  /**
   * Redacts a raw session's input as one stream, so a secret split across
   * two `input` calls is still found (issue 13); a line without its newline
   * is recorded once it ends, at the next input after PARTIAL_IDLE_MS, or at the end.
   */
  inputRedactor: StreamRedactor;
  inputIdleTimer: ReturnType<typeof setTimeout> | null;
}

/** The start of `row` that `process` just began: stdin open, nothing queued, no kill asked. */
export function newLiveSession(row: SessionRow, process: SpawnedProcess): LiveSession {
  return {
    row,
    process,
    generation: row.resumes,
    stdin: process.stdin.getWriter(),
    pendingInput: 0,
    killRequested: false,
    killTimer: null,
    ended: Promise.resolve(row),
    conversation: null,
    inputRedactor: new StreamRedactor(),
    inputIdleTimer: null,
  };
}

/** Ends the child's input (end of file); later writes find no stdin. */
export function closeStdin(live: LiveSession): void {
  live.stdin?.close().catch(() => {});
  live.stdin = null;
}

/** The start's process group, and its marked processes that left the group. */
export function signalStart(live: LiveSession, reaper: MarkedReaper, signal: Deno.Signal): void {
  live.process.killGroup(signal);
  reaper.signal(live.row.id, live.generation, signal);
}
