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
  // 2: automations: routines, their planning state and run history (D12).
  `
  CREATE TABLE routines (
    id              TEXT PRIMARY KEY,
    definition_json TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    active_since    TEXT,
    last_planned_at TEXT,
    missed_count    INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE runs (
    id               TEXT PRIMARY KEY,
    routine_id       TEXT NOT NULL,
    trigger          TEXT NOT NULL,
    scheduled_for    TEXT,
    status           TEXT NOT NULL,
    session_id       TEXT,
    started_at       TEXT,
    ended_at         TEXT,
    exit_code        INTEGER,
    error_json       TEXT,
    lease_owner      TEXT,
    lease_expires_at TEXT,
    created_at       TEXT NOT NULL
  );
  CREATE UNIQUE INDEX runs_by_occurrence ON runs (routine_id, scheduled_for)
    WHERE scheduled_for IS NOT NULL;
  CREATE INDEX runs_by_routine ON runs (routine_id, created_at DESC, id DESC);
  CREATE INDEX runs_by_status ON runs (status);
  `,
  // 3: agent-native sessions (D16, D18, D22): protocol, activity, agent session id, turns,
  // usage, approval policy.
  `
  ALTER TABLE sessions ADD COLUMN protocol TEXT NOT NULL DEFAULT 'raw';
  ALTER TABLE sessions ADD COLUMN activity TEXT;
  ALTER TABLE sessions ADD COLUMN agent_session_id TEXT;
  ALTER TABLE sessions ADD COLUMN turns INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sessions ADD COLUMN usage_json TEXT;
  ALTER TABLE sessions ADD COLUMN approvals TEXT;
  ALTER TABLE runs ADD COLUMN permission_denials INTEGER;
  `,
  // 4: isolated runs, delivered results, run usage (D20, D21, D22).
  `
  ALTER TABLE sessions ADD COLUMN worktree_json TEXT;
  CREATE INDEX sessions_with_worktree ON sessions (created_at) WHERE worktree_json IS NOT NULL;
  ALTER TABLE runs ADD COLUMN usage_json TEXT;
  ALTER TABLE runs ADD COLUMN summary TEXT;
  ALTER TABLE runs ADD COLUMN worktree_json TEXT;
  ALTER TABLE runs ADD COLUMN delivery_json TEXT;
  CREATE INDEX runs_delivered ON runs (ended_at DESC, id DESC) WHERE delivery_json IS NOT NULL;
  `,
  // 5: the store's identity (D24).
  `
  CREATE TABLE store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // 6: the session leader's start time, so recovery never signals a reused id (issue 13).
  `
  ALTER TABLE sessions ADD COLUMN leader_start TEXT;
  `,
  // 7: conversations that outlive their process (D26): whether the agent can load the
  // conversation again, and how often it was resumed. Claude and codex sessions with an agent
  // session id always could; an ACP agent's `loadSession` was not recorded before.
  `
  ALTER TABLE sessions ADD COLUMN agent_resumable INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sessions ADD COLUMN resumes INTEGER NOT NULL DEFAULT 0;
  UPDATE sessions SET agent_resumable = 1
    WHERE protocol IN ('claude', 'codex-app-server') AND agent_session_id IS NOT NULL;
  `,
  // 8: standing approval rules (D28), and the permission decisions the approval log reads.
  `
  CREATE TABLE approval_rules (
    id           TEXT PRIMARY KEY,
    decision     TEXT NOT NULL,
    rule_json    TEXT NOT NULL,
    created_at   TEXT NOT NULL
  );
  CREATE INDEX events_permission_resolved ON events (kind)
    WHERE kind = 'agent.permission.resolved';
  `,
  // 9: the durable land queue (D34): items in order, each attempt's state and the commit a land
  // moves the checkout to, recorded before it moves so that a land is never done twice.
  `
  CREATE TABLE land_queue (
    id              TEXT PRIMARY KEY,
    session_id      TEXT NOT NULL,
    position        INTEGER NOT NULL,
    state           TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    max_attempts    INTEGER NOT NULL,
    mode            TEXT NOT NULL,
    verify_json     TEXT,
    send_back       INTEGER NOT NULL DEFAULT 0,
    last_error_json TEXT,
    landing_commit  TEXT,
    landed_commit   TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
  );
  CREATE INDEX land_queue_by_position ON land_queue (position);
  `,
  // 10 (issue 34, D30): paired devices of the web face. Only a SHA-256 of each device's token
  // is kept; a revoked device stays, so its next request is told so.
  `
  CREATE TABLE devices (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    scope         TEXT NOT NULL,
    token_sha256  TEXT NOT NULL UNIQUE,
    idle_seconds  INTEGER NOT NULL,
    created_at    TEXT NOT NULL,
    ends_at       TEXT NOT NULL,
    last_seen_at  TEXT,
    last_peer     TEXT,
    revoked_at    TEXT
  );
  `,
  // 11 (issue 39, D33): sessions parked on a provider's limit. The park (until when, why, the
  // turns to send again, its timer's state and the day's auto-resumes) and the launch's
  // `autoResume` are JSON: read and written whole, never queried by field.
  `
  ALTER TABLE sessions ADD COLUMN park_json TEXT;
  ALTER TABLE sessions ADD COLUMN auto_resume_json TEXT;
  `,
];
