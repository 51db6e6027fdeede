/**
 * The real terminal of `svc chat` and `svc attach`: the process's stdin,
 * stdout and SIGINT behind the `ChatTerminal` interface of chat_loop.ts.
 *
 * When stdin and stdout are terminals it puts stdin in cbreak mode (keys
 * arrive one by one, Ctrl-C still signals) and keeps a prompt line at the
 * bottom: transcript lines are printed above it and it is redrawn after
 * them. While a permission request is asked, its question is the prompt
 * and one key (y, n, a) on an empty line answers it. SIGTERM, SIGHUP and
 * SIGQUIT restore the terminal before the process exits (128 + the signal's
 * number); Ctrl-Z (SIGTSTP) restores it before stopping and SIGCONT re-arms
 * cbreak and the prompt (issue 27 item 2). Otherwise it reads
 * stdin line by line and prints plain text: no prompt, no cursor movement,
 * and colour only as `useColor` allows.
 */
import type { ChatInput, ChatTerminal } from "./chat_loop.ts";
import { bold, dim, useColor, yellow } from "./color.ts";
import type { Io } from "./command.ts";
import { LineEditor } from "./line_editor.ts";
import { terminalSafe } from "./terminal_text.ts";

/** What the prompt line starts with. */
export const PROMPT = "› ";

const BRACKETED_PASTE_ON = "\x1b[?2004h";
const BRACKETED_PASTE_OFF = "\x1b[?2004l";
/** Moves to the start of the line and erases to the end of the screen. */
const ERASE_FROM_LINE_START = "\r\x1b[J";
/** While a question is asked, these keys on an empty line answer it: the lines they stand for. */
const ANSWER_KEYS = new Map([
  ["y", "/allow"],
  ["n", "/deny"],
  ["a", "/always"],
  ["s", "/always-session"],
  ["p", "/always-project"],
  ["e", "/always-everywhere"],
]);
/** Signals that end an interactive chat, with the exit code a shell reports for each. */
const EXIT_SIGNALS = [["SIGTERM", 143], ["SIGHUP", 129], ["SIGQUIT", 131]] as const;

/**
 * Inputs in arrival order, handed to whoever waits for the next one. A
 * reader may take interrupts only, leaving lines and the end queued.
 */
export class InputQueue {
  #items: ChatInput[] = [];
  #waiters: Array<{ interruptsOnly: boolean; take: (input: ChatInput) => void }> = [];

  push(input: ChatInput): void {
    const index = this.#waiters.findIndex((w) => !w.interruptsOnly || input.type === "interrupt");
    if (index < 0) {
      this.#items.push(input);
      return;
    }
    const [waiter] = this.#waiters.splice(index, 1);
    waiter.take(input);
  }

  /** The next input (with `interruptsOnly`: the next interrupt); null when `signal` aborts first. */
  next(signal?: AbortSignal, { interruptsOnly = false } = {}): Promise<ChatInput | null> {
    const index = this.#items.findIndex((item) => !interruptsOnly || item.type === "interrupt");
    if (index >= 0) return Promise.resolve(this.#items.splice(index, 1)[0]);
    if (signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = {
        interruptsOnly,
        take: (input: ChatInput) => {
          signal?.removeEventListener("abort", abort);
          resolve(input);
        },
      };
      const abort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(null);
      };
      signal?.addEventListener("abort", abort, { once: true });
      this.#waiters.push(waiter);
    });
  }
}

/**
 * Splits decoded text into lines (LF or CRLF); `flush` returns what is left
 * after the last newline.
 */
export class LineSplitter {
  #rest = "";

  push(text: string): string[] {
    const parts = (this.#rest + text).split("\n");
    this.#rest = parts.pop()!;
    return parts.map((line) => line.endsWith("\r") ? line.slice(0, -1) : line);
  }

  flush(): string | null {
    const rest = this.#rest;
    this.#rest = "";
    return rest === "" ? null : rest;
  }
}

/**
 * How many terminal rows `width` columns of text take on a terminal
 * `columns` wide (at least one; a full last row does not wrap yet).
 */
export function rowsOf(width: number, columns: number): number {
  return Math.max(1, Math.ceil(width / Math.max(1, columns)));
}

/** Columns `text` takes, its colour sequences left out. */
export function visibleWidth(text: string): number {
  // deno-lint-ignore no-control-regex
  return [...text.replace(/\x1b\[[0-9;]*m/g, "")].length;
}

/** The process's terminal as a `ChatTerminal`; call `close()` to restore it. */
export function openTerminal(io: Io): ChatTerminal {
  const interactive = Deno.stdin.isTerminal() && Deno.stdout.isTerminal() &&
    Deno.build.os !== "windows";
  const color = useColor(io, Deno.stdout);
  const queue = new InputQueue();
  const onInterrupt = () => queue.push({ type: "interrupt" });
  Deno.addSignalListener("SIGINT", onInterrupt);

  const editor = new LineEditor();
  let open = true;
  let promptRows = 0;
  /** The permission question asked, shown before the prompt. */
  let question: string | null = null;
  /** Raw output of a raw session ended without a newline. */
  let midLine = false;
  /**
   * On a terminal, the unfinished line of a message being streamed (D29): it
   * is drawn above the prompt and redrawn with it until its newline comes.
   */
  let partialLine = "";
  const columns = () => {
    try {
      return Deno.consoleSize().columns;
    } catch {
      return 80;
    }
  };
  const erasePrompt = () => {
    if (promptRows === 0) return;
    io.write((promptRows > 1 ? `\x1b[${promptRows - 1}A` : "") + ERASE_FROM_LINE_START);
    promptRows = 0;
  };
  const drawPrompt = () => {
    if (!interactive || !open) return;
    if (midLine) io.write("\n");
    midLine = false;
    const text = editor.text().replaceAll("\n", "↵");
    const prompt = question === null ? PROMPT : `${question} ${PROMPT}`;
    const partialRows = partialLine === "" ? 0 : rowsOf(visibleWidth(partialLine), columns());
    if (partialLine !== "") io.write(partialLine + "\n");
    io.write((color ? bold(question === null ? prompt : yellow(prompt)) : prompt) + text);
    promptRows = partialRows + rowsOf([...prompt].length + [...text].length, columns());
  };
  const printLines = (write: () => void) => {
    erasePrompt();
    write();
    drawPrompt();
  };
  /** Cbreak mode and bracketed paste: on open, and again after a stop. */
  const armTerminal = () => {
    Deno.stdin.setRaw(true, { cbreak: true });
    io.write(BRACKETED_PASTE_ON);
  };
  /** The terminal as the shell left it: on close, on a stop, and before a signal ends us. */
  const restoreTerminal = () => {
    erasePrompt();
    io.write(BRACKETED_PASTE_OFF);
    try {
      Deno.stdin.setRaw(false);
    } catch {
      // stdin is gone (SIGHUP): nothing to restore.
    }
  };
  const signalListeners: Array<[Deno.Signal, () => void]> = [];
  if (interactive) {
    for (const [signal, code] of EXIT_SIGNALS) {
      signalListeners.push([signal, () => {
        restoreTerminal();
        Deno.exit(code);
      }]);
    }
    // Handling SIGTSTP replaces the default stop: restore, then stop for real.
    signalListeners.push(["SIGTSTP", () => {
      restoreTerminal();
      Deno.kill(Deno.pid, "SIGSTOP");
    }]);
    signalListeners.push(["SIGCONT", () => {
      if (!open) return;
      armTerminal();
      // A stop through SIGTSTP erased the prompt; `kill -STOP` left it drawn.
      if (promptRows === 0) drawPrompt();
    }]);
    for (const [signal, listener] of signalListeners) Deno.addSignalListener(signal, listener);
  }

  const reader = Deno.stdin.readable.getReader();
  const reading = (async () => {
    const decoder = new TextDecoder();
    if (interactive) {
      armTerminal();
      drawPrompt();
    }
    const splitter = new LineSplitter();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      if (!interactive) {
        for (const line of splitter.push(text)) queue.push({ type: "line", text: line });
        continue;
      }
      const answer = question !== null && editor.text() === ""
        ? ANSWER_KEYS.get(text.toLowerCase())
        : undefined;
      if (answer !== undefined) {
        // Answered: a second key press is typed, never a second answer.
        question = null;
        erasePrompt();
        drawPrompt();
        queue.push({ type: "line", text: answer });
        continue;
      }
      for (const action of editor.feed(text)) {
        if (action.type === "submit") {
          // The line shows up again as "you › …" once the session records it.
          erasePrompt();
          drawPrompt();
          queue.push({ type: "line", text: action.line });
        } else if (action.type === "eof") {
          queue.push({ type: "eof" });
        } else {
          erasePrompt();
          drawPrompt();
        }
      }
    }
    const rest = splitter.flush();
    if (rest !== null) queue.push({ type: "line", text: rest });
    queue.push({ type: "eof" });
  })();
  reading.catch(() => queue.push({ type: "eof" }));

  return {
    interactive,
    color,
    next: (signal, options) => queue.next(signal, options),
    print(pieces) {
      if (pieces.length === 0) return;
      printLines(() => {
        for (const piece of pieces) {
          if (piece.type === "partial") {
            if (!interactive) {
              io.write(piece.text);
              midLine = !piece.text.endsWith("\n");
              continue;
            }
            // Whole lines are printed for good; the unfinished one is redrawn with the prompt.
            const lines = (partialLine + piece.text).split("\n");
            partialLine = lines.pop()!;
            for (const done of lines) io.write((midLine ? "\n" : "") + done + "\n");
            if (lines.length > 0) midLine = false;
            continue;
          }
          if (piece.type === "output") {
            (piece.stream === "stderr" ? io.writeErr : io.write)(piece.data);
            midLine = !piece.data.endsWith("\n");
            continue;
          }
          io.write((midLine ? "\n" : "") + piece.text + "\n");
          midLine = false;
        }
      });
    },
    notice(message) {
      // Notices quote the daemon (errors, ids, harness names): never a control.
      const text = terminalSafe(message, { keepTabs: true });
      if (!interactive) {
        io.err(text);
        return;
      }
      printLines(() => {
        const lines = text.split("\n").map((line) => color ? dim(line) : line);
        io.write((midLine ? "\n" : "") + lines.join("\n") + "\n");
        midLine = false;
      });
    },
    ask(asked) {
      const text = asked === null ? null : terminalSafe(asked);
      if (!interactive) {
        if (text !== null) io.err(text);
        return;
      }
      question = text;
      printLines(() => {});
    },
    close() {
      if (!open) return;
      open = false;
      Deno.removeSignalListener("SIGINT", onInterrupt);
      for (const [signal, listener] of signalListeners) {
        Deno.removeSignalListener(signal, listener);
      }
      if (interactive) {
        // A reply being streamed (D29) keeps its text: end its line before the prompt goes.
        erasePrompt();
        if (partialLine !== "") io.write(partialLine + "\n");
        partialLine = "";
        restoreTerminal();
      }
      reader.cancel().catch(() => {});
    },
  };
}
