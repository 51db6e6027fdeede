import type { DatabaseSync } from "node:sqlite";
import type { ApprovalRule } from "../policy/approval_rules.ts";

/** At most this many rules are kept: the broker reads them all for every request. */
export const MAX_APPROVAL_RULES = 1000;

/** One decision of the approval log (D28), from the durable event log. */
export interface ApprovalLogEntry {
  /** Opaque position: pass it as `cursor` for the entries after this one. */
  cursor: string;
  at: string;
  sessionId: string;
  harness: string | null;
  requestId: string;
  tool: string | null;
  summary: string | null;
  command: string | null;
  paths: string[];
  decision: "allow" | "deny";
  by: "owner" | "policy" | "timeout" | "ended" | "rule";
  ruleId: string | null;
  /** The paired device the owner answered from (D30), or null. */
  device: { id: string; name: string } | null;
}

interface LogRaw {
  position: number;
  session_id: string;
  payload_json: string;
  created_at: string;
  harness: string | null;
  request_json: string | null;
}

/** Approval rules (D28) in SQLite, and the approval log read from the events table. */
export class ApprovalRulesStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Every rule, oldest first (deny and allow alike; the matcher orders them). */
  list(): ApprovalRule[] {
    const rows = this.#db.prepare(
      "SELECT rule_json FROM approval_rules ORDER BY created_at, id",
    ).all() as Array<{ rule_json: string }>;
    return rows.map((row) => JSON.parse(row.rule_json));
  }

  count(): number {
    return (this.#db.prepare("SELECT COUNT(*) AS n FROM approval_rules").get() as { n: number }).n;
  }

  insert(rule: ApprovalRule): void {
    this.#db.prepare(
      "INSERT INTO approval_rules (id, decision, rule_json, created_at) VALUES (?, ?, ?, ?)",
    ).run(rule.id, rule.decision, JSON.stringify(rule), rule.createdAt);
  }

  /** Removes one rule; false when there was none with that id. */
  remove(id: string): boolean {
    return Number(this.#db.prepare("DELETE FROM approval_rules WHERE id = ?").run(id).changes) > 0;
  }

  /**
   * Permission decisions in the order they were recorded, each with the
   * request it answered (tool, summary, command, paths): after `cursor`, at
   * or after `since`, of one session when `sessionId` is given; at most `limit`.
   */
  log(
    options: { cursor?: number; since?: string; sessionId?: string; limit: number },
  ): ApprovalLogEntry[] {
    const rows = this.#db.prepare(
      `SELECT r.rowid AS position, r.session_id, r.payload_json, r.created_at, s.harness,
         (SELECT q.payload_json FROM events q
           WHERE q.session_id = r.session_id AND q.seq < r.seq AND q.kind = 'agent.permission'
             AND json_extract(q.payload_json, '$.requestId') =
                 json_extract(r.payload_json, '$.requestId')
           ORDER BY q.seq DESC LIMIT 1) AS request_json
       FROM events r LEFT JOIN sessions s ON s.id = r.session_id
       WHERE r.kind = 'agent.permission.resolved' AND r.rowid > ? AND r.created_at >= ?
         AND (? IS NULL OR r.session_id = ?)
       ORDER BY r.rowid LIMIT ?`,
    ).all(
      options.cursor ?? 0,
      options.since ?? "",
      options.sessionId ?? null,
      options.sessionId ?? null,
      options.limit,
    ) as unknown as LogRaw[];
    return rows.map(logEntry);
  }
}

function logEntry(raw: LogRaw): ApprovalLogEntry {
  const resolved = JSON.parse(raw.payload_json) as Record<string, unknown>;
  const request = raw.request_json === null
    ? {}
    : JSON.parse(raw.request_json) as Record<string, unknown>;
  const text = (value: unknown) => typeof value === "string" ? value : null;
  return {
    cursor: String(raw.position),
    at: raw.created_at,
    sessionId: raw.session_id,
    harness: raw.harness,
    requestId: String(resolved.requestId ?? ""),
    tool: text(request.tool),
    summary: text(request.summary),
    command: text(request.command),
    paths: Array.isArray(request.paths) ? request.paths.filter((p) => typeof p === "string") : [],
    decision: resolved.decision === "allow" ? "allow" : "deny",
    by: (text(resolved.by) ?? "policy") as ApprovalLogEntry["by"],
    ruleId: text(resolved.ruleId),
    device: deviceOf(resolved.device),
  };
}

function deviceOf(value: unknown): ApprovalLogEntry["device"] {
  if (value === null || typeof value !== "object") return null;
  const { id, name } = value as Record<string, unknown>;
  return typeof id === "string" && typeof name === "string" ? { id, name } : null;
}
