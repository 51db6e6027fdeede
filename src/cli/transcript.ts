/**
 * A session's log as a conversation to read (D17): event records in, lines
 * of text out. Pure: no I/O and no clock; the caller prints the pieces.
 *
 * Protocol sessions show their typed events (messages, tool calls, turns);
 * their `output` and `input` events are the vendor's JSON lines and stay
 * hidden. Raw sessions show their output as the session wrote it.
 *
 * Every string of a payload is made terminal-safe (terminal_text.ts) before
 * any renderer reads it, so no field can reach the terminal as a control;
 * a raw session's output is the one thing passed through as written.
 */
import type { EventRecord } from "../store/events_store.ts";
import { bold, cyan, dim, green, red, yellow } from "./color.ts";
import { oneLine } from "./output.ts";
import { terminalSafe } from "./terminal_text.ts";

/**
 * One piece of a transcript: a whole line (no newline), raw output of a raw
 * session, or partial text of a message being written (D29), terminal-safe,
 * to print as it is: it ends its line with a newline of its own.
 */
export type TranscriptPiece =
  | { type: "line"; text: string }
  | { type: "output"; stream: "stdout" | "stderr"; data: string }
  | { type: "partial"; text: string };

/** How to render: the session's protocol (`raw` or an agent protocol) and whether to colour. */
export interface TranscriptOptions {
  protocol: string;
  color: boolean;
}

/**
 * Renders a session's events in order; it remembers tool calls to name their
 * results, and the partial text shown live so the final message is not
 * printed twice. Live-only events (`agent.message.delta`) go through it too.
 */
export interface Transcript {
  render(event: Pick<EventRecord, "kind" | "payload_json">): TranscriptPiece[];
}

/** The label of the user's messages. */
export const YOU = "you › ";
/** The label of the agent's messages. */
export const AGENT = "agent › ";
/** Tool input and output are cut to this many characters on their line. */
const MAX_DETAIL_CHARS = 100;

type Payload = Record<string, unknown>;
type Paint = (text: string) => string;

/** A transcript renderer for one session. */
export function createTranscript(options: TranscriptOptions): Transcript {
  const paint = (style: Paint): Paint => options.color ? style : (text) => text;
  const style = {
    you: paint((text) => bold(cyan(text))),
    agent: paint((text) => bold(green(text))),
    dim: paint(dim),
    ok: paint(green),
    warn: paint(yellow),
    bad: paint(red),
  };
  const raw = options.protocol === "raw";
  /** Started tool calls by id: a later record of the call may carry no name or input. */
  const tools = new Map<string, { name: string; input: string | null }>();
  /** The assistant's last message in the current turn, so a turn's result is not shown twice. */
  let lastAssistantText: string | null = null;
  /**
   * The text streamed (D29) of the message being written, and whether its
   * line is still open (the last thing printed); null when none is.
   */
  let streamed: { text: string; open: boolean } | null = null;
  const agentIndent = " ".repeat(AGENT.length);
  const partial = (text: string): TranscriptPiece => ({ type: "partial", text });
  const indented = (text: string) => text.replaceAll("\n", "\n" + agentIndent);
  /** The open partial line ends before anything else is printed. */
  const endPartialLine = (): TranscriptPiece[] => {
    if (streamed === null || !streamed.open) return [];
    streamed.open = false;
    return [partial("\n")];
  };
  /** The final assistant message after its deltas: only what was not shown yet. */
  const finishStreamed = (text: string): TranscriptPiece[] => {
    const shown = streamed!;
    streamed = null;
    if (text.trimEnd() === shown.text.trimEnd()) return shown.open ? [partial("\n")] : [];
    if (text.startsWith(shown.text)) {
      const rest = indented(text.slice(shown.text.length).trimEnd());
      return [partial((shown.open ? "" : agentIndent) + rest + "\n")];
    }
    // Pieces were missed (a reconnect, a slow reader): the whole message, as usual.
    return [...(shown.open ? [partial("\n")] : []), ...message(AGENT, style.agent, text)];
  };

  const line = (text: string): TranscriptPiece => ({ type: "line", text });
  const note = (text: string): TranscriptPiece[] => [line(style.dim(`· ${text}`))];
  const message = (label: string, paintLabel: Paint, text: string): TranscriptPiece[] => {
    const lines = text.trimEnd().split("\n");
    if (lines.length === 1 && lines[0] === "") return [];
    const indent = " ".repeat(label.length);
    return lines.map((text, i) => line(i === 0 ? paintLabel(label) + text : indent + text));
  };

  const renderers: Record<string, (payload: Payload) => TranscriptPiece[]> = {
    "session.started": (p) =>
      note(joinParts(["session started", str(p.harness), num(p.pid) !== null && `pid ${p.pid}`])),
    "run.linked": (p) => note(`run ${str(p.runId) ?? "?"} of routine ${str(p.routineId) ?? "?"}`),
    "session.ended": (p) => {
      const status = str(p.status) ?? "ended";
      const exitCode = num(p.exitCode);
      const signal = exitCode === null ? null : SIGNAL_EXITS[exitCode];
      const text = joinParts([
        `session ${status}`,
        exitCode !== null && `exit ${exitCode}${signal ? ` (${signal})` : ""}`,
        str(p.signal),
        str(p.error) && oneLine(p.error as string),
      ]);
      // A kill is asked for (K, svc stop, svc sessions kill): an end, not a failure.
      const asked = status === "completed" || status === "killed";
      return [line(asked ? style.dim(`· ${text}`) : style.bad(`! ${text}`))];
    },
    "session.adopted": (p) =>
      note(joinParts([
        "session adopted",
        str(p.harness),
        str(p.agentSessionId) && `agent session ${p.agentSessionId}`,
        p.transcript === "read"
          ? `${num(p.imported) ?? 0} messages imported from its transcript`
          : "its transcript could not be read",
      ])),
    "session.resumed": (p) =>
      note(joinParts([
        "conversation resumed",
        str(p.previousStatus) && `was ${p.previousStatus}`,
        num(p.resumes) !== null && `resume ${p.resumes}`,
        str(p.agentSessionId) && `agent session ${p.agentSessionId}`,
      ])),
    "agent.started": (p) =>
      note(joinParts([
        "agent started",
        str(p.protocol),
        str(p.model) && `model ${p.model}`,
        str(p.agentVersion) && `version ${p.agentVersion}`,
        str(p.agentSessionId) && `session ${p.agentSessionId}`,
      ])),
    "agent.message": (p) => {
      const text = str(p.text) ?? "";
      if (p.role === "user") {
        lastAssistantText = null;
        return message(YOU, style.you, text);
      }
      lastAssistantText = text;
      if (streamed !== null) return finishStreamed(text);
      return message(AGENT, style.agent, text);
    },
    "agent.message.delta": (p) => {
      const text = str(p.text) ?? "";
      if (text === "") return [];
      const shown = streamed ??= { text: "", open: false };
      const head = shown.open ? "" : shown.text === "" ? style.agent(AGENT) : agentIndent;
      shown.open = true;
      shown.text += text;
      return [partial(head + indented(text))];
    },
    "agent.notice": (p) => {
      const text = oneLine(str(p.message) ?? "");
      const attempt = num(p.attempt);
      const max = num(p.maxAttempts);
      const shown = attempt === null
        ? text
        : `retrying (attempt ${attempt}${max === null ? "" : `/${max}`}): ${text}`;
      return [line((p.level === "error" ? style.bad : style.dim)(`… ${shown}`))];
    },
    "agent.tool": (p) => {
      const callId = str(p.callId) ?? "";
      const status = str(p.status) ?? "started";
      const known = tools.get(callId);
      const name = str(p.name) || known?.name || "tool";
      const input = str(p.input) ?? known?.input ?? null;
      const call = `  ⚙ ${name}${input === null ? "" : `: ${toolSummary(input)}`}`;
      if (status === "started") {
        tools.set(callId, { name, input });
        return [line(call)];
      }
      tools.delete(callId);
      const paintStatus = status === "completed"
        ? style.ok
        : status === "declined"
        ? style.warn
        : style.bad;
      const pieces = [line(`${call} … ${paintStatus(status)}`)];
      const output = str(p.output);
      if (output !== null && output.trim() !== "") {
        pieces.push(line(style.dim(`    → ${firstLine(output)}`)));
      }
      return pieces;
    },
    "agent.permission": (p) => {
      const what = str(p.summary) || str(p.tool) || "a tool";
      return [line(`  ${style.warn("?")} ${what} asks permission (request ${str(p.requestId)})`)];
    },
    "agent.permission.resolved": (p) => {
      const allowed = p.decision === "allow";
      const glyph = allowed ? style.ok("✓") : style.bad("✗");
      const device = p.device as { name?: unknown } | undefined;
      const from = typeof device?.name === "string" ? ` via device ${device.name}` : "";
      const by = (str(p.by) ?? "?") + from;
      return [
        line(`  ${glyph} request ${str(p.requestId)} ${allowed ? "allowed" : "denied"} (${by})`),
      ];
    },
    "agent.turn": (p) => {
      const pieces: TranscriptPiece[] = [];
      const result = str(p.result);
      if (result !== null && result.trim() !== "" && result.trim() !== lastAssistantText?.trim()) {
        pieces.push(...message(AGENT, style.agent, result));
      }
      lastAssistantText = null;
      const status = str(p.status) ?? "ended";
      const glyph = status === "completed"
        ? style.ok("✓")
        : status === "interrupted"
        ? style.warn("⊘")
        : style.bad("✗");
      const reason = str(p.reason);
      const head = `turn ${num(p.turn) ?? "?"} ${status}` +
        (reason !== null && reason !== status ? ` (${reason})` : "");
      const usage = formatUsage(p.usage);
      const durationMs = num(p.durationMs);
      const tail = joinParts([durationMs !== null && formatDuration(durationMs), usage]);
      pieces.push(line(`  ${glyph} ${head}${tail === "" ? "" : style.dim(` · ${tail}`)}`));
      return pieces;
    },
    "agent.error": (p) => [line(style.bad(`! ${oneLine(str(p.message) ?? "error")}`))],
    input: (p) => raw ? message(YOU, style.you, str(p.data) ?? "") : [],
  };

  const renderPieces = (event: Pick<EventRecord, "kind" | "payload_json">) => {
    const payload = parsePayload(event.payload_json);
    if (event.kind === "output") return raw ? rawOutput(payload) : [];
    const renderer = Object.hasOwn(renderers, event.kind) ? renderers[event.kind] : undefined;
    if (renderer) return renderer(safePayload(payload));
    return note(terminalSafe(`${event.kind} ${event.payload_json}`));
  };
  return {
    render(event) {
      const assistantMessage = event.kind === "agent.message" &&
        parsePayload(event.payload_json).role !== "user";
      const live = event.kind === "agent.message.delta" || assistantMessage;
      if (event.kind === "agent.turn" || (event.kind === "agent.message" && !assistantMessage)) {
        const ending = endPartialLine();
        streamed = null; // A message streamed but never recorded is not waited for any more.
        return [...ending, ...renderPieces(event)];
      }
      const pieces = renderPieces(event);
      if (live || pieces.length === 0) return pieces;
      return [...endPartialLine(), ...pieces];
    },
  };
}

/** The signal a shell-style exit code (128 + n) names: a stop's SIGTERM is not an error code. */
const SIGNAL_EXITS: Partial<Record<number, string>> = {
  129: "SIGHUP",
  130: "SIGINT",
  137: "SIGKILL",
  143: "SIGTERM",
};

/** A raw session's output, as the session wrote it (D17): the terminal is the session's. */
function rawOutput(payload: Payload): TranscriptPiece[] {
  const data = str(payload.data) ?? "";
  if (data === "") return [];
  return [{ type: "output", stream: payload.stream === "stderr" ? "stderr" : "stdout", data }];
}

/** `value` with every string in it terminal-safe (tabs kept), at any depth. */
function safePayload<T>(value: T): T {
  if (typeof value === "string") return terminalSafe(value, { keepTabs: true }) as T;
  if (Array.isArray(value)) return value.map(safePayload) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, safePayload(item)]),
    ) as T;
  }
  return value;
}

/** `1.2 s` under a minute, else `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * `in 120 (20 cached) / out 40 tokens · $0.0100` from a usage object; a
 * figure the harness did not report is left out (`?` for one of the token
 * pair), and nothing at all yields null.
 */
export function formatUsage(usage: unknown): string | null {
  if (typeof usage !== "object" || usage === null) return null;
  const u = usage as Payload;
  const input = num(u.inputTokens);
  const output = num(u.outputTokens);
  const cached = num(u.cachedInputTokens);
  const cost = num(u.costUsd);
  const parts: string[] = [];
  if (input !== null || output !== null) {
    const cachedText = cached !== null && cached > 0 ? ` (${cached} cached)` : "";
    parts.push(`in ${input ?? "?"}${cachedText} / out ${output ?? "?"} tokens`);
  }
  if (cost !== null) parts.push(`$${cost.toFixed(4)}`);
  return parts.length > 0 ? parts.join(" · ") : null;
}

/**
 * What a tool call does, on one line: the command, path, URL or pattern of a
 * JSON input object, else the input text itself; cut to 100 characters.
 */
export function toolSummary(input: string): string {
  let text = input;
  try {
    const parsed = JSON.parse(input);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      const keys = ["command", "file_path", "path", "url", "pattern", "query", "description"];
      const key = keys.find((key) => typeof parsed[key] === "string" && parsed[key] !== "");
      if (key !== undefined) text = parsed[key];
    }
  } catch {
    // Not JSON: the input is the text (a codex command, a file list).
  }
  // Parsing decodes escapes (`\u001b`): the text is made safe once more.
  return truncate(terminalSafe(oneLine(text)).trim(), MAX_DETAIL_CHARS);
}

/** The first non-empty line of `text`, cut, with how many lines follow. */
function firstLine(text: string): string {
  const lines = text.trim().split("\n");
  const extra = lines.length - 1;
  const more = extra > 0 ? ` (+${extra} line${extra === 1 ? "" : "s"})` : "";
  return truncate(lines[0].trim(), MAX_DETAIL_CHARS) + more;
}

function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max - 1).join("") + "…";
}

/** Parts joined by ` · `, leaving out the missing and empty ones. */
function joinParts(parts: Array<string | null | false>): string {
  return parts.filter((part) => typeof part === "string" && part !== "").join(" · ");
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function parsePayload(payloadJson: string): Payload {
  try {
    const payload = JSON.parse(payloadJson);
    return typeof payload === "object" && payload !== null ? payload : {};
  } catch {
    return {};
  }
}
