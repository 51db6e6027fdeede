/**
 * A conversation with one agent (D16): the protocol-agnostic layer between
 * the supervisor and a protocol adapter. It feeds the child's stdout lines to
 * the adapter, records typed events (D17), queues user turns (FIFO, one at a
 * time), answers permission requests through a decider (D18), sums usage
 * (D22), and keeps the timers that stop a conversation from hanging: the turn
 * timeout, the interrupt grace, the idle timeout and the close grace.
 */
import { ServiceError } from "../errors.ts";
import type { Clock } from "../clock.ts";
import { redactText } from "../events/redact.ts";
import { StreamRedactor } from "../events/stream_redactor.ts";
import { truncateUtf8, utf8Length } from "../events/page.ts";
import { MAX_BODY_BYTES } from "../policy/body.ts";
import {
  type AdapterStep,
  addUsage,
  MAX_EVENT_TEXT_BYTES,
  NO_USAGE,
  type PermissionAnswer,
  type PermissionOption,
  type ProtocolAdapter,
  type TurnStatus,
  type Usage,
} from "./protocol.ts";
import { LineSplitter } from "./line_splitter.ts";
import type { TurnLimit } from "./limits.ts";
import type { RequestTarget } from "../policy/approval_rules.ts";
import type { PermissionProfile } from "../policy/permission_profile.ts";

/** What the agent is doing (D16 `activity`). */
export type Activity = "starting" | "working" | "idle" | "waiting_approval";

/** A permission request as the decider sees it. */
export interface PermissionRequest {
  requestId: string;
  tool: string;
  summary: string;
  options: PermissionOption[];
  /** What it is about, for approval rules (D28); absent when the adapter cannot tell. */
  target?: RequestTarget;
}

/** A decision and who made it (D17 `agent.permission.resolved.by`; D28 `rule`). */
export interface PermissionDecision extends PermissionAnswer {
  by: "owner" | "policy" | "timeout" | "ended" | "rule";
  /** The rule that decided, when `by` is `rule` (D28). */
  ruleId?: string;
  /** The paired device the owner answered from, when `by` is `owner` (D30). */
  device?: DeviceRef;
}

/** A paired device as the audit names it (D30). */
export interface DeviceRef {
  readonly id: string;
  readonly name: string;
}

/** The session-record fields a conversation keeps current. */
export interface ConversationState {
  activity: Activity | null;
  agentSessionId: string | null;
  turns: number;
  usage: Usage;
  /** The agent can load this conversation again (D26). */
  resumable: boolean;
}

/** The I/O a conversation needs; the supervisor provides it. */
export interface ConversationIo {
  /** Writes one line (a newline is added) to the child's stdin. */
  write(line: string): void;
  /** Appends a typed event; resolves once it is durable. */
  record(kind: string, payload: Record<string, unknown>): Promise<unknown>;
  /** Sends a live-only event to the session's stream readers: never stored (D29). */
  publish(kind: string, payload: Record<string, unknown>): void;
  /** Ends the child's input: the agent exits when it sees EOF. */
  closeInput(): void;
  /** Ends the session's process group (an agent that no longer answers). */
  kill(): void;
  /** The record fields changed. */
  changed(state: ConversationState): void;
  /** Answers a permission request (the approval broker, D18). */
  decide(request: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision>;
  /**
   * The standing rules' answer (D28), asked before the request is recorded so
   * that `decide` makes it pending at once; null when no rule answers.
   */
  checkRules?(request: PermissionRequest): Promise<PermissionDecision | null>;
}

/** Timeouts of a conversation, in milliseconds (config, D16). */
export interface ConversationTimeouts {
  turnMs: number;
  idleMs: number;
  /** After an interrupt, how long the agent has to end the turn before it is killed. */
  interruptGraceMs: number;
  /** After closing stdin, how long the agent has to exit before it is killed. */
  closeGraceMs: number;
}

/**
 * Queued turns may hold this much text (UTF-8 bytes), as raw input (D7): the
 * body limit, so a turn the body limit accepts always fits an empty queue
 * (issue 33 item 13: counting 3 bytes a character refused one of 350,000).
 */
const MAX_QUEUED_INPUT_BYTES = MAX_BODY_BYTES;
/** Lines longer than this are dropped (recorded as an error); nothing real comes close. */
const MAX_LINE_CHARS = 16 * 1024 * 1024;

/** A turn that failed on a limit, and those queued behind it (D33): the session parks. */
export interface ParkedTurns {
  limit: TurnLimit;
  /** The interrupted turn first; each to be sent again when the session is resumed. */
  turns: string[];
}

interface Turn {
  number: number;
  /** What the user sent (a turn that fails on a limit is sent again, D33). */
  text: string;
  startedAt: number;
  /** Usage the agent reported during the turn so far. */
  usage: Usage | null;
  /** The session's cumulative usage when the turn started, for cumulative reports. */
  cumulativeBase: Usage | null;
  interruptReason: string | null;
  lastMessage: string | null;
}

/** Drives one protocol session. */
export class Conversation {
  readonly #adapter: ProtocolAdapter;
  readonly #io: ConversationIo;
  readonly #clock: Clock;
  readonly #timeouts: ConversationTimeouts;
  readonly #lines = new LineSplitter(MAX_LINE_CHARS);
  readonly #queue: string[] = [];
  /** UTF-8 bytes of the turns in `#queue`. */
  #queuedBytes = 0;
  /** One per permission request still deciding; a Set, as two may share an id (issue 28 item 7). */
  readonly #pending = new Set<AbortController>();
  /** Permission requests still being decided or recorded (awaited before the session ends). */
  readonly #deciding = new Set<Promise<void>>();
  #ready = false;
  #closing = false;
  #inputClosed = false;
  #ended = false;
  #turn: Turn | null = null;
  #turnCount = 0;
  #lastCumulative: Usage | null = null;
  #state: ConversationState = {
    activity: "starting",
    agentSessionId: null,
    turns: 0,
    usage: NO_USAGE,
    resumable: false,
  };
  /** The one pending timer (turn, interrupt grace, idle or close); replaced as the state moves. */
  #timer: AbortController | null = null;
  /** The pending timer is the turn timeout's: a line moves its deadline (`#heardAt`), not it. */
  #turnTimer = false;
  /** When the agent's last line came, if one came since the turn timer was set; else null. */
  #heardAt: number | null = null;
  #failure: string | null = null;
  /** A `ready` waiting for the agent's replay of a loaded conversation to end (D26). */
  #settling: Extract<AdapterStep, { type: "ready" }> | null = null;
  #oneShot: boolean;
  #lastTurnStatus: TurnStatus | null = null;
  /** Redacts the assistant message being streamed as one text, so deltas match its record. */
  #deltaRedactor: StreamRedactor | null = null;
  #parked: ParkedTurns | null = null;

  constructor(
    adapter: ProtocolAdapter,
    options: {
      io: ConversationIo;
      clock: Clock;
      timeouts: ConversationTimeouts;
      /** The first turn; null when resuming a conversation, which waits for input (D26). */
      prompt: string | null;
      oneShot: boolean;
      /** A resumed conversation's record so far: its turns and usage go on adding up (D26). */
      resumed?: Pick<ConversationState, "agentSessionId" | "turns" | "usage">;
    },
  ) {
    this.#adapter = adapter;
    this.#io = options.io;
    this.#clock = options.clock;
    this.#timeouts = options.timeouts;
    this.#oneShot = options.oneShot;
    this.#closing = options.oneShot; // A one-shot session takes no input beyond its prompt.
    if (options.prompt !== null) this.#enqueue(options.prompt);
    if (options.resumed) {
      this.#state = { ...this.#state, ...options.resumed, resumable: true };
      this.#turnCount = options.resumed.turns;
    }
  }

  /** The record fields as they stand. */
  get state(): ConversationState {
    return this.#state;
  }

  /** The turns a limit interrupted (D33); null unless a turn failed on one. */
  get parked(): ParkedTurns | null {
    return this.#parked;
  }

  /** Sends the handshake; the handshake must complete within the turn timeout. */
  start(): void {
    for (const line of this.#adapter.start()) this.#io.write(line);
    if (this.#adapter.turnsBeforeReady) {
      // Nothing to say yet (a resumed claude answers its first turn only): waiting for input.
      if (this.#queue.length === 0) this.#setState({ activity: "idle" });
      this.#pump();
      return;
    }
    this.#arm(
      this.#timeouts.turnMs,
      () => this.#fatal("Agent did not complete its handshake in time"),
    );
  }

  /** Decoded stdout text, in any chunking. */
  onStdout(text: string): void {
    const { lines, dropped } = this.#lines.push(text);
    if (dropped > 0) this.#error(`Dropped an agent output line over ${MAX_LINE_CHARS} characters`);
    for (const line of lines) this.#onLine(line);
  }

  /** Whether a stdout line is a streamed piece of text, not stored as `output` (issue 33). */
  streamedPiece(line: string): boolean {
    return this.#adapter.streamedPiece(line);
  }

  /**
   * Queues `text` as the next user turn; sends it at once when the agent is
   * idle. Returns whether it had to wait.
   */
  submit(sessionId: string, text: string): { queued: boolean } {
    if (text.trim() === "") {
      throw new ServiceError("invalid_request", 400, "Input must not be empty", { field: "data" });
    }
    if (this.#closing || this.#ended) {
      throw new ServiceError(
        "session_input_closed",
        409,
        `Session "${sessionId}" is closing: it takes no more input`,
        { sessionId },
      );
    }
    if (this.#queuedBytes + utf8Length(text) > MAX_QUEUED_INPUT_BYTES) {
      const turns = this.#queue.length;
      throw new ServiceError(
        "session_input_backlogged",
        409,
        `Session "${sessionId}" has ${turns} ${turns === 1 ? "turn" : "turns"} ` +
          `(${this.#queuedBytes} bytes) queued: wait for the agent (queued turns hold at most ` +
          `${MAX_QUEUED_INPUT_BYTES} bytes)`,
        {
          sessionId,
          queuedTurns: turns,
          queuedBytes: this.#queuedBytes,
          limit: MAX_QUEUED_INPUT_BYTES,
        },
      );
    }
    this.#enqueue(text);
    const queued = !this.#canSend();
    this.#pump();
    return { queued };
  }

  /** Cancels the current turn (D16); queued input stays queued. False when no turn runs. */
  interrupt(reason = "interrupted"): boolean {
    const turn = this.#turn;
    if (turn === null || turn.interruptReason !== null) return turn !== null;
    turn.interruptReason = reason;
    this.#endPermissions();
    for (const line of this.#adapter.interrupt()) this.#io.write(line);
    this.#arm(this.#timeouts.interruptGraceMs, () => {
      this.#fatal(`Agent did not stop the turn within ${this.#timeouts.interruptGraceMs} ms`);
    });
    return true;
  }

  /** Ends the conversation once the agent is idle with nothing queued (D16). */
  close(): void {
    this.#closing = true;
    this.#pump();
  }

  /**
   * The child exited and its output is drained. Resolves, once every event
   * of the conversation is recorded, with why the session failed, or null:
   * exiting before the handshake fails it (D16), and so does a one-shot
   * session whose turn did not complete.
   */
  async finish(): Promise<string | null> {
    const { lines } = this.#lines.flush();
    for (const line of lines) this.#onLine(line);
    this.#ended = true;
    this.#disarm();
    this.#endPermissions();
    while (this.#deciding.size > 0) await Promise.allSettled([...this.#deciding]);
    // A resumed claude that was closed before its first turn never had to announce itself.
    const neverAsked = this.#adapter.turnsBeforeReady === true && this.#inputClosed &&
      this.#lastTurnStatus === null;
    if (!this.#ready && this.#failure === null && !neverAsked) {
      this.#failure = "Agent exited before its protocol handshake completed";
      void this.#io.record("agent.error", { message: this.#failure });
    }
    if (this.#turn !== null) this.#endTurn("failed", "agent_exited", null, null);
    this.#endDeltas(); // Deltas outside a turn: nothing stays held when the stream ends.
    this.#setState({ activity: null });
    const unfinished = this.#oneShot && this.#lastTurnStatus !== "completed" &&
      this.#parked === null;
    if (this.#failure === null && unfinished) {
      this.#failure = `The turn ended ${this.#lastTurnStatus ?? "without starting"}`;
    }
    return this.#failure;
  }

  #onLine(line: string): void {
    if (this.#ended) return;
    // Any line from the agent is progress: the turn timeout counts silence. A running turn timer
    // is left alone (a new timer per line cost the daemon 12 % of its CPU at 1,000 lines/s).
    if (this.#turn !== null && this.#turn.interruptReason === null && this.#pending.size === 0) {
      if (this.#turnTimer) this.#heardAt = this.#clock.now();
      else this.#armTurnTimeout();
    }
    // A loaded conversation's replay is still arriving: the first turn waits for silence.
    if (this.#settling !== null) this.#armSettle(this.#settling);
    for (const step of this.#adapter.onLine(line)) this.#onStep(step);
  }

  #armSettle(step: Extract<AdapterStep, { type: "ready" }>): void {
    this.#settling = step;
    this.#arm(step.settleMs ?? 0, () => {
      this.#settling = null;
      this.#onStep({ ...step, settleMs: 0 });
    });
  }

  #onStep(step: AdapterStep): void {
    switch (step.type) {
      case "ready":
        if (this.#ready) return;
        if ((step.settleMs ?? 0) > 0) {
          this.#armSettle(step);
          return;
        }
        this.#ready = true;
        this.#setState({
          activity: this.#turn === null ? "idle" : this.#state.activity,
          agentSessionId: step.agentSessionId ?? this.#state.agentSessionId,
          resumable: step.resumable,
        });
        void this.#io.record("agent.started", {
          protocol: this.#adapter.protocol,
          agentSessionId: step.agentSessionId,
          model: step.model,
          agentVersion: step.agentVersion,
        });
        if (this.#turn === null) {
          this.#disarm();
          this.#pump();
        }
        return;
      case "session":
        this.#setState({ agentSessionId: step.agentSessionId });
        return;
      case "delta":
        this.#onDelta(step.text);
        return;
      case "notice":
        void this.#io.record("agent.notice", {
          level: step.level,
          message: redactText(step.message),
          ...(step.attempt !== null && { attempt: step.attempt }),
          ...(step.maxAttempts !== null && { maxAttempts: step.maxAttempts }),
        });
        return;
      case "message":
        this.#endDeltas();
        if (this.#turn !== null) this.#turn.lastMessage = step.text;
        void this.#io.record("agent.message", { role: "assistant", text: redactText(step.text) });
        return;
      case "tool":
        void this.#io.record("agent.tool", {
          callId: step.callId,
          name: step.name,
          status: step.status,
          input: boundedText(step.input),
          output: boundedText(step.output),
        });
        return;
      case "permission": {
        const deciding = this.#onPermission(step);
        this.#deciding.add(deciding);
        deciding.finally(() => this.#deciding.delete(deciding));
        return;
      }
      case "usage":
        this.#onUsage(step.usage, step.cumulative);
        return;
      case "turn_end":
        if (this.#turn === null) return;
        this.#endTurn(step.status, step.reason, step.result, step.usage, step.limit ?? null);
        this.#pump();
        return;
      case "error":
        if (step.lost) this.#setState({ resumable: false });
        if (step.fatal) this.#fatal(step.message);
        else this.#error(step.message);
        return;
      case "write":
        if (!this.#inputClosed) this.#io.write(step.line);
        return;
    }
  }

  /**
   * Publishes a piece of the message being written (D29), redacted as part of
   * the whole message: text that may still become a secret is held back until
   * the rest of it arrives, so the deltas join into the recorded message.
   */
  #onDelta(text: string): void {
    const redactor = this.#deltaRedactor ??= new StreamRedactor();
    this.#publishDelta(redactor.push(text) + redactor.releaseSettled());
  }

  /**
   * The message is complete, or its turn or the stream ended without one: what the redactor
   * still holds is sent, redacted, and the next message starts anew.
   */
  #endDeltas(): void {
    const redactor = this.#deltaRedactor;
    if (redactor === null) return;
    this.#deltaRedactor = null;
    this.#publishDelta(redactor.flush());
  }

  #publishDelta(text: string): void {
    if (text === "") return;
    this.#io.publish("agent.message.delta", { turn: this.#turn?.number ?? null, text });
  }

  async #onPermission(step: Extract<AdapterStep, { type: "permission" }>): Promise<void> {
    const abort = new AbortController();
    this.#pending.add(abort);
    this.#disarm(); // A person may be deciding: the approval has its own timeout (D18).
    this.#setState({ activity: "waiting_approval" });
    const request: PermissionRequest = {
      requestId: step.requestId,
      tool: step.tool,
      summary: redactText(step.summary),
      options: step.options,
    };
    const target = step.target;
    const asked = target === undefined ? request : { ...request, target };
    const ruled = (await this.#io.checkRules?.(asked)) ?? null;
    // The command and paths are recorded (redacted) for the approval log (D28).
    await this.#io.record("agent.permission", {
      ...request,
      ...(target?.command ? { command: boundedText(target.command) } : {}),
      ...(target && target.paths.length > 0
        ? { paths: target.paths.slice(0, 64).map((path) => boundedText(path)) }
        : {}),
      ...(target?.profile ? { profile: boundedProfile(target.profile) } : {}),
    });
    const decision = ruled ?? await this.#io.decide(asked, abort.signal);
    this.#pending.delete(abort);
    // Durable before the agent gets the answer (D18).
    await this.#io.record("agent.permission.resolved", {
      requestId: step.requestId,
      decision: decision.decision,
      by: decision.by,
      ...(decision.ruleId === undefined ? {} : { ruleId: decision.ruleId }),
      ...(decision.device === undefined ? {} : { device: decision.device }),
    });
    if (this.#ended || this.#inputClosed) return;
    for (const line of this.#adapter.answerPermission(step.requestId, decision)) {
      this.#io.write(line);
    }
    if (this.#pending.size === 0 && this.#turn !== null) {
      this.#setState({ activity: "working" });
      if (this.#turn.interruptReason === null) this.#armTurnTimeout();
    }
  }

  /** Pending requests of an ended or interrupted turn are resolved as denied (D18). */
  #endPermissions(): void {
    for (const abort of this.#pending) abort.abort();
  }

  #onUsage(usage: Usage, cumulative: boolean): void {
    const turn = this.#turn;
    if (!cumulative) {
      if (turn !== null) turn.usage = usage;
      return;
    }
    if (turn !== null) {
      turn.cumulativeBase ??= this.#lastCumulative ?? NO_USAGE;
      turn.usage = subtractUsage(usage, turn.cumulativeBase);
    }
    this.#lastCumulative = usage;
  }

  #endTurn(
    status: TurnStatus,
    reason: string | null,
    result: string | null,
    reported: Usage | null,
    limit: TurnLimit | null = null,
  ): void {
    const turn = this.#turn!;
    this.#endDeltas(); // Text streamed without a final message stays unrecorded.
    this.#turn = null;
    this.#disarm();
    const interrupted = turn.interruptReason !== null;
    const finalStatus: TurnStatus = interrupted ? "interrupted" : status;
    const usage = reported ?? turn.usage ?? NO_USAGE;
    this.#lastTurnStatus = finalStatus;
    this.#setState({
      activity: this.#ended ? null : "idle",
      turns: this.#state.turns + (finalStatus === "completed" ? 1 : 0),
      usage: addUsage(this.#state.usage, usage),
    });
    void this.#io.record("agent.turn", {
      turn: turn.number,
      status: finalStatus,
      reason: interrupted ? turn.interruptReason : reason,
      result: boundedText(result ?? turn.lastMessage),
      usage,
      durationMs: Math.max(0, this.#clock.now() - turn.startedAt),
      ...(limit !== null && !interrupted && { limit: limitPayload(limit) }),
    });
    if (limit !== null && !interrupted && finalStatus !== "completed") this.#park(limit, turn.text);
  }

  /**
   * A turn failed on a limit (D33): it and the turns queued behind it are
   * kept to be sent again, and the conversation closes (resumable, parked).
   */
  #park(limit: TurnLimit, text: string): void {
    this.#parked = { limit, turns: [text, ...this.#queue.splice(0)] };
    this.#queuedBytes = 0;
    this.#closing = true;
  }

  #enqueue(text: string): void {
    this.#queue.push(text);
    this.#queuedBytes += utf8Length(text);
  }

  #canSend(): boolean {
    const accepting = this.#ready || this.#adapter.turnsBeforeReady === true;
    return accepting && this.#turn === null && !this.#ended && !this.#inputClosed;
  }

  /** Sends the next queued turn, or closes stdin when closing and idle, or arms the idle timer. */
  #pump(): void {
    if (!this.#canSend()) return;
    const text = this.#queue.shift();
    if (text !== undefined) {
      this.#queuedBytes -= utf8Length(text);
      this.#turn = {
        number: ++this.#turnCount,
        text,
        startedAt: this.#clock.now(),
        usage: null,
        cumulativeBase: null,
        interruptReason: null,
        lastMessage: null,
      };
      this.#setState({ activity: "working" });
      void this.#io.record("agent.message", { role: "user", text: redactText(text) });
      for (const line of this.#adapter.sendTurn(text)) this.#io.write(line);
      this.#armTurnTimeout();
      return;
    }
    if (this.#closing) {
      this.#inputClosed = true;
      this.#io.closeInput();
      this.#arm(this.#timeouts.closeGraceMs, () => this.#io.kill());
      return;
    }
    this.#arm(this.#timeouts.idleMs, () => this.close());
  }

  /** Interrupts the turn after `turnMs` without a line from the agent. */
  #armTurnTimeout(): void {
    const turnMs = this.#timeouts.turnMs;
    const wait = (ms: number) => {
      this.#heardAt = null;
      this.#arm(ms, () => {
        const heardAt = this.#heardAt;
        if (heardAt === null) {
          this.interrupt("timeout");
          return;
        }
        // A line came meanwhile: wait out the rest of its silence (a whole turnMs when the wall
        // clock stepped, so a step never times a turn out).
        const silentMs = this.#clock.now() - heardAt;
        wait(silentMs >= 0 && silentMs < turnMs ? turnMs - silentMs : turnMs);
      });
      this.#turnTimer = true;
    };
    wait(turnMs);
  }

  #arm(ms: number, onTimeout: () => void): void {
    this.#disarm();
    const timer = new AbortController();
    this.#timer = timer;
    this.#clock.sleep(ms, timer.signal).then(() => {
      if (timer.signal.aborted || this.#ended) return;
      this.#timer = null;
      this.#turnTimer = false;
      onTimeout();
    });
  }

  #disarm(): void {
    this.#timer?.abort();
    this.#timer = null;
    this.#turnTimer = false;
  }

  #error(message: string): void {
    void this.#io.record("agent.error", { message: redactText(message) });
  }

  /** An unrecoverable protocol state: record why and end the session. */
  #fatal(message: string): void {
    if (this.#failure !== null) return;
    this.#failure = message;
    this.#error(message);
    this.#io.kill();
  }

  #setState(fields: Partial<ConversationState>): void {
    this.#state = { ...this.#state, ...fields };
    this.#io.changed(this.#state);
  }
}

/** A turn's limit as `agent.turn` records it (D33): the reset as an instant, the delay in seconds. */
function limitPayload(limit: TurnLimit): Record<string, unknown> {
  return {
    reason: limit.reason,
    resetsAt: limit.resetsAt === null ? null : new Date(limit.resetsAt).toISOString(),
    retryAfterSeconds: limit.retryAfterMs === null ? null : limit.retryAfterMs / 1000,
  };
}

/** Text for a typed payload: redacted and at most 4 KiB of UTF-8 (D17). */
function boundedText(text: string | null): string | null {
  return text === null ? null : truncateUtf8(redactText(text), MAX_EVENT_TEXT_BYTES);
}

/** A permissions request's profile for the log, each path redacted and bounded like `paths`. */
function boundedProfile(profile: PermissionProfile): PermissionProfile {
  const bounded = (paths: string[]) => paths.map((path) => boundedText(path) ?? "");
  return { network: profile.network, read: bounded(profile.read), write: bounded(profile.write) };
}

function subtractUsage(total: Usage, base: Usage): Usage {
  const minus = (a: number | null, b: number | null) =>
    a === null ? null : Math.max(0, a - (b ?? 0));
  return {
    inputTokens: minus(total.inputTokens, base.inputTokens),
    outputTokens: minus(total.outputTokens, base.outputTokens),
    cachedInputTokens: minus(total.cachedInputTokens, base.cachedInputTokens),
    costUsd: minus(total.costUsd, base.costUsd),
  };
}
