import type { SessionRow } from "../../src/store/sessions_store.ts";

/** A `running` session row with placeholder fields, for store-level tests. */
export function runningSessionRow(id: string): SessionRow {
  return {
    id,
    project_root: "/",
    cwd: "/",
    harness: "h",
    title: "t",
    status: "running",
    exit_code: null,
    signal: null,
    pid: null,
    pgid: null,
    model: null,
    familiar_id: null,
    origin: "api",
    routine_id: null,
    run_id: null,
    created_at: "x",
    updated_at: "x",
    ended_at: null,
    last_seq: 0,
    protocol: "raw",
    activity: null,
    agent_session_id: null,
    turns: 0,
    usage_json: null,
    approvals: null,
    worktree_json: null,
    leader_start: null,
    agent_resumable: 0,
    resumes: 0,
    park_json: null,
    auto_resume_json: null,
  };
}
