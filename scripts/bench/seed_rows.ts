import type { SessionRow } from "../../src/store/sessions_store.ts";

/** The row of a completed raw session the bench seeds its events under. */
export function seededSessionRow(id: string, createdAt: string): SessionRow {
  return {
    id,
    project_root: "/bench",
    cwd: "/bench",
    harness: "bench",
    title: "seeded session",
    status: "completed",
    exit_code: 0,
    signal: null,
    pid: null,
    pgid: null,
    model: null,
    familiar_id: null,
    origin: "api",
    routine_id: null,
    run_id: null,
    created_at: createdAt,
    updated_at: createdAt,
    ended_at: createdAt,
    last_seq: 0,
    protocol: "raw",
    activity: null,
    agent_session_id: null,
    turns: 0,
    usage_json: null,
    approvals: null,
    worktree_json: null,
    leader_start: null,
  };
}
