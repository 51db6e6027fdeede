import { DatabaseSync } from "node:sqlite";
import type { ApiEvent } from "./context.ts";

/** Rows per transaction of the raw-insert baseline (deno-notes: group commits). */
export const RAW_BATCH_ROWS = 100;

/**
 * The storage baseline of the ingestion and concurrent stages: the rows svc
 * stored, inserted with raw node:sqlite, `RAW_BATCH_ROWS` per transaction,
 * into a fresh WAL database. Returns the seconds the inserts took.
 */
export function rawInsert(dbPath: string, rows: readonly ApiEvent[]): number {
  const db = new DatabaseSync(dbPath);
  try {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec(`CREATE TABLE events (
      session_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL, payload_json TEXT NOT NULL, created_at TEXT NOT NULL,
      PRIMARY KEY (session_id, seq))`);
    const insert = db.prepare(
      "INSERT INTO events (session_id, seq, id, kind, payload_json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const started = performance.now();
    for (let i = 0; i < rows.length; i += RAW_BATCH_ROWS) {
      db.exec("BEGIN IMMEDIATE");
      for (const row of rows.slice(i, i + RAW_BATCH_ROWS)) {
        insert.run(row.session_id, row.seq, row.id, row.kind, row.payload_json, row.created_at);
      }
      db.exec("COMMIT");
    }
    return (performance.now() - started) / 1000;
  } finally {
    db.close();
  }
}
