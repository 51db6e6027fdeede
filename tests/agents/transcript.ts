/**
 * Replays a transcript recorded from a real agent CLI
 * (`tests/fixtures/agents/<harness>/<scenario>.jsonl`, written by
 * `scripts/record_agent_transcripts.ts`) through a protocol adapter: every
 * "out" line goes to `onLine`, and every "in" line the recorder wrote as an
 * intent (a user turn, an interrupt, a permission answer) becomes the same
 * intent on the adapter. Handshake lines are left to the adapter itself.
 */
import { fileURLToPath } from "node:url";
import type {
  AdapterFactory,
  AdapterStep,
  PermissionAnswer,
  ProtocolAdapter,
} from "../../src/agents/protocol.ts";

/** One recorded line: `out` from the agent's stdout, `in` what the recorder wrote to its stdin. */
export interface TranscriptLine {
  dir: "in" | "out";
  line: string;
}

/** What a replay produced. */
export interface Replay {
  /** Every step the adapter reported, in order. */
  steps: AdapterStep[];
  /** Every line the adapter wrote (start, write steps, intents), in order. */
  written: string[];
  /** The "in" lines of the recording, in order. */
  recorded: string[];
  /** The agent's lines that the adapter calls streamed pieces (not stored, issue 33). */
  streamedPieces: string[];
}

type Json = Record<string, unknown>;

/** Loads `tests/fixtures/agents/<harness>/<scenario>.jsonl`. */
export async function loadTranscript(harness: string, scenario: string): Promise<TranscriptLine[]> {
  const url = new URL(`../fixtures/agents/${harness}/${scenario}.jsonl`, import.meta.url);
  const text = await Deno.readTextFile(fileURLToPath(url));
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => {
    const entry = JSON.parse(line) as TranscriptLine;
    if ((entry.dir !== "in" && entry.dir !== "out") || typeof entry.line !== "string") {
      throw new Error(`Malformed transcript line in ${harness}/${scenario}: ${line}`);
    }
    return entry;
  });
}

/** The cwd the recorder started the session in (`thread/start` or `session/new`). */
export function recordedCwd(lines: TranscriptLine[]): string {
  for (const { dir, line } of lines) {
    const message = JSON.parse(line) as Json;
    const params = message.params as Json | undefined;
    if (dir === "in" && typeof params?.cwd === "string") return params.cwd;
  }
  throw new Error("The transcript never sends a cwd");
}

/** Feeds a transcript to a fresh adapter from `factory`. */
export function replayTranscript(
  lines: TranscriptLine[],
  factory: AdapterFactory,
  options: { model?: string | null } = {},
): Replay {
  const adapter = factory({ cwd: recordedCwd(lines), model: options.model ?? null });
  const steps: AdapterStep[] = [];
  const written: string[] = [...adapter.start()];
  const recorded: string[] = [];
  const streamedPieces: string[] = [];
  for (const { dir, line } of lines) {
    if (dir === "out") {
      const lineSteps = adapter.onLine(line);
      for (const step of lineSteps) {
        steps.push(step);
        if (step.type === "write") written.push(step.line);
      }
      checkStreamedPiece(adapter, line, lineSteps);
      if (adapter.streamedPiece(line)) streamedPieces.push(line);
      continue;
    }
    recorded.push(line);
    const message = JSON.parse(line) as Json;
    const params = (message.params ?? {}) as Json;
    switch (message.method) {
      case "turn/start":
        written.push(...adapter.sendTurn(firstText(params.input)));
        break;
      case "session/prompt":
        written.push(...adapter.sendTurn(firstText(params.prompt)));
        break;
      case "turn/interrupt":
      case "session/cancel":
        written.push(...adapter.interrupt());
        break;
      case undefined:
        if ("result" in message) {
          const requestId = String(message.id);
          written.push(...adapter.answerPermission(requestId, answerOf(message, steps, requestId)));
        }
        break;
    }
  }
  return { steps, written, recorded, streamedPieces };
}

/** A line that streams text is a streamed piece, so it is not stored as `output` either. */
function checkStreamedPiece(adapter: ProtocolAdapter, line: string, steps: AdapterStep[]): void {
  if (steps.some((step) => step.type === "delta") && !adapter.streamedPiece(line)) {
    throw new Error(`A line that yields a delta is not a streamed piece: ${line}`);
  }
}

/** Steps of one type, typed. */
export function stepsOf<T extends AdapterStep["type"]>(
  steps: AdapterStep[],
  type: T,
): Extract<AdapterStep, { type: T }>[] {
  return steps.filter((step): step is Extract<AdapterStep, { type: T }> => step.type === type);
}

/**
 * Lines as `{ id, method, params | result }` for comparing what the adapter
 * wrote with what the recorder wrote; `initialize` params are left out (the
 * client names differ).
 */
export function requestShapes(lines: string[]): Json[] {
  return lines.map((line) => {
    const message = JSON.parse(line) as Json;
    const shape: Json = { ...message };
    if (message.method === "initialize") delete shape.params;
    return shape;
  });
}

function firstText(blocks: unknown): string {
  const first = Array.isArray(blocks) ? blocks[0] as Json | undefined : undefined;
  return typeof first?.text === "string" ? first.text : "";
}

/** The decision the recorder answered with: codex `{decision}` or ACP `{outcome}`. */
function answerOf(message: Json, steps: AdapterStep[], requestId: string): PermissionAnswer {
  const result = message.result as Json;
  if (typeof result.decision === "string") {
    const allow = result.decision.startsWith("accept");
    return {
      decision: allow ? "allow" : "deny",
      remember: result.decision === "acceptForSession",
      message: null,
    };
  }
  const outcome = result.outcome as Json;
  const request = stepsOf(steps, "permission").find((step) => step.requestId === requestId);
  const option = request?.options.find((candidate) => candidate.id === outcome.optionId);
  const allow = option?.kind.startsWith("allow") ?? false;
  return {
    decision: allow ? "allow" : "deny",
    remember: option?.kind === "allow_always",
    message: null,
  };
}
