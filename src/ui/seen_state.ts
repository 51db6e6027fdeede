/**
 * What `svc ui` remembers between runs (issue 38 item 12): the sessions
 * whose failure or finished turn the user has not looked at yet, and when it
 * last knew. At the next start those still need the user, and so does every
 * session that failed or finished a turn while no UI was watching. Pure: the
 * runner reads and writes the file.
 */
import type { SessionRecord } from "./model.ts";

/** The file's content. */
export interface SeenState {
  /** Until when the UI watched (ISO time). */
  savedAt: string;
  /** Sessions that needed the user then. */
  unseen: string[];
}

/** The file's text for `unseen` at `savedAt`. */
export function seenStateText(unseen: Iterable<string>, savedAt: string): string {
  return JSON.stringify({ savedAt, unseen: [...unseen] } satisfies SeenState) + "\n";
}

/** The state a file holds, or null for a missing, foreign or damaged one (nothing restored). */
export function parseSeenState(text: string | null): SeenState | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text);
    if (
      typeof value?.savedAt !== "string" || Number.isNaN(Date.parse(value.savedAt)) ||
      !Array.isArray(value.unseen) || !value.unseen.every((id: unknown) => typeof id === "string")
    ) return null;
    return { savedAt: value.savedAt, unseen: value.unseen };
  } catch {
    return null;
  }
}

/**
 * The sessions that need the user at a start after `saved`: failed ones and
 * live ones idle after a turn, that were unseen when the UI last quit or that
 * changed after it did.
 */
export function unseenAfterRestart(
  sessions: Iterable<SessionRecord>,
  saved: SeenState,
): Set<string> {
  const before = new Set(saved.unseen);
  const since = Date.parse(saved.savedAt);
  const unseen = new Set<string>();
  for (const session of sessions) {
    const needs = session.status === "failed" ||
      (session.status === "running" && session.activity === "idle" && session.turns > 0);
    if (needs && (before.has(session.id) || Date.parse(session.updated_at) > since)) {
      unseen.add(session.id);
    }
  }
  return unseen;
}
