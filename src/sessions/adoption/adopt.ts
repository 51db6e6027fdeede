/**
 * `POST /sessions/adopt` (D33): a conversation started outside svc becomes
 * a svc session. The session is recorded as an ended conversation of the
 * agent's id — its log opened by `session.adopted` and the agent's own
 * transcript as `agent.message` events marked `imported: true` — and is then
 * resumed natively like any other (D26: the launcher's checks, the agent's
 * own resume, `session.resumed` at the seam). The supervisor needs nothing
 * new: an adoption is one more caller of resume.
 */
import { type Clock, isoTime } from "../../clock.ts";
import { invalidRequest, ServiceError, storeUnavailable } from "../../errors.ts";
import type { EventLog } from "../../events/event_log.ts";
import { appendToSession } from "../../events/session_append.ts";
import { newId } from "../../ids.ts";
import type { Logger } from "../../log.ts";
import { NO_USAGE } from "../../agents/protocol.ts";
import type { ApprovalPolicy } from "../../approvals/broker.ts";
import type { SessionRow, SessionsStore } from "../../store/sessions_store.ts";
import { type HarnessSpec, validAgentSessionId } from "../harnesses.ts";
import { insideAllowedRoots, isInside } from "../paths.ts";
import type { Launched, Supervisor } from "../supervisor.ts";
import type { DiscoveredSession, ImportedMessage } from "./agent_store.ts";
import type { Discovery } from "./discovery.ts";

/** What an adoption asks for (the body of `POST /sessions/adopt`). */
export interface AdoptRequest {
  harness: string;
  agentSessionId: string;
  /** The directory the conversation ran in, to find it by; default: where its agent says. */
  cwd?: string;
  model?: string;
  title?: string;
  approvals?: ApprovalPolicy;
}

/** What an adoption needs. */
export interface AdoptionOptions {
  discovery: Discovery;
  sessions: SessionsStore;
  events: EventLog;
  supervisor: Pick<Supervisor, "resume">;
  clock: Clock;
  log: Logger;
  /** The daemon's project roots now (D3); null: any directory. */
  projectRoots: () => readonly string[] | null;
  /** The approval policy when the request names none (config `approvals.interactive`). */
  defaultApprovals: () => ApprovalPolicy;
  /** Tells the daemon-wide feed (D19) that a session was created. */
  publish: (kind: "session.created", data: Record<string, unknown>) => void;
}

/** Makes conversations started outside svc into svc sessions. */
export class Adoption {
  readonly #options: AdoptionOptions;
  /** Agent sessions being adopted now: two adoptions of one never start two agents. */
  readonly #adopting = new Set<string>();

  constructor(options: AdoptionOptions) {
    this.#options = options;
  }

  /**
   * Adopts `request.agentSessionId` of `request.harness` and resumes it.
   * 400 `invalid_request` for an unknown or uninstalled harness, an id not in
   * its agent's format, or a directory outside the project roots; 404
   * `agent_session_not_found` when the agent's store has no such session;
   * 409 `session_live` when a svc session runs it now; then every answer of
   * a resume (D26: `not_resumable` with the reason, 429, 503).
   */
  async adopt(request: AdoptRequest): Promise<Launched> {
    const { discovery } = this.#options;
    const { harness, store } = discovery.storeFor(request.harness);
    if (!validAgentSessionId(harness, request.agentSessionId)) {
      throw invalidRequest(
        `Agent session id "${request.agentSessionId}" is not in the format of harness "${harness.id}"`,
        "agentSessionId",
      );
    }
    const key = `${harness.id}\0${request.agentSessionId}`;
    this.#refuseLive(harness.id, request.agentSessionId);
    if (this.#adopting.has(key)) throw adoptingNow(harness.id, request.agentSessionId, null);
    this.#adopting.add(key);
    try {
      const cwd = request.cwd === undefined ? undefined : await discovery.checkCwd(request.cwd);
      const found = await store.find(request.agentSessionId, cwd);
      if (found === null) {
        throw new ServiceError(
          "agent_session_not_found",
          404,
          `Harness "${harness.id}" has no session "${request.agentSessionId}"${
            cwd === undefined ? "" : ` in "${cwd}"`
          }`,
          { harness: harness.id, agentSessionId: request.agentSessionId },
        );
      }
      const workDir = await this.#workDir(found, cwd);
      const history = await store.history(found);
      const row = await this.#record(request, { harness, found, cwd: workDir, history });
      return await this.#resume(row, request.model);
    } finally {
      this.#adopting.delete(key);
    }
  }

  /** 409 `session_live` when a running svc session holds this agent session. */
  #refuseLive(harness: string, agentSessionId: string): void {
    const live = this.#options.sessions.running()
      .find((row) => row.harness === harness && row.agent_session_id === agentSessionId);
    if (live) throw adoptingNow(harness, agentSessionId, live.id);
  }

  /** The session's directory, checked: it exists and lies inside the project roots. */
  async #workDir(found: DiscoveredSession, cwd: string | undefined): Promise<string> {
    const dir = found.cwd ?? cwd;
    if (dir === undefined) {
      throw new ServiceError(
        "not_resumable",
        409,
        `Agent session "${found.agentSessionId}" cannot be adopted: its agent does not say which directory it ran in; give "cwd"`,
        { harness: found.harness, agentSessionId: found.agentSessionId, reason: "cwd_unknown" },
      );
    }
    let real: string;
    try {
      real = await Deno.realPath(dir);
    } catch {
      throw new ServiceError(
        "not_resumable",
        409,
        `Agent session "${found.agentSessionId}" cannot be adopted: its directory "${dir}" no longer exists`,
        { harness: found.harness, agentSessionId: found.agentSessionId, reason: "paths_refused" },
      );
    }
    if (!await insideAllowedRoots(real, this.#options.projectRoots())) {
      throw invalidRequest(
        `Agent session "${found.agentSessionId}" ran in "${dir}", outside the configured project roots`,
        "cwd",
      );
    }
    return real;
  }

  /**
   * Records the adopted session as an ended conversation: its row (ended at
   * the agent's last activity, so a Gemini load waits out that minute, D26),
   * `session.adopted` and the imported messages.
   */
  async #record(
    request: AdoptRequest,
    { harness, found, cwd, history }: {
      harness: HarnessSpec;
      found: DiscoveredSession;
      cwd: string;
      history: ImportedMessage[] | null;
    },
  ): Promise<SessionRow> {
    const { sessions, events, clock } = this.#options;
    if (events.degraded) throw storeUnavailable();
    const nowMs = clock.now();
    const now = isoTime(nowMs);
    const lastMs = found.lastActivityAt === null ? nowMs : Date.parse(found.lastActivityAt);
    const row: SessionRow = {
      id: newId("ses", nowMs),
      project_root: this.#projectRoot(cwd),
      cwd,
      harness: harness.id,
      title: request.title ?? (found.title || `Adopted ${harness.id} session`),
      status: "completed",
      exit_code: null,
      signal: null,
      pid: null,
      pgid: null,
      model: request.model ?? null,
      familiar_id: null,
      origin: "api",
      routine_id: null,
      run_id: null,
      created_at: now,
      updated_at: now,
      ended_at: isoTime(Math.min(lastMs, nowMs)),
      last_seq: 0,
      protocol: harness.protocol,
      activity: null,
      agent_session_id: found.agentSessionId,
      turns: 0,
      usage_json: JSON.stringify(NO_USAGE),
      approvals: request.approvals ?? this.#options.defaultApprovals(),
      worktree_json: null,
      leader_start: null,
      agent_resumable: 1,
      resumes: 0,
      park_json: null,
      auto_resume_json: null,
    };
    try {
      sessions.insert(row);
    } catch (error) {
      this.#options.log.error("Cannot record an adopted session", { error });
      throw storeUnavailable();
    }
    events.open(row.id, 0);
    try {
      await events.append(row.id, "session.adopted", {
        harness: harness.id,
        agentSessionId: found.agentSessionId,
        cwd,
        lastActivityAt: found.lastActivityAt,
        imported: history?.length ?? 0,
        transcript: history === null ? "unreadable" : "read",
      });
      for (const message of history ?? []) {
        await events.append(row.id, "agent.message", {
          role: message.role,
          text: message.text,
          imported: true,
          ...(message.at !== null && { at: message.at }),
        });
      }
    } finally {
      events.close(row.id);
    }
    this.#options.publish("session.created", {
      sessionId: row.id,
      harness: row.harness,
      status: row.status,
      activity: null,
    });
    this.#options.log.info("Session adopted", {
      sessionId: row.id,
      harness: row.harness,
      imported: history?.length ?? 0,
    });
    return sessions.get(row.id) ?? row;
  }

  /**
   * The native resume (D26). A refusal before the agent started (too many
   * sessions, the daemon stopping, a resume check) leaves the adopted
   * session ended `failed` with the reason, resumable later.
   */
  async #resume(row: SessionRow, model: string | undefined): Promise<Launched> {
    try {
      return await this.#options.supervisor.resume(row.id, model === undefined ? {} : { model });
    } catch (error) {
      const now = this.#options.sessions.get(row.id);
      if (now && now.status === "completed" && now.resumes === 0) {
        const message = (error as Error).message;
        await appendToSession(this.#options.events, this.#options.sessions, {
          sessionId: row.id,
          kind: "session.ended",
          payload: { status: "failed", exitCode: null, signal: null, error: message },
        }).catch(() => {});
        this.#options.sessions.update(row.id, {
          status: "failed",
          updated_at: isoTime(this.#options.clock.now()),
        });
      }
      throw error;
    }
  }

  /** The configured project root holding `cwd` (the innermost), else `cwd` itself. */
  #projectRoot(cwd: string): string {
    const roots = this.#options.projectRoots() ?? [];
    const holding = roots.filter((root) => isInside(root, cwd)).sort((a, b) => b.length - a.length);
    return holding[0] ?? cwd;
  }
}

function adoptingNow(harness: string, agentSessionId: string, sessionId: string | null) {
  return new ServiceError(
    "session_live",
    409,
    sessionId === null
      ? `Agent session "${agentSessionId}" of harness "${harness}" is being adopted now`
      : `Agent session "${agentSessionId}" of harness "${harness}" runs in svc session "${sessionId}" now`,
    { harness, agentSessionId, ...(sessionId !== null && { sessionId }) },
  );
}
