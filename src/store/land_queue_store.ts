import type { DatabaseSync, SQLInputValue } from "node:sqlite";

/** The states of a land queue item (D34). */
export const LAND_ITEM_STATES = [
  "queued",
  "checking",
  "verifying",
  "landed",
  "failed",
  "sent_back",
  "cancelled",
] as const;
export type LandItemState = typeof LAND_ITEM_STATES[number];

/** One row of `land_queue` (migration 9). */
export interface LandItemRow {
  id: string;
  session_id: string;
  position: number;
  state: LandItemState;
  attempts: number;
  max_attempts: number;
  mode: string;
  verify_json: string | null;
  send_back: number;
  last_error_json: string | null;
  landing_commit: string | null;
  landed_commit: string | null;
  created_at: string;
  updated_at: string;
}

/** The land queue's items in SQLite, in position order. */
export class LandQueueStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Every item, in queue order. */
  list(): LandItemRow[] {
    return this.#db.prepare("SELECT * FROM land_queue ORDER BY position, id")
      .all() as unknown as LandItemRow[];
  }

  get(id: string): LandItemRow | null {
    return (this.#db.prepare("SELECT * FROM land_queue WHERE id = ?").get(id) as unknown as
      | LandItemRow
      | undefined) ?? null;
  }

  /** The position after the last item. */
  nextPosition(): number {
    const row = this.#db.prepare("SELECT MAX(position) AS last FROM land_queue").get() as {
      last: number | null;
    };
    return (row.last ?? 0) + 1;
  }

  /** Inserts items in one transaction. */
  insert(rows: LandItemRow[]): void {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      for (const row of rows) {
        const columns = Object.keys(row);
        this.#db.prepare(
          `INSERT INTO land_queue (${columns.join(", ")}) VALUES (${
            columns.map(() => "?").join(", ")
          })`,
        ).run(...(Object.values(row) as SQLInputValue[]));
      }
      this.#db.exec("COMMIT");
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  /** Changes some fields of one item. */
  update(id: string, fields: Partial<Omit<LandItemRow, "id">>): void {
    const columns = Object.keys(fields);
    if (columns.length === 0) return;
    this.#db.prepare(
      `UPDATE land_queue SET ${columns.map((column) => `${column} = ?`).join(", ")} WHERE id = ?`,
    ).run(...(Object.values(fields) as SQLInputValue[]), id);
  }
}
