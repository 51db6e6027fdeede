import type { DatabaseSync, StatementSync } from "node:sqlite";
import { transaction } from "./db.ts";

/** An event record (C2.1). */
export interface EventRecord {
  seq: number;
  id: string;
  session_id: string;
  kind: string;
  payload_json: string;
  created_at: string;
}

/** An event record as JSON bytes, with its seq. */
export interface JsonRow {
  seq: number;
  json: Uint8Array;
}

/**
 * A new `output` event whose payload `{"stream", "data"}` SQLite makes JSON
 * as it inserts it: the output is escaped in C once, not by JSON.stringify
 * in JavaScript and then copied again (issue 14: about 15% less time per
 * stored megabyte, the same text). `data` may be valid UTF-8 bytes, stored
 * as the text they encode.
 */
export interface NewOutputEvent {
  seq: number;
  id: string;
  session_id: string;
  kind: "output";
  stream: string;
  data: string | Uint8Array;
  created_at: string;
}

/** What `appendBatch` takes: a record, or an output event SQLite encodes. */
export type NewEvent = EventRecord | NewOutputEvent;

/** Consecutive events as their records' JSON joined by commas, made by SQLite in one row. */
export interface JsonBatch {
  /** How many events; 0 when none matched. */
  count: number;
  /** The seq of the last one. */
  seq: number;
  /** How many had a payload of `largeBytes` or more: their JSON is not in `json`. */
  large: number;
  json: Uint8Array;
}

/**
 * Event rows in SQLite: appended in batches, read by cursor. The statements
 * are prepared once, with the store, not on every call.
 */
export class EventsStore {
  readonly #db: DatabaseSync;
  readonly #insert: StatementSync;
  readonly #insertOutput: StatementSync;
  readonly #touch: StatementSync;
  readonly #readAfter: StatementSync;
  readonly #seqOf: StatementSync;
  readonly #lastSeq: StatementSync;
  readonly #readKinds = new Map<number, StatementSync>();
  /** `readJsonAfter` statements by number of kinds (-1: none). */
  readonly #readJson = new Map<number, StatementSync>();
  readonly #readJsonBatch = new Map<number, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#insert = db.prepare(
      "INSERT INTO events (session_id, seq, id, kind, payload_json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    // The keys in JSON.stringify's order for {stream, data}: the same text either way.
    this.#insertOutput = db.prepare(
      `INSERT INTO events (session_id, seq, id, kind, payload_json, created_at)
       VALUES (?, ?, ?, 'output', json_object('stream', ?, 'data', CAST(? AS TEXT)), ?)`,
    );
    this.#touch = db.prepare(
      "UPDATE sessions SET last_seq = ?, updated_at = ? WHERE id = ? AND last_seq < ?",
    );
    this.#readAfter = db.prepare(
      `SELECT seq, id, session_id, kind, payload_json, created_at FROM events
       WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    );
    this.#seqOf = db.prepare("SELECT seq FROM events WHERE id = ? AND session_id = ?");
    this.#lastSeq = db.prepare("SELECT MAX(seq) AS seq FROM events WHERE session_id = ?");
  }

  /**
   * Appends a batch in one transaction and moves each session's `last_seq`
   * (group commit: one commit for many chunks, deno-notes).
   */
  appendBatch(events: readonly NewEvent[]): void {
    if (events.length === 0) return;
    transaction(this.#db, () => {
      const last = new Map<string, NewEvent>();
      for (const event of events) {
        if ("payload_json" in event) {
          this.#insert.run(
            event.session_id,
            event.seq,
            event.id,
            event.kind,
            event.payload_json,
            event.created_at,
          );
        } else {
          this.#insertOutput.run(
            event.session_id,
            event.seq,
            event.id,
            event.stream,
            event.data,
            event.created_at,
          );
        }
        last.set(event.session_id, event);
      }
      for (const event of last.values()) {
        this.#touch.run(event.seq, event.created_at, event.session_id, event.seq);
      }
    });
  }

  /**
   * Like `readAfter`, but each event as its record's JSON, UTF-8 bytes made
   * by SQLite (`json_object` in the record's key order): a page is then the
   * rows joined, without decoding, re-encoding or re-escaping in JavaScript
   * (issue 14). With `roomBytes`, the rows stop at the first one that passes
   * it (each counted with one comma), that row included: SQLite steps no
   * further, so a 4 MiB page of 30 KB events no longer makes the JSON of all
   * `limit` of them (issue 26: 33 MB for 130 events).
   */
  readJsonAfter(
    sessionId: string,
    afterSeq: number,
    limit: number,
    kinds?: readonly string[],
    roomBytes = Infinity,
  ): JsonRow[] {
    const key = kinds?.length ?? -1;
    let statement = this.#readJson.get(key);
    if (!statement) {
      const filter = kinds === undefined ? "" : `AND kind IN (${kinds.map(() => "?").join(", ")})`;
      statement = this.#db.prepare(
        `SELECT seq, CAST(json_object('seq', seq, 'id', id, 'session_id', session_id,
           'kind', kind, 'payload_json', payload_json, 'created_at', created_at) AS BLOB) AS json
         FROM events WHERE session_id = ? AND seq > ? ${filter} ORDER BY seq LIMIT ?`,
      );
      this.#readJson.set(key, statement);
    }
    const rows: JsonRow[] = [];
    let bytes = 0;
    // Leaving the loop resets the statement, so no read stays open.
    for (const row of statement.iterate(sessionId, afterSeq, ...(kinds ?? []), limit)) {
      const jsonRow = row as unknown as JsonRow;
      rows.push(jsonRow);
      bytes += jsonRow.json.length + 1;
      if (bytes > roomBytes) break;
    }
    return rows;
  }

  /**
   * Like `readJsonAfter`, but the events joined into one row by SQLite: for
   * a page of small events, one row object and one string instead of a
   * thousand (issue 14: 1000 events of 100 B in 1.7 ms instead of 3.1 ms).
   * An event whose payload has `largeBytes` or more is counted in `large`
   * and its JSON not made (the batch is then not the events'): SQLite joins
   * a batch whole before its size is known, and small events followed by
   * large ones made 60 MB for a 4 MiB page (issue 26). The payload's length
   * is read without its overflow pages, so sizing costs no extra pass.
   */
  readJsonBatch(
    sessionId: string,
    afterSeq: number,
    limit: number,
    kinds?: readonly string[],
    largeBytes = Number.MAX_SAFE_INTEGER,
  ): JsonBatch {
    const key = kinds?.length ?? -1;
    let statement = this.#readJsonBatch.get(key);
    if (!statement) {
      const filter = kinds === undefined ? "" : `AND kind IN (${kinds.map(() => "?").join(", ")})`;
      statement = this.#db.prepare(
        `SELECT count(*) AS count, coalesce(max(seq), 0) AS seq, count(*) - count(json) AS large,
           CAST(coalesce(group_concat(json, ',' ORDER BY seq), '') AS BLOB) AS json
         FROM (SELECT seq, CASE WHEN octet_length(payload_json) < ? THEN json_object('seq', seq,
                 'id', id, 'session_id', session_id, 'kind', kind, 'payload_json', payload_json,
                 'created_at', created_at) END AS json
               FROM events WHERE session_id = ? AND seq > ? ${filter} ORDER BY seq LIMIT ?)`,
      );
      this.#readJsonBatch.set(key, statement);
    }
    return statement.get(
      largeBytes,
      sessionId,
      afterSeq,
      ...(kinds ?? []),
      limit,
    ) as unknown as JsonBatch;
  }

  /** Events with `seq > afterSeq`, ascending, at most `limit`; only `kinds` when given (D17). */
  readAfter(
    sessionId: string,
    afterSeq: number,
    limit: number,
    kinds?: readonly string[],
  ): EventRecord[] {
    if (kinds === undefined) {
      return this.#readAfter.all(sessionId, afterSeq, limit) as unknown as EventRecord[];
    }
    // One statement per number of kinds, prepared once (see SessionsStore on why).
    let statement = this.#readKinds.get(kinds.length);
    if (!statement) {
      statement = this.#db.prepare(
        `SELECT seq, id, session_id, kind, payload_json, created_at FROM events
         WHERE session_id = ? AND seq > ? AND kind IN (${kinds.map(() => "?").join(", ")})
         ORDER BY seq LIMIT ?`,
      );
      this.#readKinds.set(kinds.length, statement);
    }
    return statement.all(sessionId, afterSeq, ...kinds, limit) as unknown as EventRecord[];
  }

  /** How many of a session's permission requests were denied (D18), whoever denied them. */
  deniedPermissions(sessionId: string): number {
    const row = this.#db.prepare(
      `SELECT COUNT(*) AS denied FROM events WHERE session_id = ?
       AND kind = 'agent.permission.resolved' AND json_extract(payload_json, '$.decision') = 'deny'`,
    ).get(sessionId) as { denied: number };
    return row.denied;
  }

  /**
   * The tool of each denied permission request of a session (D18, issue 27
   * item 7), in the order they were denied: the `agent.permission` event with
   * the same request id names it.
   */
  deniedTools(sessionId: string): string[] {
    const rows = this.#db.prepare(
      `SELECT (SELECT json_extract(asked.payload_json, '$.tool') FROM events AS asked
               WHERE asked.session_id = resolved.session_id AND asked.kind = 'agent.permission'
               AND json_extract(asked.payload_json, '$.requestId') =
                   json_extract(resolved.payload_json, '$.requestId')
               ORDER BY asked.seq DESC LIMIT 1) AS tool
       FROM events AS resolved WHERE resolved.session_id = ?
       AND resolved.kind = 'agent.permission.resolved'
       AND json_extract(resolved.payload_json, '$.decision') = 'deny' ORDER BY resolved.seq`,
    ).all(sessionId) as Array<{ tool: string | null }>;
    return rows.map((row) => row.tool ?? "unknown tool");
  }

  /**
   * What a run reports as its result (D22 `summary`): the final assistant
   * text of the last turn; for a session without turns (a raw harness), the
   * end of its standard output. Null when there is neither.
   */
  finalText(sessionId: string): string | null {
    const turn = this.#db.prepare(
      `SELECT json_extract(payload_json, '$.result') AS text FROM events
       WHERE session_id = ? AND kind = 'agent.turn' ORDER BY seq DESC LIMIT 1`,
    ).get(sessionId) as { text: string | null } | undefined;
    if (turn !== undefined) return turn.text;
    const output = this.#db.prepare(
      `SELECT json_extract(payload_json, '$.data') AS text FROM events
       WHERE session_id = ? AND kind = 'output' AND json_extract(payload_json, '$.stream') = 'stdout'
       ORDER BY seq DESC LIMIT 8`,
    ).all(sessionId) as Array<{ text: string | null }>;
    if (output.length === 0) return null;
    return output.reverse().map((row) => row.text ?? "").join("");
  }

  /** The highest stored seq of a session (0 when it has none). */
  lastSeq(sessionId: string): number {
    const row = this.#lastSeq.get(sessionId) as { seq: number | null } | undefined;
    return row?.seq ?? 0;
  }

  /** The seq of event `eventId` in session `sessionId`, or null when unknown there. */
  seqOf(sessionId: string, eventId: string): number | null {
    const row = this.#seqOf.get(eventId, sessionId) as { seq: number } | undefined;
    return row?.seq ?? null;
  }
}
