/**
 * The schema, as numbered migrations embedded in TypeScript (no SQL file is
 * read at run time: the program must work as one compiled binary). Migration
 * N brings `PRAGMA user_version` from N-1 to N. Never edit a shipped one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: sessions and their event logs (D7, D8).
  `
  CREATE TABLE sessions (
    id           TEXT PRIMARY KEY,
    project_root TEXT NOT NULL,
    cwd          TEXT NOT NULL,
    harness      TEXT NOT NULL,
    title        TEXT NOT NULL,
    status       TEXT NOT NULL,
    exit_code    INTEGER,
    signal       TEXT,
    pid          INTEGER,
    pgid         INTEGER,
    model        TEXT,
    familiar_id  TEXT,
    origin       TEXT NOT NULL,
    routine_id   TEXT,
    run_id       TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    ended_at     TEXT,
    last_seq     INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX sessions_by_created ON sessions (created_at DESC, id DESC);
  CREATE INDEX sessions_by_status ON sessions (status);
  CREATE TABLE events (
    session_id   TEXT NOT NULL REFERENCES sessions (id),
    seq          INTEGER NOT NULL,
    id           TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  `,
];
