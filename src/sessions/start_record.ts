/**
 * What a launch or a resume records before its agent starts: a launch's new
 * row (D7), its event log opened, the daemon-wide feed told (D19), the
 * routine run linked; a resume's ended row reopened after a durable
 * `session.resumed` event (D26).
 */
import { storeUnavailable } from "../errors.ts";
import { isoTime } from "../clock.ts";
import { newId } from "../ids.ts";
import { NO_USAGE } from "../agents/protocol.ts";
import type { SessionRow } from "../store/sessions_store.ts";
import type { LaunchSpec, SupervisorOptions } from "./supervisor.ts";

/** What recording a start uses of the supervisor's options. */
export type StartRecordDeps = Pick<
  SupervisorOptions,
  "sessions" | "events" | "clock" | "log" | "publish"
>;

/** The row of a session `spec` launches: `running`, with nothing started yet. */
export function newSessionRow(
  spec: LaunchSpec,
  { id, now }: { id: string; now: string },
): SessionRow {
  return {
    id,
    project_root: spec.projectRoot,
    cwd: spec.cwd,
    harness: spec.harness.id,
    title: spec.title,
    status: "running",
    exit_code: null,
    signal: null,
    pid: null,
    pgid: null,
    model: spec.model,
    familiar_id: spec.familiarId,
    origin: spec.origin,
    routine_id: spec.routineId ?? null,
    run_id: spec.runId ?? null,
    created_at: now,
    updated_at: now,
    ended_at: null,
    last_seq: 0,
    protocol: spec.harness.protocol,
    activity: spec.harness.protocol === "raw" ? null : "starting",
    agent_session_id: null,
    turns: 0,
    usage_json: spec.harness.protocol === "raw" ? null : JSON.stringify(NO_USAGE),
    approvals: spec.harness.protocol === "raw" ? null : spec.approvals,
    worktree_json: spec.worktree ? JSON.stringify(spec.worktree) : null,
    leader_start: null,
    agent_resumable: 0,
    resumes: 0,
    park_json: null,
    auto_resume_json: spec.autoResume ? JSON.stringify(spec.autoResume) : null,
  };
}

/**
 * Records the session `spec` launches and returns its row; 503 when the store
 * cannot insert it (nothing was started).
 */
export function recordLaunch(deps: StartRecordDeps, spec: LaunchSpec): SessionRow {
  const { sessions, events, clock } = deps;
  const now = isoTime(clock.now());
  const row = newSessionRow(spec, { id: spec.id ?? newId("ses", clock.now()), now });
  try {
    sessions.insert(row);
  } catch (error) {
    deps.log.error("Cannot record a new session", { error });
    throw storeUnavailable(); // Nothing was started.
  }
  events.open(row.id, 0);
  deps.publish("session.created", {
    sessionId: row.id,
    harness: row.harness,
    status: row.status,
    activity: row.activity,
  });
  // Ids and names only: never the prompt, which may hold anything.
  deps.log.info("Session launched", {
    sessionId: row.id,
    harness: row.harness,
    protocol: row.protocol,
    origin: row.origin,
    ...(row.run_id !== null && { runId: row.run_id, routineId: row.routine_id }),
    ...(spec.worktree && { worktree: true }),
  });
  if (spec.routineId && spec.runId) {
    events.append(row.id, "run.linked", { routineId: spec.routineId, runId: spec.runId });
  }
  return row;
}

/**
 * Reopens the ended `row` for a resume (D26), in place: `running` and
 * `starting` again with `model`, one more resume, its seqs going on after a
 * durable `session.resumed` event.
 */
export async function recordResume(
  deps: StartRecordDeps,
  row: SessionRow,
  model: string | null,
): Promise<void> {
  const { sessions, events, clock } = deps;
  const sessionId = row.id;
  const previousStatus = row.status;
  const now = isoTime(clock.now());
  const fields = {
    status: "running" as const,
    activity: "starting" as const,
    exit_code: null,
    signal: null,
    ended_at: null,
    updated_at: now,
    model,
    resumes: row.resumes + 1,
  };
  events.open(sessionId, row.last_seq);
  await events.append(sessionId, "session.resumed", {
    agentSessionId: row.agent_session_id,
    previousStatus,
    resumes: fields.resumes,
  });
  sessions.update(sessionId, fields);
  Object.assign(row, fields);
  deps.publish("session.updated", {
    sessionId,
    status: "running",
    activity: row.activity,
  });
}
