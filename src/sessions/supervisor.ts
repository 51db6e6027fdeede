import { ServiceError, sessionNotFound, storeUnavailable } from "../errors.ts";
import type { Clock } from "../clock.ts";
import type { EventLog } from "../events/event_log.ts";
import type { LiveEvents } from "../events/live_events.ts";
import { truncateUtf8 } from "../events/page.ts";
import { redactText } from "../events/redact.ts";
import type { Logger } from "../log.ts";
import type { SessionRow, SessionsStore } from "../store/sessions_store.ts";
import type { HarnessSpec } from "./harnesses.ts";
import type { Launcher } from "./launcher.ts";
import { notResumable, resumeRefusal } from "../policy/resume.ts";
import { loadWaitMs, loadWaitNotice, MAX_LOAD_WAIT_MS } from "./load_minute.ts";
import type {
  ConversationTimeouts,
  ParkedTurns,
  PermissionDecision,
  PermissionRequest,
} from "../agents/conversation.ts";
import type { AutoResume, ParkOutcome } from "./park_record.ts";
import type { AdapterFactory, AgentProtocolId } from "../agents/protocol.ts";
import type { ApprovalPolicy } from "../approvals/broker.ts";
import type { WorktreeRecord } from "../worktrees/worktree_record.ts";
import { MarkedReaper, processStartTime } from "./process_tree.ts";
import { killOrphanProcesses } from "./orphan_processes.ts";
import { recordLaunch, recordResume } from "./start_record.ts";
import { pumpSessionOutput } from "./output_pump.ts";
import { daemonStopping, LaunchGate } from "./launch_gate.ts";
import type { SpawnedProcess, Spawner } from "./spawner.ts";
import { closeStdin, type LiveSession, newLiveSession, signalStart } from "./live_session.ts";
import { deliverRawInput, endInput, writePrompt } from "./raw_input.ts";
import { newConversation } from "./session_conversation.ts";
import {
  endOutcome,
  recordSessionEnd,
  type SessionOutcome,
  sweepLeftovers,
} from "./session_end.ts";

/** Grace between SIGTERM and SIGKILL on kill (D7). */
export const KILL_GRACE_MS = 5000;
/** The `session.started` payload keeps this much of the prompt, in UTF-8 bytes (D8). */
const STARTED_PROMPT_BYTES = 4096;

/** Everything a launch needs, already validated. */
export interface LaunchSpec {
  projectRoot: string;
  cwd: string;
  harness: HarnessSpec;
  prompt: string;
  model: string | null;
  title: string;
  familiarId: string | null;
  origin: "api" | "automation";
  /** Close a protocol session after its first turn (D16; routine runs always are). */
  oneShot: boolean;
  /** How the session's permission requests are answered (D18). */
  approvals: ApprovalPolicy;
  routineId?: string;
  runId?: string;
  /** The session id, when the caller needed it first (a worktree named after it, D20). */
  id?: string;
  /** The git worktree the session runs in (D20). */
  worktree?: WorktreeRecord;
  /** Resume after a limit lifts (D33); absent: config's `autoResume`. */
  autoResume?: AutoResume;
  /**
   * Runs after the session is recorded and before the agent starts (D27:
   * worktree setup), recording events of the session through `append`. A
   * failure ends the session `failed`; a ServiceError keeps its code.
   */
  prepare?: (
    append: (kind: string, payload: Record<string, unknown>) => Promise<void>,
  ) => Promise<void>;
}

/** A launched session: its row, and a promise of the row once it has ended. */
export interface Launched {
  row: SessionRow;
  ended: Promise<SessionRow>;
}

/** Options of the supervisor. */
export interface SupervisorOptions {
  /** The daemon's home (real path): its sessions' processes carry it (issue 33 item 7). */
  home: string;
  sessions: SessionsStore;
  events: EventLog;
  /** Live-only events to the sessions' stream readers (D29). */
  live: LiveEvents;
  spawner: Spawner;
  /** Runs the resume checks and builds each start's argv, environment and cwd. */
  launcher: Launcher;
  clock: Clock;
  log: Logger;
  maxLiveSessions: number;
  /** Where raw (unredacted) output goes when raw artifacts are on; null when off (D9). */
  artifactsDir: string | null;
  /** The adapter of each agent protocol (D16). */
  adapters: Readonly<Record<AgentProtocolId, AdapterFactory>>;
  /** Conversation timeouts (config `turnTimeoutMinutes`, `idleTimeoutMinutes`). */
  timeouts: () => ConversationTimeouts;
  /** Tells the daemon-wide feed (D19) that a session was created or changed status or activity. */
  publish: (
    kind: "session.created" | "session.updated" | "session.parked",
    data: Record<string, unknown>,
  ) => void;
  /** Answers agent permission requests under the session's policy (D18: the broker). */
  decide: (
    sessionId: string,
    policy: ApprovalPolicy,
    request: PermissionRequest,
    signal: AbortSignal,
  ) => Promise<PermissionDecision>;
  /** The standing rules' answer to a request before it is recorded (D28); null: none. */
  checkRules?: (
    sessionId: string,
    request: PermissionRequest,
  ) => Promise<PermissionDecision | null>;
  /**
   * Fields to store with an ending session, taken before `session.ended` is
   * recorded (D20: its worktree's changes counted). Must not throw.
   */
  finalize?: (row: SessionRow) => Promise<Partial<SessionRow>>;
  /** The park of a session whose turn failed on a limit (D33): its fields and `session.parked`. */
  park: (row: SessionRow, parked: ParkedTurns) => ParkOutcome;
}

/**
 * Runs harness sessions (D7): spawns each in its own process group, streams
 * stdout and stderr into the event log (decoded, redacted, cut to 64 KiB
 * events), forwards input, kills whole groups, and records how each ended.
 * Reading a pipe waits while the log is behind, so output is never dropped.
 */
export class Supervisor {
  readonly #options: SupervisorOptions;
  readonly #live = new Map<string, LiveSession>();
  readonly #reaper: MarkedReaper;
  /** Launches and resumes past the checks and not yet in `#live`, until the stop (issue 33). */
  readonly #gate = new LaunchGate();
  /** Sessions being resumed, not yet in `#live` (D26: concurrent resumes start one agent). */
  readonly #resuming = new Set<string>();

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#reaper = new MarkedReaper(options.home);
  }

  /** Number of running sessions. */
  liveCount(): number {
    return this.#live.size;
  }

  /**
   * Launches a session. A program that cannot start leaves a `failed` row
   * and throws 500 `launch_failed` with the session id.
   */
  async launch(spec: LaunchSpec): Promise<Launched> {
    this.#admit("launch");
    try {
      return await this.#launch(spec);
    } finally {
      this.#gate.leave();
    }
  }

  /**
   * Admits a launch or resume: 503 `daemon_stopping` once the stop began,
   * 429 past maxLiveSessions. Counted before the first await, so parallel
   * ones cannot all pass (issue 13); the caller leaves the gate after.
   */
  #admit(what: "launch" | "resume"): void {
    const { maxLiveSessions } = this.#options;
    this.#gate.enter(what);
    if (this.#live.size + this.#gate.inFlight > maxLiveSessions) {
      this.#gate.leave();
      throw new ServiceError(
        "too_many_sessions",
        429,
        `Cannot ${what}: ${maxLiveSessions} sessions are already running (maxLiveSessions)`,
        { limit: maxLiveSessions },
      );
    }
  }

  async #launch(spec: LaunchSpec): Promise<Launched> {
    const { events } = this.#options;
    if (events.degraded) throw storeUnavailable();
    const row = recordLaunch(this.#options, spec);
    if (spec.prepare) {
      try {
        await spec.prepare(async (kind, payload) => {
          await events.append(row.id, kind, payload);
        });
      } catch (error) {
        const message = (error as Error).message;
        await this.#finish(row, { status: "failed", exit: null, error: message });
        const known = error instanceof ServiceError;
        throw new ServiceError(
          known ? error.code : "launch_failed",
          known ? error.status : 500,
          message,
          { ...(known ? error.details : {}), sessionId: row.id, harness: spec.harness.id },
        );
      }
    }
    return await this.#start(row, { ...spec, resumed: null });
  }

  /**
   * Continues an ended conversation in a new process of its agent (D26): the
   * same session id and event log (seqs go on after a `session.resumed`
   * event), its turns and usage adding up. Refused with 409 while live or
   * being resumed, and when the record says it cannot be; 429 past the live
   * limit, like a launch; the launcher re-runs the launch checks (issue 33
   * item 6) and gives the harness and the real cwd. An agent that cannot
   * load it ends the session `failed` again, its message in the log.
   */
  async resume(sessionId: string, options: { model?: string } = {}): Promise<Launched> {
    const { sessions, events, clock } = this.#options;
    // Checked and reserved before the first await: of concurrent resumes exactly one starts.
    if (this.#live.has(sessionId) || this.#resuming.has(sessionId)) {
      throw new ServiceError(
        "session_live",
        409,
        `Session "${sessionId}" is live or being resumed`,
        { sessionId },
      );
    }
    const row = sessions.get(sessionId);
    if (!row) throw sessionNotFound(sessionId);
    const refusal = resumeRefusal(row);
    if (refusal !== null) throw refusal;
    if (events.degraded) throw storeUnavailable();
    this.#admit("resume");
    this.#resuming.add(sessionId);
    try {
      const { harness, cwd } = await this.#options.launcher.checkResume(row);
      const waitMs = loadWaitMs(harness, row, clock.now());
      if (waitMs > MAX_LOAD_WAIT_MS) throw notResumable(sessionId, "clock_before_end");
      const model = options.model ?? row.model;
      await recordResume(this.#options, row, model);
      if (waitMs > 0) {
        const message = loadWaitNotice(waitMs, clock.now());
        await events.append(sessionId, "agent.notice", { level: "info", message });
        await clock.sleep(waitMs, this.#gate.closing); // A stop ends the wait: #start refuses.
      }
      return await this.#start(row, {
        harness,
        cwd,
        prompt: null,
        model,
        oneShot: false,
        approvals: row.approvals ?? "deny",
        resumed: row,
      });
    } finally {
      this.#gate.leave();
      this.#resuming.delete(sessionId);
    }
  }

  /** Spawns the harness of a recorded row and supervises it (a launch, or a resume). */
  async #start(
    row: SessionRow,
    spec: Pick<LaunchSpec, "harness" | "cwd" | "model" | "oneShot" | "approvals"> & {
      prompt: string | null;
      resumed: SessionRow | null;
    },
  ): Promise<Launched> {
    const { sessions, events } = this.#options;
    const resumeFrom = spec.resumed?.agent_session_id ?? null;
    const { stdinPrompt, ...command } = this.#options.launcher.command(row, {
      ...spec,
      resumeFrom,
    });
    let process: SpawnedProcess;
    try {
      // Admitted before the stop began: the stop waited for this, and it starts nothing now.
      if (!this.#gate.open) throw daemonStopping(spec.resumed ? "resume" : "launch");
      process = this.#options.spawner.spawn(command);
    } catch (error) {
      const message = (error as Error).message;
      const stopping = error instanceof ServiceError; // daemon_stopping: ended like the live ones
      await this.#finish(row, {
        status: stopping ? "killed" : "failed",
        exit: null,
        error: message,
      });
      throw stopping ? error : new ServiceError(
        "launch_failed",
        500,
        `Cannot launch harness "${spec.harness.id}": ${message}`,
        { sessionId: row.id, harness: spec.harness.id },
      );
    }
    const started = {
      pid: process.pid,
      pgid: process.pgid,
      leader_start: processStartTime(process.pid),
    };
    Object.assign(row, started);
    sessions.update(row.id, started);
    if (spec.prompt !== null) {
      await events.append(row.id, "session.started", {
        harness: spec.harness.id,
        pid: process.pid,
        cwd: spec.cwd,
        prompt: truncateUtf8(redactText(spec.prompt), STARTED_PROMPT_BYTES),
      });
    }
    const live = newLiveSession(row, process);
    if (spec.harness.protocol !== "raw") {
      live.conversation = newConversation(live, this.#options, {
        protocol: spec.harness.protocol,
        cwd: spec.cwd,
        model: spec.model,
        prompt: spec.prompt,
        oneShot: spec.oneShot,
        approvals: spec.approvals,
        resumeFrom,
        resumed: spec.resumed,
        kill: () => this.#terminate(live),
      });
    }
    this.#live.set(row.id, live);
    live.ended = this.#supervise(live, stdinPrompt);
    live.conversation?.start();
    return { row: sessions.get(row.id) ?? { ...row }, ended: live.ended };
  }

  /**
   * A protocol session takes `data` as its next user turn (D16: `queued`
   * while the agent works). A raw one gets it on stdin with an `input` event
   * (redacted); the request never waits on the child: a child that does not
   * read its stdin leaves input queued, up to MAX_PENDING_INPUT_BYTES, after
   * which input is refused with 409 `session_input_backlogged`.
   */
  async input(sessionId: string, data: string): Promise<{ queued?: boolean }> {
    const live = this.#requireLive(sessionId);
    // Issue 13: input the store cannot record is refused before the agent sees it.
    if (this.#options.events.degraded) throw storeUnavailable({ sessionId });
    if (live.conversation) return live.conversation.submit(sessionId, data);
    await deliverRawInput(live, data, this.#options);
    return {}; // Raw input is written at once (D7): there is no turn to queue behind.
  }

  /**
   * Cancels the current turn of a protocol session (D16), or sends SIGINT to
   * a raw session's process group, as Ctrl-C in a terminal would.
   */
  interrupt(sessionId: string): void {
    const live = this.#requireLive(sessionId);
    if (live.conversation) live.conversation.interrupt();
    else live.process.killGroup("SIGINT");
  }

  /**
   * Ends a session gracefully (D16): a protocol session once its agent is
   * idle with nothing queued; a raw session's stdin at once (end of input).
   */
  close(sessionId: string): void {
    const live = this.#requireLive(sessionId);
    if (live.conversation) {
      live.conversation.close();
      return;
    }
    closeStdin(live);
  }

  /** Signals a live session's whole process group; SIGTERM escalates to SIGKILL after 5 s. */
  kill(sessionId: string, signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): void {
    const live = this.#requireLive(sessionId);
    live.killRequested = true;
    this.#options.log.info("Session kill requested", { sessionId, signal });
    this.#terminate(live, signal);
  }

  /** Signals the group; SIGTERM escalates to SIGKILL after the grace. */
  #terminate(live: LiveSession, signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): void {
    signalStart(live, this.#reaper, signal);
    if (signal === "SIGTERM" && live.killTimer === null) {
      live.killTimer = setTimeout(() => signalStart(live, this.#reaper, "SIGKILL"), KILL_GRACE_MS);
    }
  }

  /** The end of a live session, or null when it is not live. */
  ended(sessionId: string): Promise<SessionRow> | null {
    return this.#live.get(sessionId)?.ended ?? null;
  }

  /**
   * At start-up: sessions a crash left `running` become `orphaned` with a
   * `session.ended` event, and their leftover process groups are killed (D7).
   */
  recoverOrphans(): { count: number; recorded: Promise<unknown> } {
    const orphans = this.#options.sessions.running();
    killOrphanProcesses(this.#options.home, orphans);
    for (const row of orphans) this.#options.events.open(row.id, row.last_seq);
    // Recorded in the background: a store that refuses writes (full disk) must not keep the
    // daemon from listening; the rows turn `orphaned` once their events are durable.
    const recorded = Promise.all(
      orphans.map((row) => this.#finish(row, { status: "orphaned", exit: null })),
    );
    return { count: orphans.length, recorded };
  }

  /** The stop begins: launches and resumes answer 503 `daemon_stopping` from now on. */
  stopLaunches(): void {
    void this.#gate.close();
  }

  /**
   * Graceful stop: admit no launch or resume, wait for those in flight, then
   * kill every live session (they end `killed`) and wait for them.
   */
  async shutdown(): Promise<void> {
    await this.#gate.close();
    const ending = [...this.#live.values()].map((live) => {
      this.kill(live.row.id, "SIGTERM");
      return live.ended;
    });
    await Promise.allSettled(ending);
  }

  #requireLive(sessionId: string): LiveSession {
    const live = this.#live.get(sessionId);
    if (live) return live;
    const row = this.#options.sessions.get(sessionId);
    if (!row) throw sessionNotFound(sessionId);
    throw new ServiceError(
      "session_not_live",
      409,
      `Session "${sessionId}" is not live (status "${row.status}")`,
      { sessionId, status: row.status },
    );
  }

  async #supervise(live: LiveSession, stdinPrompt: string | null): Promise<SessionRow> {
    const { events, artifactsDir, log } = this.#options;
    const output = pumpSessionOutput(events, live.process, {
      sessionId: live.row.id,
      artifactsDir,
      log,
      conversation: live.conversation,
    });
    if (stdinPrompt !== null) await writePrompt(live, stdinPrompt);
    const exit = await live.process.status;
    await output.drain();
    if (live.killTimer !== null) clearTimeout(live.killTimer);
    sweepLeftovers(live, this.#reaper);
    endInput(live, events);
    const ended = await this.#finish(live.row, await endOutcome(live, exit, this.#options.park));
    this.#live.delete(live.row.id);
    return ended;
  }

  /** Records how a session ended (a durable `session.ended` event, then the row). */
  #finish(row: SessionRow, outcome: SessionOutcome): Promise<SessionRow> {
    return recordSessionEnd(this.#options, row, outcome);
  }
}
