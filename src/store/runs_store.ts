import { idPrefixRange } from "../validate.ts";
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { Usage } from "../agents/protocol.ts";
import type { WorktreeRecord } from "../worktrees/worktree_record.ts";

/** Run statuses (D12); `parked` (D33): its session waits out a limit, the run completes later. */
export type RunStatus = "running" | "parked" | "succeeded" | "failed" | "timed_out" | "skipped";

/** A run's error: a stable code and a message for people. */
export interface RunError {
  code: string;
  message: string;
}

/** Where a run's result went (D21). */
export interface Delivery {
  status: "delivered" | "failed";
  kind: "inbox" | "file";
  /** The result file; null when it could not be written. */
  path: string | null;
  error: string | null;
  /** When the owner marked it read (`svc inbox read`); null while unread. */
  readAt: string | null;
}

/** The run record (D12) plus its lease. */
export interface RunRow {
  id: string;
  routineId: string;
  trigger: "schedule" | "manual";
  scheduledFor: string | null;
  status: RunStatus;
  sessionId: string | null;
  startedAt: string | null;
  endedAt: string | null;
  exitCode: number | null;
  error: RunError | null;
  /**
   * Permission requests of the run's agent that were denied (D18: an
   * unattended run says what it was not allowed to do); null before it ends.
   */
  permissionDenials?: number | null;
  /** The session's usage (D22); null when no session ran or it reports none. */
  usage?: Usage | null;
  /** The final assistant text, at most 4 KiB (D22). */
  summary?: string | null;
  /** The worktree the run's session used (D20), its changes counted. */
  worktree?: WorktreeRecord | null;
  /** Where its result was written (D21); null without an `outputTarget`. */
  delivery?: Delivery | null;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  createdAt: string;
}

/** The API's run record (D12): the row without lease and bookkeeping. */
export type RunRecord = Omit<RunRow, "leaseOwner" | "leaseExpiresAt" | "createdAt">;

/** The API view of a run. */
export function runRecord(row: RunRow): RunRecord {
  const { leaseOwner: _owner, leaseExpiresAt: _expires, createdAt: _created, ...record } = row;
  return record;
}

interface Raw {
  id: string;
  routine_id: string;
  trigger: "schedule" | "manual";
  scheduled_for: string | null;
  status: RunStatus;
  session_id: string | null;
  started_at: string | null;
  ended_at: string | null;
  exit_code: number | null;
  error_json: string | null;
  permission_denials: number | null;
  usage_json: string | null;
  summary: string | null;
  worktree_json: string | null;
  delivery_json: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
}

function fromRaw(raw: Raw): RunRow {
  return {
    id: raw.id,
    routineId: raw.routine_id,
    trigger: raw.trigger,
    scheduledFor: raw.scheduled_for,
    status: raw.status,
    sessionId: raw.session_id,
    startedAt: raw.started_at,
    endedAt: raw.ended_at,
    exitCode: raw.exit_code,
    error: raw.error_json === null ? null : JSON.parse(raw.error_json),
    permissionDenials: raw.permission_denials,
    usage: parseOrNull(raw.usage_json),
    summary: raw.summary,
    worktree: parseOrNull(raw.worktree_json),
    delivery: parseOrNull(raw.delivery_json),
    leaseOwner: raw.lease_owner,
    leaseExpiresAt: raw.lease_expires_at,
    createdAt: raw.created_at,
  };
}

function jsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

function parseOrNull<T>(json: string | null): T | null {
  return json === null ? null : JSON.parse(json) as T;
}

/** SQLite's UNIQUE-constraint error code (deno-notes). */
const SQLITE_CONSTRAINT_UNIQUE = 2067;

/** Runs in SQLite. An occurrence (routine, scheduledFor) is UNIQUE: it can run only once. */
export class RunsStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Inserts a run; false when its occurrence is already recorded (a second claim). */
  insert(row: RunRow): boolean {
    try {
      this.#db.prepare(
        `INSERT INTO runs (id, routine_id, trigger, scheduled_for, status, session_id, started_at,
         ended_at, exit_code, error_json, lease_owner, lease_expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        row.id,
        row.routineId,
        row.trigger,
        row.scheduledFor,
        row.status,
        row.sessionId,
        row.startedAt,
        row.endedAt,
        row.exitCode,
        row.error === null ? null : JSON.stringify(row.error),
        row.leaseOwner,
        row.leaseExpiresAt,
        row.createdAt,
      );
      return true;
    } catch (error) {
      if ((error as { errcode?: number }).errcode === SQLITE_CONSTRAINT_UNIQUE) return false;
      throw error;
    }
  }

  get(id: string): RunRow | null {
    const raw = this.#db.prepare("SELECT * FROM runs WHERE id = ?").get(id) as Raw | undefined;
    return raw ? fromRaw(raw) : null;
  }

  /** A routine's runs, newest first. */
  listForRoutine(routineId: string, limit: number): RunRow[] {
    return (this.#db.prepare(
      "SELECT * FROM runs WHERE routine_id = ? ORDER BY created_at DESC, id DESC LIMIT ?",
    ).all(routineId, limit) as unknown as Raw[]).map(fromRaw);
  }

  /** Runs whose id starts with `idPrefix`, optionally of one routine, newest first. */
  withIdPrefix(idPrefix: string, options: { routineId?: string; limit: number }): RunRow[] {
    const routine = options.routineId === undefined ? "" : "AND routine_id = ?";
    const params: SQLInputValue[] = options.routineId === undefined ? [] : [options.routineId];
    return (this.#db.prepare(
      `SELECT * FROM runs WHERE id >= ? AND id < ? ${routine} ORDER BY id DESC LIMIT ?`,
    ).all(...idPrefixRange(idPrefix), ...params, options.limit) as unknown as Raw[]).map(fromRaw);
  }

  /** A routine's runs that happened (not `skipped`), newest first: health's history. */
  outcomes(routineId: string, limit: number): RunRow[] {
    return (this.#db.prepare(
      `SELECT * FROM runs WHERE routine_id = ? AND status != 'skipped'
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    ).all(routineId, limit) as unknown as Raw[]).map(fromRaw);
  }

  /** A routine's newest `succeeded` run, or null. */
  lastSucceeded(routineId: string): RunRow | null {
    const raw = this.#db.prepare(
      `SELECT * FROM runs WHERE routine_id = ? AND status = 'succeeded'
       ORDER BY created_at DESC, id DESC LIMIT 1`,
    ).get(routineId) as Raw | undefined;
    return raw ? fromRaw(raw) : null;
  }

  /** Runs with status `running` (optionally of one routine). */
  running(routineId?: string): RunRow[] {
    const where = routineId === undefined ? "" : "AND routine_id = ?";
    const params: SQLInputValue[] = routineId === undefined ? [] : [routineId];
    return (this.#db.prepare(`SELECT * FROM runs WHERE status = 'running' ${where}`)
      .all(...params) as unknown as Raw[]).map(fromRaw);
  }

  /** Runs with status `parked` (D33): their sessions wait out a limit. */
  parked(): RunRow[] {
    return (this.#db.prepare("SELECT * FROM runs WHERE status = 'parked'")
      .all() as unknown as Raw[]).map(fromRaw);
  }

  /** Updates some fields of a run. */
  update(id: string, fields: Partial<Omit<RunRow, "id" | "routineId">>): void {
    const columns: Record<string, SQLInputValue> = {};
    if (fields.status !== undefined) columns.status = fields.status;
    if (fields.sessionId !== undefined) columns.session_id = fields.sessionId;
    if (fields.startedAt !== undefined) columns.started_at = fields.startedAt;
    if (fields.endedAt !== undefined) columns.ended_at = fields.endedAt;
    if (fields.exitCode !== undefined) columns.exit_code = fields.exitCode;
    if (fields.error !== undefined) {
      columns.error_json = fields.error === null ? null : JSON.stringify(fields.error);
    }
    if (fields.permissionDenials !== undefined) {
      columns.permission_denials = fields.permissionDenials;
    }
    if (fields.usage !== undefined) columns.usage_json = jsonOrNull(fields.usage);
    if (fields.summary !== undefined) columns.summary = fields.summary;
    if (fields.worktree !== undefined) columns.worktree_json = jsonOrNull(fields.worktree);
    if (fields.delivery !== undefined) columns.delivery_json = jsonOrNull(fields.delivery);
    if (fields.leaseOwner !== undefined) columns.lease_owner = fields.leaseOwner;
    if (fields.leaseExpiresAt !== undefined) columns.lease_expires_at = fields.leaseExpiresAt;
    const names = Object.keys(columns);
    if (names.length === 0) return;
    this.#db.prepare(`UPDATE runs SET ${names.map((n) => `${n} = ?`).join(", ")} WHERE id = ?`)
      .run(...names.map((n) => columns[n]), id);
  }

  /** Runs whose result was written (D21), newest first; optionally only unread ones. */
  delivered(options: { unread: boolean; limit: number }): RunRow[] {
    const unread = options.unread ? "AND json_extract(delivery_json, '$.readAt') IS NULL" : "";
    return (this.#db.prepare(
      `SELECT * FROM runs WHERE delivery_json IS NOT NULL
       AND json_extract(delivery_json, '$.status') = 'delivered' ${unread}
       ORDER BY ended_at DESC, id DESC LIMIT ?`,
    ).all(options.limit) as unknown as Raw[]).map(fromRaw);
  }

  /** Extends the lease of every running run owned by `owner`. */
  renewLeases(owner: string, expiresAt: string): void {
    this.#db.prepare(
      "UPDATE runs SET lease_expires_at = ? WHERE status = 'running' AND lease_owner = ?",
    ).run(expiresAt, owner);
  }
}
