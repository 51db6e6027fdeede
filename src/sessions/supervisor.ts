import { ServiceError, sessionNotFound, storeUnavailable } from "../errors.ts";
import { type Clock, isoTime, settlesWithin } from "../clock.ts";
import type { EventLog } from "../events/event_log.ts";
import type { LiveEvents } from "../events/live_events.ts";
import { OutputStream } from "../events/output_stream.ts";
import { truncateUtf8 } from "../events/page.ts";
import { redactText } from "../events/redact.ts";
import { StreamRedactor } from "../events/stream_redactor.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../log.ts";
import type { SessionRow, SessionsStore, SessionStatus } from "../store/sessions_store.ts";
import type { HarnessSpec } from "./harnesses.ts";
import type { Launcher } from "./launcher.ts";
import { notResumable, resumeRefusal } from "../policy/resume.ts";
import { loadWaitMs, loadWaitNotice, MAX_LOAD_WAIT_MS } from "./load_minute.ts";
import {
  Conversation,
  type ConversationIo,
  type ConversationTimeouts,
  type ParkedTurns,
  type PermissionDecision,
  type PermissionRequest,
} from "../agents/conversation.ts";
import type { AutoResume, ParkOutcome } from "./park_record.ts";
import { type AdapterFactory, type AgentProtocolId, NO_USAGE } from "../agents/protocol.ts";
import type { ApprovalPolicy } from "../approvals/broker.ts";
import type { WorktreeRecord } from "../worktrees/worktree_record.ts";
import { MarkedReaper, processStartTime } from "./process_tree.ts";
import { killOrphanProcesses } from "./orphan_processes.ts";
import { openRawArtifact, PARTIAL_IDLE_MS, pumpOutput } from "./output_pump.ts";
import { daemonStopping, LaunchGate } from "./launch_gate.ts";
import { type ExitStatus, killProcessGroup, type SpawnedProcess, type Spawner } from "./spawner.ts";

/** Input queued for a child that is not reading stdin, at most (then 409). */
export const MAX_PENDING_INPUT_BYTES = 1024 * 1024;
/** An input whose event is not durable after this long is answered 503 (issue 13). */
const INPUT_DURABLE_MS = 5000;
/** Grace between SIGTERM and SIGKILL on kill (D7). */
export const KILL_GRACE_MS = 5000;
/** Leftovers of a session that ended on its own get this long after SIGTERM, then SIGKILL. */
const LEFTOVER_GRACE_MS = 2000;
/** How long output may keep flowing after the child exits (a grandchild holding the pipe). */
const DRAIN_AFTER_EXIT_MS = 2000;
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

interface LiveSession {
  row: SessionRow;
  process: SpawnedProcess;
  /** Which start of the session this process is (its marker): 0 at launch, +1 per resume. */
  generation: number;
  stdin: WritableStreamDefaultWriter<Uint8Array> | null;
  /** Input bytes accepted but not yet taken by the child (it may not be reading). */
  pendingInput: number;
  killRequested: boolean;
  killTimer: ReturnType<typeof setTimeout> | null;
  ended: Promise<SessionRow>;
  /** The agent conversation of a protocol session; null for raw ones. */
  conversation: Conversation | null;
  /**
   * Redacts a raw session's input as one stream, so a secret split across
   * two `input` calls is still found (issue 13); a line without its newline
   * is recorded once it ends, at the next input after PARTIAL_IDLE_MS, or at the end.
   */
  inputRedactor: StreamRedactor;
  inputIdleTimer: ReturnType<typeof setTimeout> | null;
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
    const { sessions, events, clock } = this.#options;
    if (events.degraded) throw storeUnavailable();
    const now = isoTime(clock.now());
    const row: SessionRow = {
      id: spec.id ?? newId("ses", clock.now()),
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
    try {
      sessions.insert(row);
    } catch (error) {
      this.#options.log.error("Cannot record a new session", { error });
      throw storeUnavailable(); // Nothing was started.
    }
    events.open(row.id, 0);
    this.#options.publish("session.created", {
      sessionId: row.id,
      harness: row.harness,
      status: row.status,
      activity: row.activity,
    });
    // Ids and names only: never the prompt, which may hold anything.
    this.#options.log.info("Session launched", {
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
      const previousStatus = row.status;
      const now = isoTime(clock.now());
      const model = options.model ?? row.model;
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
      this.#options.publish("session.updated", {
        sessionId,
        status: "running",
        activity: row.activity,
      });
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
    const { sessions, events, clock } = this.#options;
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
    const live: LiveSession = {
      row,
      process,
      generation: row.resumes,
      stdin: process.stdin.getWriter(),
      pendingInput: 0,
      killRequested: false,
      killTimer: null,
      ended: Promise.resolve(row),
      conversation: null,
      inputRedactor: new StreamRedactor(),
      inputIdleTimer: null,
    };
    const protocol = spec.harness.protocol;
    if (protocol !== "raw") {
      const adapter = this.#options.adapters[protocol]({
        cwd: spec.cwd,
        model: spec.model,
        resume: resumeFrom,
      });
      const resumed = spec.resumed;
      live.conversation = new Conversation(adapter, {
        io: this.#conversationIo(live, spec.approvals),
        clock,
        timeouts: this.#options.timeouts(),
        prompt: spec.prompt,
        oneShot: spec.oneShot,
        ...(resumed
          ? {
            resumed: {
              agentSessionId: resumed.agent_session_id,
              turns: resumed.turns,
              usage: resumed.usage_json === null ? NO_USAGE : JSON.parse(resumed.usage_json),
            },
          }
          : {}),
      });
    }
    this.#live.set(row.id, live);
    live.ended = this.#supervise(live, stdinPrompt);
    live.conversation?.start();
    return { row: sessions.get(row.id) ?? { ...row }, ended: live.ended };
  }

  /** What a conversation may do to its session: write lines, record events, update the row. */
  #conversationIo(live: LiveSession, approvals: ApprovalPolicy): ConversationIo {
    const { events, sessions, log } = this.#options;
    const sessionId = live.row.id;
    const encoder = new TextEncoder();
    return {
      write: (line) => {
        const stdin = live.stdin;
        if (!stdin) return;
        stdin.write(encoder.encode(line + "\n")).catch(() => {
          if (live.stdin === stdin) live.stdin = null; // The agent closed its stdin.
        });
        void events.append(sessionId, "input", { data: redactText(line + "\n") });
      },
      record: (kind, payload) => events.append(sessionId, kind, payload),
      publish: (kind, payload) => {
        const afterSeq = events.lastAppendedSeq(sessionId);
        if (afterSeq !== null) this.#options.live.publish(sessionId, { kind, payload, afterSeq });
      },
      closeInput: () => {
        live.stdin?.close().catch(() => {});
        live.stdin = null;
      },
      kill: () => this.#terminate(live),
      changed: (state) => {
        if (state.activity !== live.row.activity) {
          live.row.activity = state.activity;
          this.#options.publish("session.updated", {
            sessionId,
            status: "running",
            activity: state.activity,
          });
        }
        try {
          sessions.update(sessionId, {
            activity: state.activity,
            agent_session_id: state.agentSessionId,
            agent_resumable: state.resumable ? 1 : 0,
            turns: state.turns,
            usage_json: JSON.stringify(state.usage),
            updated_at: isoTime(this.#options.clock.now()),
          });
        } catch (error) {
          log.error("Cannot update the session record", { sessionId, error });
        }
      },
      decide: (request, signal) => this.#options.decide(sessionId, approvals, request, signal),
      checkRules: (request) =>
        this.#options.checkRules?.(sessionId, request) ?? Promise.resolve(null),
    };
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
    const stdin = live.stdin;
    if (!stdin) {
      throw new ServiceError(
        "session_input_closed",
        409,
        `Session "${sessionId}" does not read input: its stdin is closed`,
        { sessionId },
      );
    }
    const bytes = new TextEncoder().encode(data);
    if (live.pendingInput + bytes.length > MAX_PENDING_INPUT_BYTES) {
      throw new ServiceError(
        "session_input_backlogged",
        409,
        `Session "${sessionId}" is not reading its input: ${live.pendingInput} bytes are still queued`,
        { sessionId, pendingBytes: live.pendingInput },
      );
    }
    live.pendingInput += bytes.length;
    stdin.write(bytes).then(
      () => live.pendingInput -= bytes.length,
      () => {
        live.pendingInput -= bytes.length;
        if (live.stdin === stdin) live.stdin = null; // The child closed its stdin.
      },
    );
    const recorded = this.#recordInput(live, live.inputRedactor.push(data));
    if (live.inputIdleTimer !== null) clearTimeout(live.inputIdleTimer);
    live.inputIdleTimer = live.inputRedactor.pending() === 0 ? null : setTimeout(() => {
      live.inputIdleTimer = null;
      void this.#recordInput(live, live.inputRedactor.flushPartial());
    }, PARTIAL_IDLE_MS);
    // Acknowledged once its event is durable (issue 13); a store that stops committing meanwhile
    // gets 503, saying the child already has the bytes.
    if (
      recorded !== null && !await settlesWithin(this.#options.clock, recorded, INPUT_DURABLE_MS)
    ) {
      throw storeUnavailable({ sessionId, delivered: true });
    }
    return {}; // Raw input is written at once (D7): there is no turn to queue behind.
  }

  /** Records redacted input; resolves once durable (null when there was nothing to record). */
  #recordInput(live: LiveSession, redacted: string): Promise<unknown> | null {
    if (redacted === "") return null;
    return this.#options.events.append(live.row.id, "input", { data: redacted });
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
    live.stdin?.close().catch(() => {});
    live.stdin = null;
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
    this.#signalAll(live, signal);
    if (signal === "SIGTERM" && live.killTimer === null) {
      live.killTimer = setTimeout(() => this.#signalAll(live, "SIGKILL"), KILL_GRACE_MS);
    }
  }

  /** The session's process group, and its marked processes that left the group. */
  #signalAll(live: LiveSession, signal: Deno.Signal): void {
    live.process.killGroup(signal);
    this.#reaper.signal(live.row.id, live.generation, signal);
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
    const stopPumps = new AbortController();
    const rawSink = openRawArtifact(this.#options.artifactsDir, live.row.id, this.#options.log);
    const conversation = live.conversation;
    const stdout = conversation
      ? new OutputStream((text) => conversation.onStdout(text), {
        streamedPiece: (line) => conversation.streamedPiece(line),
      })
      : new OutputStream();
    const pumps = Promise.all([
      pumpOutput(this.#options.events, live.process.stdout, {
        sessionId: live.row.id,
        name: "stdout",
        rawSink,
        stop: stopPumps.signal,
        output: stdout,
      }),
      pumpOutput(this.#options.events, live.process.stderr, {
        sessionId: live.row.id,
        name: "stderr",
        rawSink,
        stop: stopPumps.signal,
        output: new OutputStream(),
      }),
    ]);
    if (stdinPrompt !== null) await this.#writePrompt(live, stdinPrompt);
    const exit = await live.process.status;
    // A grandchild may hold the pipes open after the child exits: drain briefly, then stop.
    const drainTimer = setTimeout(() => stopPumps.abort(), DRAIN_AFTER_EXIT_MS);
    await pumps;
    clearTimeout(drainTimer);
    rawSink?.close();
    if (live.killTimer !== null) clearTimeout(live.killTimer);
    // Nothing of a session outlives it: leftovers in its group (a grandchild that
    // ignored SIGTERM, a background job) are ended with the session.
    this.#signalAll(live, live.killRequested ? "SIGKILL" : "SIGTERM");
    if (!live.killRequested) {
      // A leftover that ignores SIGTERM gets SIGKILL after the grace; a resume started
      // meanwhile is another start of the session and is spared (issue 38 item 5).
      const { pgid } = live.process;
      const { generation, row: { id: sessionId } } = live;
      setTimeout(() => {
        killProcessGroup(pgid, "SIGKILL");
        this.#reaper.signal(sessionId, generation, "SIGKILL");
      }, LEFTOVER_GRACE_MS);
    }
    live.stdin?.close().catch(() => {});
    live.stdin = null;
    if (live.inputIdleTimer !== null) clearTimeout(live.inputIdleTimer);
    void this.#recordInput(live, live.inputRedactor.flush());
    const failure = conversation ? await conversation.finish() : null;
    const parked = live.killRequested ? null : conversation?.parked ?? null;
    const status: SessionStatus = live.killRequested
      ? "killed"
      : parked !== null
      ? "parked"
      : exit.code === 0 && exit.signal === null && failure === null
      ? "completed"
      : "failed";
    const ended = await this.#finish(live.row, {
      status,
      exit,
      ...(failure === null ? {} : { error: failure }),
      ...(parked === null ? {} : { park: this.#options.park(live.row, parked) }),
    });
    this.#live.delete(live.row.id);
    return ended;
  }

  /** A `stdin` prompt of a raw harness (D3); stdin stays open for `input`. */
  async #writePrompt(live: LiveSession, stdinPrompt: string): Promise<void> {
    try {
      await live.stdin!.write(new TextEncoder().encode(stdinPrompt));
    } catch {
      live.stdin = null; // The child exited or closed its stdin: input is over.
    }
  }

  /**
   * Records how a session ended: first a durable `session.ended` event, then
   * the row, so a reader that sees the row ended already finds the event.
   */
  async #finish(
    row: SessionRow,
    outcome: { status: SessionStatus; exit: ExitStatus | null; error?: string; park?: ParkOutcome },
  ): Promise<SessionRow> {
    const { sessions, events, clock } = this.#options;
    const final = { ...await this.#options.finalize?.(row), ...outcome.park?.fields };
    if (outcome.park) await events.append(row.id, "session.parked", outcome.park.event);
    const exitCode = outcome.exit?.code ?? null;
    const signal = outcome.exit?.signal ?? null;
    const payload: Record<string, unknown> = { status: outcome.status, exitCode, signal };
    if (outcome.error !== undefined) payload.error = redactText(outcome.error);
    await events.append(row.id, "session.ended", payload);
    events.close(row.id);
    const now = isoTime(clock.now());
    const fields = {
      ...final,
      status: outcome.status,
      activity: null, // Not live any more, whatever it was doing (D16).
      exit_code: exitCode,
      signal,
      ended_at: now,
      updated_at: now,
    };
    sessions.update(row.id, fields);
    events.notify(row.id);
    this.#options.publish("session.updated", {
      sessionId: row.id,
      status: outcome.status,
      activity: null,
    });
    if (outcome.park) {
      this.#options.publish("session.parked", { sessionId: row.id, ...outcome.park.event });
    }
    this.#options.log.info("Session ended", {
      sessionId: row.id,
      status: outcome.status,
      exitCode,
      signal,
    });
    return sessions.get(row.id) ?? { ...row, ...fields };
  }
}
