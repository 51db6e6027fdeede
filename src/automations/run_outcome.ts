import type { Usage } from "../agents/protocol.ts";
import { truncateUtf8 } from "../events/page.ts";
import type { EventsStore } from "../store/events_store.ts";
import type { SessionsStore } from "../store/sessions_store.ts";
import type { WorktreeRecord } from "../worktrees/worktree_record.ts";

/** A run's `summary` holds at most this many UTF-8 bytes (D22). */
export const SUMMARY_BYTES = 4096;

/** What a run's record and result take from its ended session (D20, D22). */
export interface RunOutcome {
  usage: Usage | null;
  summary: string | null;
  worktree: WorktreeRecord | null;
  /** The tools of the permission requests denied (issue 27 item 7); not stored, reported. */
  deniedTools: string[];
}

/**
 * The outcome of session `sessionId`: its usage and worktree as stored, and
 * its final assistant text cut to 4 KiB (a raw harness: the last 4 KiB of
 * its standard output, where programs print their conclusion).
 */
export function runOutcome(
  sessions: SessionsStore,
  events: EventsStore,
  sessionId: string,
): RunOutcome {
  const row = sessions.get(sessionId);
  const text = events.finalText(sessionId);
  const summary = text === null
    ? null
    : row?.protocol === "raw"
    ? tailUtf8(text, SUMMARY_BYTES)
    : truncateUtf8(text, SUMMARY_BYTES);
  return {
    usage: row?.usage_json ? JSON.parse(row.usage_json) : null,
    summary,
    worktree: row?.worktree_json ? JSON.parse(row.worktree_json) : null,
    deniedTools: events.deniedTools(sessionId),
  };
}

/** The last `maxBytes` of `text` in UTF-8, never half a character. Pure. */
export function tailUtf8(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - maxBytes;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++; // Skip continuation bytes.
  return new TextDecoder().decode(bytes.subarray(start));
}
