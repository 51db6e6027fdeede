import { join } from "node:path";
import { isoTime } from "../../src/clock.ts";
import { newId } from "../../src/ids.ts";
import { openDatabase } from "../../src/store/db.ts";
import { type SessionRow, SessionsStore } from "../../src/store/sessions_store.ts";
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

/** Seeds `count` ended sessions into a new home's store (the daemon adopts it at start). */
export function seedSessions(home: string, count: number): void {
  const db = openDatabase(join(home, "svc.db"));
  try {
    const sessions = new SessionsStore(db);
    const baseMs = Date.parse("2026-11-01T00:00:00.000Z");
    for (let i = 0; i < count; i++) {
      const atMs = baseMs + i * 60_000;
      sessions.insert(seededSessionRow(newId("ses", atMs), isoTime(atMs)));
    }
  } finally {
    db.close();
  }
}
