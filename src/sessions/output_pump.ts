/**
 * A session's output pipes into its event log (D7, D8): each read decoded,
 * redacted and cut into events by `OutputStream`, a partial line shown after
 * a pause, and the raw bytes kept too when raw artifacts are on (D9).
 */
import { join } from "node:path";
import type { EventLog } from "../events/event_log.ts";
import { MAX_OUTPUT_EVENT_BYTES } from "../events/output_decoder.ts";
import { type OutputPiece, OutputStream } from "../events/output_stream.ts";
import type { Conversation } from "../agents/conversation.ts";
import type { Logger } from "../log.ts";
import type { SpawnedProcess } from "./spawner.ts";

/**
 * Each pump reads its pipe into one buffer of this size, reused for every read
 * (a BYOB reader): the default reader allocates a new 64 KiB chunk per read,
 * which for 200 busy sessions cost about 12% of their wall time in allocation
 * and garbage collection (issue 14). An idle pump holds it in its pending
 * read, as the default reader holds its chunk. 4 KiB less than an event's
 * most, so that a read and the partial line held from the one before usually
 * make one event without measuring where to cut (8% of ingestion's time).
 */
const READ_BYTES = MAX_OUTPUT_EVENT_BYTES - 4096;
/**
 * A partial line (an interactive prompt) is shown after PARTIAL_LINE_MS without its newline,
 * less its last two words, which may be a secret still arriving; after PARTIAL_IDLE_MS of
 * silence the rest is shown too (a secret split by a longer pause may then leak in part).
 */
const PARTIAL_LINE_MS = 100;
export const PARTIAL_IDLE_MS = 1000;
/** How long output may keep flowing after the child exits (a grandchild holding the pipe). */
const DRAIN_AFTER_EXIT_MS = 2000;

/** Which pipe of which session a pump reads, and where else its bytes go. */
export interface PumpOptions {
  sessionId: string;
  name: "stdout" | "stderr";
  /** The raw artifact (D9), or null when raw artifacts are off. */
  rawSink: Deno.FsFile | null;
  /** Cancels the read: after the drain grace, once the child has exited. */
  stop: AbortSignal;
  /**
   * Cuts the decoded text into events; a protocol session's stream also hands
   * the text to its adapter and leaves out streamed pieces (D16, D29).
   */
  output: OutputStream;
}

/**
 * Reads `stream` into session events until it ends or `stop` aborts; waits
 * while the log is behind (`whenWritable`), so output is never dropped.
 */
export async function pumpOutput(
  events: EventLog,
  stream: ReadableStream<Uint8Array>,
  { sessionId, name, rawSink, stop, output }: PumpOptions,
): Promise<void> {
  const reader = stream.getReader({ mode: "byob" });
  let buffer = new Uint8Array(READ_BYTES);
  const onStop = () => reader.cancel().catch(() => {});
  stop.addEventListener("abort", onStop, { once: true });
  let partialTimer: ReturnType<typeof setTimeout> | null = null;
  let idleTimer: ReturnType<typeof setTimeout> | null = null;
  const emit = (pieces: OutputPiece[]) => {
    for (const data of pieces) events.appendOutput(sessionId, name, data);
  };
  try {
    for (;;) {
      await events.whenWritable();
      const { done, value } = await reader.read(buffer);
      if (done) break;
      buffer = new Uint8Array(value.buffer);
      rawSink?.writeSync(value);
      emit(output.push(value));
      if (idleTimer !== null) clearTimeout(idleTimer);
      idleTimer = null;
      if (output.pending() === 0) continue;
      partialTimer ??= setTimeout(() => {
        partialTimer = null;
        emit(output.flushPartial({ holdLastWords: 2 }));
      }, PARTIAL_LINE_MS);
      idleTimer = setTimeout(() => {
        idleTimer = null;
        emit(output.flushPartial());
      }, PARTIAL_IDLE_MS);
    }
  } catch {
    // Cancelled after the drain grace, or the pipe broke: keep what was read.
  } finally {
    stop.removeEventListener("abort", onStop);
    if (partialTimer !== null) clearTimeout(partialTimer);
    if (idleTimer !== null) clearTimeout(idleTimer);
    emit(output.flush());
  }
}

/** The session's raw output file under `dir` (0600), or null when off or it cannot be opened. */
export function openRawArtifact(
  dir: string | null,
  sessionId: string,
  log: Logger,
): Deno.FsFile | null {
  if (dir === null) return null;
  try {
    const sessionDir = join(dir, sessionId);
    Deno.mkdirSync(sessionDir, { recursive: true, mode: 0o700 });
    return Deno.openSync(join(sessionDir, "output"), { create: true, append: true, mode: 0o600 });
  } catch (error) {
    log.error("Cannot open the raw artifact", { sessionId, error });
    return null;
  }
}

/** Where a session's output goes besides its event log. */
export interface SessionOutputOptions {
  sessionId: string;
  /** Where raw (unredacted) output goes when raw artifacts are on; null when off (D9). */
  artifactsDir: string | null;
  log: Logger;
  /** A protocol session's conversation reads its stdout (D16, D29); null for a raw one. */
  conversation: Pick<Conversation, "onStdout" | "streamedPiece"> | null;
}

/** The running pumps of a start's stdout and stderr. */
export interface SessionPumps {
  /**
   * Once the child has exited: a grandchild may hold the pipes open, so the
   * pumps drain for DRAIN_AFTER_EXIT_MS at most, then stop; the raw artifact closes.
   */
  drain(): Promise<void>;
}

/** Starts pumping the stdout and stderr of a start's process into its events. */
export function pumpSessionOutput(
  events: EventLog,
  process: Pick<SpawnedProcess, "stdout" | "stderr">,
  { sessionId, artifactsDir, log, conversation }: SessionOutputOptions,
): SessionPumps {
  const stopPumps = new AbortController();
  const rawSink = openRawArtifact(artifactsDir, sessionId, log);
  const stdout = conversation
    ? new OutputStream((text) => conversation.onStdout(text), {
      streamedPiece: (line) => conversation.streamedPiece(line),
    })
    : new OutputStream();
  const pumps = Promise.all([
    pumpOutput(events, process.stdout, {
      sessionId,
      name: "stdout",
      rawSink,
      stop: stopPumps.signal,
      output: stdout,
    }),
    pumpOutput(events, process.stderr, {
      sessionId,
      name: "stderr",
      rawSink,
      stop: stopPumps.signal,
      output: new OutputStream(),
    }),
  ]);
  return {
    drain: async () => {
      const drainTimer = setTimeout(() => stopPumps.abort(), DRAIN_AFTER_EXIT_MS);
      await pumps;
      clearTimeout(drainTimer);
      rawSink?.close();
    },
  };
}
