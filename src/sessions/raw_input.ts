/**
 * Input to a raw session (D7): written to the child's stdin at once and
 * recorded as redacted `input` events, without ever waiting on a child that
 * does not read (issue 13). A protocol session's input is a turn of its
 * conversation instead (D16).
 */
import { type Clock, settlesWithin } from "../clock.ts";
import { ServiceError, storeUnavailable } from "../errors.ts";
import type { EventLog } from "../events/event_log.ts";
import { closeStdin, type LiveSession } from "./live_session.ts";
import { PARTIAL_IDLE_MS } from "./output_pump.ts";

/** Input queued for a child that is not reading stdin, at most (then 409). */
export const MAX_PENDING_INPUT_BYTES = 1024 * 1024;
/** An input whose event is not durable after this long is answered 503 (issue 13). */
const INPUT_DURABLE_MS = 5000;

/** What raw input delivery uses of the supervisor's options. */
export interface RawInputDeps {
  events: EventLog;
  clock: Clock;
}

/**
 * Writes `data` to the stdin of a raw session and records it (redacted);
 * resolves once its event is durable. 409 `session_input_closed` when the
 * child's stdin is closed, 409 `session_input_backlogged` past
 * MAX_PENDING_INPUT_BYTES queued; 503 when the store does not commit the
 * event in time (the child already has the bytes).
 */
export async function deliverRawInput(
  live: LiveSession,
  data: string,
  { events, clock }: RawInputDeps,
): Promise<void> {
  const sessionId = live.row.id;
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
  const recorded = recordInput(events, live, live.inputRedactor.push(data));
  if (live.inputIdleTimer !== null) clearTimeout(live.inputIdleTimer);
  live.inputIdleTimer = live.inputRedactor.pending() === 0 ? null : setTimeout(() => {
    live.inputIdleTimer = null;
    void recordInput(events, live, live.inputRedactor.flushPartial());
  }, PARTIAL_IDLE_MS);
  // Acknowledged once its event is durable (issue 13); a store that stops committing meanwhile
  // gets 503, saying the child already has the bytes.
  if (recorded !== null && !await settlesWithin(clock, recorded, INPUT_DURABLE_MS)) {
    throw storeUnavailable({ sessionId, delivered: true });
  }
}

/** A `stdin` prompt of a raw harness (D3); stdin stays open for `input`. */
export async function writePrompt(live: LiveSession, stdinPrompt: string): Promise<void> {
  try {
    await live.stdin!.write(new TextEncoder().encode(stdinPrompt));
  } catch {
    live.stdin = null; // The child exited or closed its stdin: input is over.
  }
}

/** At the session's end: stdin closed, and the input still held by the redactor recorded. */
export function endInput(live: LiveSession, events: EventLog): void {
  closeStdin(live);
  if (live.inputIdleTimer !== null) clearTimeout(live.inputIdleTimer);
  void recordInput(events, live, live.inputRedactor.flush());
}

/** Records redacted input; resolves once durable (null when there was nothing to record). */
function recordInput(
  events: EventLog,
  live: LiveSession,
  redacted: string,
): Promise<unknown> | null {
  if (redacted === "") return null;
  return events.append(live.row.id, "input", { data: redacted });
}
