import { idPrefixRange } from "../validate.ts";
import type { DatabaseSync } from "node:sqlite";
import type { RoutineDefinition, StoredRoutine } from "../automations/definition.ts";

/** A routine with its durable planning state (D12). */
export interface RoutineRow {
  id: string;
  definition: RoutineDefinition;
  createdAt: string;
  updatedAt: string;
  /** When it last became ACTIVE: occurrences before it never run. Null while PAUSED. */
  activeSince: string | null;
  /** End of the window already planned; occurrences at or before it are never planned again. */
  lastPlannedAt: string | null;
  /** Occurrences missed in all (misfire `latest`). */
  missedCount: number;
}

interface Raw {
  id: string;
  definition_json: string;
  created_at: string;
  updated_at: string;
  active_since: string | null;
  last_planned_at: string | null;
  missed_count: number;
}

function fromRaw(raw: Raw): RoutineRow {
  return {
    id: raw.id,
    definition: JSON.parse(raw.definition_json),
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
    activeSince: raw.active_since,
    lastPlannedAt: raw.last_planned_at,
    missedCount: raw.missed_count,
  };
}

/** The API's stored routine (D10): the definition plus createdAt and updatedAt. */
export function storedRoutine(row: RoutineRow): StoredRoutine {
  return { ...row.definition, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

/** Routines in SQLite. */
export class RoutinesStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  get(id: string): RoutineRow | null {
    const raw = this.#db.prepare("SELECT * FROM routines WHERE id = ?").get(id) as Raw | undefined;
    return raw ? fromRaw(raw) : null;
  }

  /**
   * Routines by id; with `after`, those whose id sorts after it; with
   * `idPrefix`, those whose id starts with it; at most `limit`.
   */
  list(options: { after?: string; idPrefix?: string; limit?: number } = {}): RoutineRow[] {
    const [low, high] = options.idPrefix === undefined
      ? ["", "\u{10FFFF}"]
      : idPrefixRange(options.idPrefix);
    return (this.#db.prepare(
      "SELECT * FROM routines WHERE id > ? AND id >= ? AND id < ? ORDER BY id LIMIT ?",
    ).all(options.after ?? "", low, high, options.limit ?? -1) as unknown as Raw[]).map(fromRaw);
  }

  /** Inserts a routine; false when the id exists. */
  insert(row: RoutineRow): boolean {
    const result = this.#db.prepare(
      `INSERT OR IGNORE INTO routines
       (id, definition_json, created_at, updated_at, active_since, last_planned_at, missed_count)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      row.id,
      JSON.stringify(row.definition),
      row.createdAt,
      row.updatedAt,
      row.activeSince,
      row.lastPlannedAt,
      row.missedCount,
    );
    return result.changes === 1;
  }

  /** Replaces a routine's definition and planning state. */
  replace(row: RoutineRow): void {
    this.#db.prepare(
      `UPDATE routines SET definition_json = ?, updated_at = ?, active_since = ?,
       last_planned_at = ?, missed_count = ? WHERE id = ?`,
    ).run(
      JSON.stringify(row.definition),
      row.updatedAt,
      row.activeSince,
      row.lastPlannedAt,
      row.missedCount,
      row.id,
    );
  }

  /** Records a planning pass: the window end and missed occurrences added. */
  markPlanned(id: string, plannedAt: string, missed: number): void {
    this.#db.prepare(
      "UPDATE routines SET last_planned_at = ?, missed_count = missed_count + ? WHERE id = ?",
    ).run(plannedAt, missed, id);
  }

  /** Deletes a routine and its run history; false when there was none. */
  delete(id: string): boolean {
    this.#db.prepare("DELETE FROM runs WHERE routine_id = ?").run(id);
    return this.#db.prepare("DELETE FROM routines WHERE id = ?").run(id).changes === 1;
  }
}
