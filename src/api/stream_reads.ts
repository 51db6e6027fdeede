import type { EventRecord } from "../store/events_store.ts";

/** A batch with more payload than this (characters) is not kept: a reader catching up reads its own. */
const SHARED_BATCH_CHARS = 1024 * 1024;

interface SessionReads {
  /** Open streams of the session. */
  readers: number;
  /** The event log's `changes` when the fields below were read. */
  changes: number;
  live: boolean | null;
  query: string | null;
  rows: EventRecord[];
}

/**
 * What a session's streams last read, shared by all of them until the event log next wakes its
 * readers (D19). The readers of a busy session wake together at the same cursor; one query then
 * serves them all instead of two per reader (with 200 readers those queries were 58 % of the
 * daemon's CPU, issue 11's fan-out). Nothing is kept once the session's last stream closes.
 */
export class StreamReads {
  readonly #changes: () => number;
  readonly #bySession = new Map<string, SessionReads>();

  /** `changes` counts the event log's wake-ups: a read is current while it is unchanged. */
  constructor(changes: () => number) {
    this.#changes = changes;
  }

  /** Counts a stream of `sessionId`; the returned function ends it (once). */
  join(sessionId: string): () => void {
    let entry = this.#bySession.get(sessionId);
    if (!entry) {
      entry = { readers: 0, changes: -1, live: null, query: null, rows: [] };
      this.#bySession.set(sessionId, entry);
    }
    entry.readers++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (--entry.readers === 0) this.#bySession.delete(sessionId);
    };
  }

  /** Whether the session is live, as `load` says, shared until the log changes. */
  live(sessionId: string, load: () => boolean): boolean {
    const entry = this.#current(sessionId);
    if (entry === null) return load();
    entry.live ??= load();
    return entry.live;
  }

  /** The rows of `query` (the same query gives the same rows), shared until the log changes. */
  rows(sessionId: string, query: string, load: () => EventRecord[]): EventRecord[] {
    const entry = this.#current(sessionId);
    if (entry === null) return load();
    if (entry.query === query) return entry.rows;
    const rows = load();
    let chars = 0;
    for (const row of rows) chars += row.payload_json.length;
    if (chars <= SHARED_BATCH_CHARS) {
      entry.query = query;
      entry.rows = rows;
    }
    return rows;
  }

  /** The session's entry, emptied when the log changed since it was filled; null when none. */
  #current(sessionId: string): SessionReads | null {
    const entry = this.#bySession.get(sessionId);
    if (!entry) return null;
    const changes = this.#changes();
    if (entry.changes !== changes) {
      entry.changes = changes;
      entry.live = null;
      entry.query = null;
      entry.rows = [];
    }
    return entry;
  }
}
