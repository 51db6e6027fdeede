/**
 * The conversation loop of `svc chat` and `svc attach` (D16, D17): follows a
 * session's log and prints it as a transcript, while what the user types
 * becomes the next turn, an interrupt, a close or a detach. The terminal is
 * an interface (chat_terminal.ts is the real one), so the loop holds no
 * terminal details.
 */
import type { RuleScope } from "../policy/approval_rules.ts";
import type { SvcClient } from "../client/client.ts";
import type { EventRecord } from "../store/events_store.ts";
import type { SessionRecord } from "../store/sessions_store.ts";
import { EXIT } from "./command.ts";
import { pollLog } from "./events.ts";
import { describeError } from "./output.ts";
import { PermissionPrompt } from "./permission_prompt.ts";
import { createTranscript, type TranscriptPiece } from "./transcript.ts";

/** What the user did: typed a line, ended input (EOF, Ctrl-D), or pressed Ctrl-C. */
export type ChatInput = { type: "line"; text: string } | { type: "eof" } | { type: "interrupt" };

/** Where a conversation is shown and typed. */
export interface ChatTerminal {
  /** Whether a person types at a prompt (stdin and stdout are terminals). */
  readonly interactive: boolean;
  /** Whether transcript lines may be coloured. */
  readonly color: boolean;
  /**
   * The next input; null once `signal` is aborted. With `interruptsOnly`,
   * the next interrupt: lines and the end stay queued, in order.
   */
  next(signal?: AbortSignal, options?: { interruptsOnly?: boolean }): Promise<ChatInput | null>;
  /** Transcript pieces on stdout (above the prompt on a terminal). */
  print(pieces: TranscriptPiece[]): void;
  /** A message of svc itself, not the session's, terminal-safe: stderr, or above the prompt. */
  notice(text: string): void;
  /**
   * Puts a permission request's question (null: none any more). A terminal
   * shows it as the prompt and takes a single y, n or a on an empty line as
   * the line `/allow`, `/deny` or `/always`; plain output prints it as a notice.
   */
  ask(question: string | null): void;
  /** Restores the terminal and stops reading input. */
  close(): void;
}

/** What a typed line asks for. */
export type ChatLine =
  | { type: "none" }
  | { type: "send"; text: string }
  | { type: "close" }
  | { type: "quit" }
  | { type: "interrupt" }
  | { type: "help" }
  | { type: "answer"; decision: "allow" | "deny"; remember: boolean; scope?: RuleScope }
  | { type: "unknown"; command: string };

/** Piped lines of these kinds wait for the turn gate; commands act at once. */
const HELD_LINES = new Set<ChatLine["type"]>(["send", "answer"]);

/** Two Ctrl-C within this many milliseconds detach. */
export const DOUBLE_INTERRUPT_MS = 2000;

/** The chat commands, as `/help` prints them. */
export const CHAT_HELP = [
  "/close      end the session once the agent is idle, then exit",
  "/quit       detach: exit, the session keeps running",
  "/interrupt  cancel the current turn (Ctrl-C; twice within 2 s detaches)",
  "/help       this list; start a line with // to send a leading /",
  "y / n / a   while a permission request waits: allow, deny, allow always (asks where:",
  "            s this session, p this project, e everywhere; they also answer directly)",
].join("\n");

const COMMANDS: Record<string, ChatLine> = {
  "/close": { type: "close" },
  "/quit": { type: "quit" },
  "/interrupt": { type: "interrupt" },
  "/help": { type: "help" },
  "/allow": { type: "answer", decision: "allow", remember: false },
  "/deny": { type: "answer", decision: "deny", remember: false },
  "/always": { type: "answer", decision: "allow", remember: true },
  "/always-session": { type: "answer", decision: "allow", remember: true, scope: "session" },
  "/always-project": { type: "answer", decision: "allow", remember: true, scope: "project" },
  "/always-everywhere": { type: "answer", decision: "allow", remember: true, scope: "everywhere" },
};

/** While a permission request waits, these lines answer it (D18). */
const ANSWERS: Record<string, ChatLine> = {
  y: COMMANDS["/allow"],
  n: COMMANDS["/deny"],
  a: COMMANDS["/always"],
  s: COMMANDS["/always-session"],
  p: COMMANDS["/always-project"],
  e: COMMANDS["/always-everywhere"],
};

/**
 * What a typed line means: a blank line nothing, `/close` `/quit`
 * `/interrupt` `/help` `/allow` `/deny` `/always` their command, another
 * `/word` an unknown command (a typo is never sent to the agent), `//text`
 * the text `/text`, anything else the next turn as typed. While a permission
 * request is `asked`, `y`, `n` and `a` answer it.
 */
export function parseChatLine(line: string, { asked = false }: { asked?: boolean } = {}): ChatLine {
  const trimmed = line.trim();
  if (trimmed === "") return { type: "none" };
  if (asked && Object.hasOwn(ANSWERS, trimmed.toLowerCase())) return ANSWERS[trimmed.toLowerCase()];
  if (Object.hasOwn(COMMANDS, trimmed)) return COMMANDS[trimmed];
  if (trimmed.startsWith("//")) return { type: "send", text: line.replace("/", "") };
  const command = trimmed.match(/^\/[A-Za-z][\w-]*(?=\s|$)/);
  if (command) return { type: "unknown", command: command[0] };
  return { type: "send", text: line };
}

/** Options of a conversation loop. */
export interface ConverseOptions {
  /** Print the log after this seq (0: the transcript so far). */
  afterSeq?: number;
  /** The `--home` given, repeated in the re-attach hint. */
  home?: string;
  /** Milliseconds since the epoch, for the double Ctrl-C (tests pass a fake). */
  now?: () => number;
}

/**
 * Runs the conversation of `session` until it ends (exit 0 when it
 * completed, 1 otherwise) or the user detaches (exit 0).
 */
export async function converse(
  client: SvcClient,
  session: SessionRecord,
  terminal: ChatTerminal,
  options: ConverseOptions = {},
): Promise<number> {
  const transcript = createTranscript({ protocol: session.protocol, color: terminal.color });
  const controller = new AbortController();
  const { signal } = controller;
  const afterSeq = options.afterSeq ?? 0;
  const permissions = new PermissionPrompt(client, terminal, { session, afterSeq });
  const turns = new TurnGate(session, permissions);
  const following = pollLog(client, session.id, {
    afterSeq,
    signal,
    onEvent: (event) => {
      terminal.print(transcript.render(event));
      permissions.observe(event);
      turns.observe(event);
    },
    onLive: (event) => terminal.print(transcript.render(event)),
  }).then((end) => ({ end }));
  const typing = typeTurns(client, session, terminal, {
    signal,
    now: options.now ?? Date.now,
    permissions,
    // Piped turns and answers go one at a time, when they can mean what they say.
    turns: terminal.interactive || session.protocol === "raw" ? null : turns,
  }).then((detached) => ({ detached }));
  try {
    const first = await Promise.race([following, typing]);
    if ("detached" in first) {
      const home = options.home === undefined ? "" : ` --home ${options.home}`;
      terminal.notice(
        `Detached: session ${session.id} keeps running. Re-attach: svc attach ${session.id}${home}`,
      );
      return EXIT.ok;
    }
    if ("refused" in first.end) {
      terminal.notice(describeError(first.end.refused));
      return EXIT.refused;
    }
    const status = first.end.ended
      ? JSON.parse(first.end.ended.payload_json).status
      : (await client.get<SessionRecord>(sessionPath(session.id))).body.status;
    return status === "completed" ? EXIT.ok : EXIT.refused;
  } catch (error) {
    if (error instanceof Deno.errors.BrokenPipe) return EXIT.ok;
    throw error;
  } finally {
    controller.abort();
    following.catch(() => {});
    typing.catch(() => {});
  }
}

/**
 * Turns what the user types into requests until they detach (true) or
 * `signal` aborts (false).
 */
async function typeTurns(
  client: SvcClient,
  session: SessionRecord,
  terminal: ChatTerminal,
  { signal, now, permissions, turns }: {
    signal: AbortSignal;
    now: () => number;
    permissions: PermissionPrompt;
    /** Given (plain input): a turn or answer line waits until `turns` opens; null: none waits. */
    turns: TurnGate | null;
  },
): Promise<boolean> {
  const path = sessionPath(session.id);
  const post = (route: string, body: unknown) =>
    client.request<{ queued?: boolean }>("POST", `${path}/${route}`, body, { signal });
  let closing = false;
  let lastInterruptAt = -Infinity;
  const close = async (announce: boolean) => {
    const response = await post("close", {});
    if (response.ok) {
      if (announce && !closing) {
        terminal.notice("Closing: the session ends once the agent is idle (Ctrl-C interrupts)");
      }
    } else if (announce) {
      terminal.notice(describeError(response.body));
    }
    closing = true;
  };
  const interrupt = async () => {
    const response = await post("interrupt", {});
    if (!response.ok) terminal.notice(describeError(response.body));
  };
  /** Ctrl-C: interrupts the turn, or detaches (true) when it is the second within 2 s. */
  const onInterrupt = async (): Promise<boolean> => {
    const at = now();
    if (at - lastInterruptAt <= DOUBLE_INTERRUPT_MS) return true;
    lastInterruptAt = at;
    terminal.notice(
      `Interrupting the turn (Ctrl-C again within ${DOUBLE_INTERRUPT_MS / 1000} s detaches)`,
    );
    await interrupt();
    return false;
  };
  /**
   * Holds a piped turn or answer until `turns` opens, while Ctrl-C still
   * interrupts the turn that holds it. Resolves "detach" after a double
   * Ctrl-C, "aborted" when `signal` aborts, else "open".
   */
  const awaitTurnsOpen = async (gate: TurnGate): Promise<"open" | "detach" | "aborted"> => {
    while (!gate.open) {
      const waiting = new AbortController();
      const either = AbortSignal.any([signal, waiting.signal]);
      const interrupted = terminal.next(either, { interruptsOnly: true });
      const first = await Promise.race([gate.ready(either).then(() => null), interrupted]);
      waiting.abort();
      if (signal.aborted) return "aborted";
      // An interrupt that came with the opening is not lost: `interrupted` then holds it.
      if ((first ?? await interrupted) !== null && await onInterrupt()) return "detach";
    }
    return "open";
  };
  for (;;) {
    const input = await terminal.next(signal);
    if (input === null) return false;
    if (input.type === "eof") {
      // End of input: nothing more will be typed, so the conversation ends.
      if (!closing) await close(false);
      continue;
    }
    if (input.type === "interrupt") {
      if (await onInterrupt()) return true;
      continue;
    }
    // After /close no turn is taken: one typed then is refused at once, not held.
    const held = turns !== null && !closing &&
      HELD_LINES.has(parseChatLine(input.text, { asked: true }).type);
    if (held) {
      const waited = await awaitTurnsOpen(turns!);
      if (waited !== "open") return waited === "detach";
    }
    const line = parseChatLine(input.text, { asked: permissions.asking });
    switch (line.type) {
      case "none":
        break;
      case "quit":
        return true;
      case "close":
        await close(true);
        break;
      case "interrupt":
        await interrupt();
        break;
      case "help":
        terminal.notice(CHAT_HELP);
        break;
      case "answer":
        await permissions.answer(line, signal);
        break;
      case "unknown":
        terminal.notice(`Unknown command "${line.command}" (/help lists them)`);
        break;
      case "send": {
        const data = session.protocol === "raw" ? line.text + "\n" : line.text;
        const response = await post("input", { data });
        if (!response.ok) terminal.notice(describeError(response.body));
        else turns?.sent();
        if (response.ok && response.body.queued) {
          terminal.notice("Queued: sent when the agent has finished its turn");
        }
        break;
      }
    }
  }
}

/**
 * Whether a piped turn or answer may go now (issue 27 item 3): only once
 * every turn sent has ended, or while a permission request is asked, so that
 * a `y` meant for a question is never sent as a turn before the question exists.
 * Turns are counted from the log: the one in progress when the conversation
 * began, plus each line sent, minus each `agent.turn` recorded since.
 */
export class TurnGate {
  readonly #permissions: Pick<PermissionPrompt, "asking">;
  readonly #historyUntil: number;
  #pending: number;
  #waiters: Array<() => void> = [];

  constructor(
    session: Pick<SessionRecord, "activity" | "last_seq">,
    permissions: Pick<PermissionPrompt, "asking">,
  ) {
    this.#permissions = permissions;
    this.#historyUntil = session.last_seq;
    this.#pending = session.activity === "starting" || session.activity === "working" ||
        session.activity === "waiting_approval"
      ? 1
      : 0;
  }

  /** Whether a line may be read now. */
  get open(): boolean {
    return this.#pending <= 0 || this.#permissions.asking;
  }

  /** A line was accepted as a turn (sent, or queued behind the current one). */
  sent(): void {
    this.#pending++;
  }

  /** Takes note of one event of the log (after the permission prompt has). */
  observe(event: Pick<EventRecord, "seq" | "kind">): void {
    if (event.kind === "agent.turn" && event.seq > this.#historyUntil) this.#pending--;
    if (!this.open) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves true once open; false when `signal` aborts first (the session ended, a detach). */
  ready(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.open) return Promise.resolve(true);
    return new Promise((resolve) => {
      const abort = () => {
        this.#waiters = this.#waiters.filter((waiter) => waiter !== wake);
        resolve(false);
      };
      const wake = () => {
        signal.removeEventListener("abort", abort);
        resolve(true);
      };
      signal.addEventListener("abort", abort, { once: true });
      this.#waiters.push(wake);
    });
  }
}

function sessionPath(sessionId: string): string {
  return `/sessions/${encodeURIComponent(sessionId)}`;
}
