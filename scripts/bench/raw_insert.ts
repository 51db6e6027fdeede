import { DatabaseSync } from "node:sqlite";
import type { ApiEvent } from "./context.ts";

/** Rows per transaction of the raw-insert baseline (deno-notes: group commits). */
export const RAW_BATCH_ROWS = 100;

/** A fresh WAL database with svc's `synchronous` and an `events` table whose payload is `payload`. */
function rawDatabase(dbPath: string, payload: "payload_json TEXT" | "payload BLOB"): DatabaseSync {
  const db = new DatabaseSync(dbPath);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec(`CREATE TABLE events (
    session_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL, ${payload} NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq))`);
  return db;
}

/**
 * The storage baseline of the ingestion and concurrent stages: the rows svc
 * stored, inserted with raw node:sqlite, `RAW_BATCH_ROWS` per transaction,
 * into a fresh WAL database. Returns the seconds the inserts took.
 */
export function rawInsert(dbPath: string, rows: readonly ApiEvent[]): number {
  const db = rawDatabase(dbPath, "payload_json TEXT");
  try {
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

/** Bytes per read of the file baseline: the supervisor's own read size (src/sessions/output_pump.ts). */
export const RAW_FILE_READ_BYTES = 64 * 1024 - 4096;

/**
 * Issue 26's storage baseline: the output file itself stored raw, from the
 * file. Each read of `RAW_FILE_READ_BYTES` becomes one row of the same
 * `events` table with its bytes as a BLOB (no decoding, no JSON, no line
 * cut, no redaction), `RAW_BATCH_ROWS` rows per transaction, into a fresh WAL
 * database with svc's `synchronous = NORMAL`. The clock runs from opening the
 * file to the last commit. Returns the seconds and the rows written.
 */
export function rawFileStorage(
  dbPath: string,
  filePath: string,
): { seconds: number; rows: number } {
  const db = rawDatabase(dbPath, "payload BLOB");
  try {
    const insert = db.prepare(
      "INSERT INTO events (session_id, seq, id, kind, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const started = performance.now();
    const file = Deno.openSync(filePath);
    let seq = 0;
    try {
      const buffer = new Uint8Array(RAW_FILE_READ_BYTES);
      let open = false;
      for (;;) {
        const count = file.readSync(buffer);
        if (count === null) break;
        if (!open) {
          db.exec("BEGIN IMMEDIATE");
          open = true;
        }
        seq++;
        const createdAt = new Date().toISOString();
        insert.run("raw", seq, `raw-${seq}`, "output", buffer.subarray(0, count), createdAt);
        if (seq % RAW_BATCH_ROWS === 0) {
          db.exec("COMMIT");
          open = false;
        }
      }
      if (open) db.exec("COMMIT");
    } finally {
      file.close();
    }
    return { seconds: (performance.now() - started) / 1000, rows: seq };
  } finally {
    db.close();
  }
}
