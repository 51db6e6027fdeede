import { idPrefixRange } from "../validate.ts";
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { Activity } from "../agents/conversation.ts";
import type { ProtocolId, Usage } from "../agents/protocol.ts";
import type { ApprovalPolicy } from "../approvals/broker.ts";
import type { UsageRow } from "../sessions/usage_totals.ts";
import type { WorktreeRecord } from "../worktrees/worktree_record.ts";
import { resumeRefusal } from "../policy/resume.ts";
import { type ParkedView, parkedView } from "../sessions/park_record.ts";

/**
 * Session statuses (D7); only `running` is live. `parked` (D33): ended on a
 * provider's limit, resumable, waiting for the limit to lift.
 */
export const SESSION_STATUSES = [
  "running",
  "completed",
  "failed",
  "killed",
  "orphaned",
  "parked",
] as const;
export type SessionStatus = typeof SESSION_STATUSES[number];

/** A session row; the API record (D7) is this without `pgid`. */
export interface SessionRow {
  id: string;
  project_root: string;
  cwd: string;
  harness: string;
  title: string;
  status: SessionStatus;
  exit_code: number | null;
  signal: string | null;
  pid: number | null;
  /** The process group the session leads (for ending leftovers after a crash). */
  pgid: number | null;
  model: string | null;
  familiar_id: string | null;
  origin: "api" | "automation";
  routine_id: string | null;
  run_id: string | null;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
  last_seq: number;
  /** `raw` or the agent protocol (D16). */
  protocol: ProtocolId;
  activity: Activity | null;
  agent_session_id: string | null;
  /** Completed turns (D16). */
  turns: number;
  /** The session's summed usage as JSON (D22); null for raw sessions. */
  usage_json: string | null;
  /** How permission requests are answered (D18); null for raw sessions. */
  approvals: ApprovalPolicy | null;
  /** The session's git worktree as JSON (D20); null when it runs in place. */
  worktree_json: string | null;
  /** The leader process's start time (process_tree.ts); null when unknown. */
  leader_start: string | null;
  /** 1 when the agent said it can load this conversation again (D26), else 0. */
  agent_resumable: number;
  /** How many times the conversation was resumed (D26). */
  resumes: number;
  /** The session's last park as JSON (D33, parking.ts); kept after it is resumed. */
  park_json: string | null;
  /** The launch's or routine's `autoResume` as JSON (D33); null: config's. */
  auto_resume_json: string | null;
}

/** The session record served by the API (D7, D16): no `pgid`, `usage` as an object. */
export type SessionRecord =
  & Omit<
    SessionRow,
    | "pgid"
    | "usage_json"
    | "worktree_json"
    | "leader_start"
    | "agent_resumable"
    | "park_json"
    | "auto_resume_json"
  >
  & {
    usage: Usage | null;
    worktree: WorktreeRecord | null;
    /** The session has ended and `POST /sessions/{id}/resume` can continue it (D26). */
    resumable: boolean;
    /** While `parked` (D33): until when, why, and what its timer will do. */
    parked: ParkedView | null;
  };

/** The API view of a row. */
export function sessionRecord(row: SessionRow): SessionRecord {
  const {
    pgid: _pgid,
    leader_start: _start,
    agent_resumable: _resumable,
    usage_json,
    worktree_json: _worktree,
    park_json: _park,
    auto_resume_json: _autoResume,
    ...record
  } = row;
  return {
    ...record,
    usage: usage_json === null ? null : JSON.parse(usage_json),
    worktree: worktreeOf(row),
    resumable: resumeRefusal(row) === null,
    parked: parkedView(row),
  };
}

/** The row's git worktree (D20), null when the session runs in place. */
export function worktreeOf(row: SessionRow): WorktreeRecord | null {
  return row.worktree_json === null ? null : JSON.parse(row.worktree_json);
}

const COLUMNS = [
  "id",
  "project_root",
  "cwd",
  "harness",
  "title",
  "status",
  "exit_code",
  "signal",
  "pid",
  "pgid",
  "model",
  "familiar_id",
  "origin",
  "routine_id",
  "run_id",
  "created_at",
  "updated_at",
  "ended_at",
  "last_seq",
  "protocol",
  "activity",
  "agent_session_id",
  "turns",
  "usage_json",
  "approvals",
  "worktree_json",
  "leader_start",
  "agent_resumable",
  "resumes",
  "park_json",
  "auto_resume_json",
] as const;

/** Session rows in SQLite. */
export class SessionsStore {
  readonly #db: DatabaseSync;
  /**
   * Statements prepared once per SQL text: node:sqlite keeps each prepared
   * statement's memory (≈ 20 KB) outside the JS heap until a major GC, so
   * preparing on every call (streams ask for a session per pull) grew RSS
   * by hundreds of MB under 200 readers.
   */
  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  #prepare(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, statement = this.#db.prepare(sql));
    return statement;
  }

  insert(row: SessionRow): void {
    this.#prepare(
      `INSERT INTO sessions (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`,
    ).run(...COLUMNS.map((column) => row[column] as SQLInputValue));
  }

  get(id: string): SessionRow | null {
    return (this.#prepare("SELECT * FROM sessions WHERE id = ?").get(id) as
      | SessionRow
      | undefined) ?? null;
  }

  /** Newest first; optionally only one status, only ids starting with `idPrefix`. */
  list(options: { status?: SessionStatus; idPrefix?: string; limit: number }): SessionRow[] {
    const conditions: string[] = [];
    const params: SQLInputValue[] = [];
    if (options.status) {
      conditions.push("status = ?");
      params.push(options.status);
    }
    if (options.idPrefix !== undefined) {
      conditions.push("id >= ? AND id < ?");
      params.push(...idPrefixRange(options.idPrefix));
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "";
    return this.#prepare(
      `SELECT * FROM sessions ${where} ORDER BY created_at DESC, id DESC LIMIT ?`,
    ).all(...params, options.limit) as unknown as SessionRow[];
  }

  /** Rows still marked `running` (at start-up: the ones a crash left behind). */
  running(): SessionRow[] {
    return this.#prepare("SELECT * FROM sessions WHERE status = 'running'")
      .all() as unknown as SessionRow[];
  }

  /** Sessions parked on a limit (D33), for their timers. */
  parked(): SessionRow[] {
    return this.#prepare("SELECT * FROM sessions WHERE status = 'parked'")
      .all() as unknown as SessionRow[];
  }

  /** How many sessions are `parked` and the soonest `parkedUntil` among them (D33, health). */
  parkedSummary(): { count: number; nextUntil: string | null } {
    const row = this.#prepare(
      `SELECT count(*) AS count, min(json_extract(park_json, '$.parkedUntil')) AS next
       FROM sessions WHERE status = 'parked'`,
    ).get() as { count: number; next: string | null };
    return { count: Number(row.count), nextUntil: row.next };
  }

  /** What `GET /usage` sums (D22): every session created at or after `since`. */
  usageRows(since: string | null): UsageRow[] {
    return this.#prepare(
      `SELECT harness, routine_id, created_at, usage_json FROM sessions
       WHERE created_at >= ? ORDER BY created_at`,
    ).all(since ?? "") as unknown as UsageRow[];
  }

  /** Rows with a worktree (D20), oldest first; optionally of one routine. */
  withWorktrees(routineId?: string): SessionRow[] {
    const where = routineId === undefined ? "" : "AND routine_id = ?";
    const params: SQLInputValue[] = routineId === undefined ? [] : [routineId];
    return this.#prepare(
      `SELECT * FROM sessions WHERE worktree_json IS NOT NULL ${where} ORDER BY created_at, id`,
    ).all(...params) as unknown as SessionRow[];
  }

  /** Updates some columns of a row. */
  update(id: string, fields: Partial<Omit<SessionRow, "id">>): void {
    const names = Object.keys(fields) as Array<keyof typeof fields>;
    if (names.length === 0) return;
    this.#prepare(
      `UPDATE sessions SET ${names.map((name) => `${name} = ?`).join(", ")} WHERE id = ?`,
    ).run(...names.map((name) => (fields[name] ?? null) as SQLInputValue), id);
  }
}
