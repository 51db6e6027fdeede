import type { SessionRow } from "../../src/store/sessions_store.ts";
import { runningSessionRow } from "../../tests/helpers/rows.ts";

/** The row of a completed raw session the bench seeds its events under. */
export function seededSessionRow(id: string, createdAt: string): SessionRow {
  return {
    ...runningSessionRow(id),
    project_root: "/bench",
    cwd: "/bench",
    harness: "bench",
    title: "seeded session",
    status: "completed",
    exit_code: 0,
    created_at: createdAt,
    updated_at: createdAt,
    ended_at: createdAt,
  };
}
