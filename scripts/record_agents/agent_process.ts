/**
 * One agent CLI driven over stdin/stdout lines, with everything that crosses
 * recorded as a transcript. Stdout is read as it comes so waits can match any
 * line; stderr is drained (an undrained pipe blocks the child) and kept only
 * for error messages.
 */

/** One transcript entry: an exact line written to stdin or read from stdout. */
export interface TranscriptLine {
  dir: "in" | "out";
  line: string;
}

/** A stdout line, parsed when it is a JSON object (else `json` is empty). */
export interface Message {
  /** Position among the received lines. */
  seq: number;
  line: string;
  json: Record<string, unknown>;
}

/** Options of `AgentProcess.waitFor`. */
export interface WaitOptions {
  /** The first `seq` to consider (earlier lines are skipped). */
  from?: number;
  timeoutMs: number;
  /** What is awaited, for the error messages. */
  what: string;
}

/** How long output may keep coming after the exit (a helper can hold the pipes open). */
const DRAIN_MS = 2_000;

const encoder = new TextEncoder();

/** A running CLI; disposing it kills its process group and stops reading. */
export class AgentProcess implements AsyncDisposable {
  readonly transcript: TranscriptLine[] = [];
  readonly #messages: Message[] = [];
  readonly #waiters = new Set<() => void>();
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stdout: ReadableStreamDefaultReader<string>;
  readonly #stderr: ReadableStreamDefaultReader<string>;
  readonly #reading: Promise<void>;
  #stderrTail = "";
  /** Stdout reached its end: no more lines will come. */
  #ended = false;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#stdin = child.stdin.getWriter();
    this.#stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    this.#stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    this.#reading = Promise.all([this.#readStdout(), this.#readStderr()]).then(() => {
      this.#ended = true;
      this.#wakeWaiters();
    });
  }

  /**
   * Starts `bin` in its own process group (so its helpers can be killed with
   * it) with exactly `env`: nothing of the caller's environment leaks in.
   */
  static spawn(
    bin: string,
    args: string[],
    options: { cwd: string; env: Record<string, string> },
  ): AgentProcess {
    return new AgentProcess(
      new Deno.Command(bin, {
        args,
        cwd: options.cwd,
        env: options.env,
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        detached: true,
      }).spawn(),
    );
  }

  /** How many stdout lines arrived so far: the `from` for lines still to come. */
  get received(): number {
    return this.#messages.length;
  }

  /** Writes one JSON line to stdin and records it. */
  async send(message: Record<string, unknown>): Promise<void> {
    const line = JSON.stringify(message);
    this.transcript.push({ dir: "in", line });
    await this.#stdin.write(encoder.encode(line + "\n"));
  }

  /** The first stdout line from `options.from` on that `matches`; rejects on timeout or EOF. */
  waitFor(matches: (message: Message) => boolean, options: WaitOptions): Promise<Message> {
    const { promise, resolve, reject } = Promise.withResolvers<Message>();
    let next = options.from ?? 0;
    const settle = (action: () => void) => {
      clearTimeout(timer);
      this.#waiters.delete(check);
      action();
    };
    const check = () => {
      for (; next < this.#messages.length; next++) {
        const message = this.#messages[next];
        if (matches(message)) return settle(() => resolve(message));
      }
      if (this.#ended) {
        settle(() =>
          reject(new Error(`The agent ended its output before ${options.what}${this.#tail()}`))
        );
      }
    };
    const timer = setTimeout(() => {
      settle(() =>
        reject(new Error(`No ${options.what} after ${options.timeoutMs} ms${this.#tail()}`))
      );
    }, options.timeoutMs);
    this.#waiters.add(check);
    check();
    return promise;
  }

  /** Closes stdin and records until the exit; kills the process group after `timeoutMs`. */
  async closeAndWait(timeoutMs: number): Promise<Deno.CommandStatus> {
    await this.#stdin.close().catch(() => {});
    const killer = setTimeout(() => this.#killGroup(), timeoutMs);
    try {
      return await this.#child.status;
    } finally {
      clearTimeout(killer);
      let drainer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#reading,
        new Promise((resolve) => drainer = setTimeout(resolve, DRAIN_MS)),
      ]);
      clearTimeout(drainer);
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#killGroup();
    await this.#child.status;
    await Promise.all([this.#stdout.cancel(), this.#stderr.cancel()]);
    await this.#reading;
    await this.#stdin.close().catch(() => {});
  }

  #killGroup(): void {
    try {
      Deno.kill(-this.#child.pid, "SIGKILL");
    } catch { /* the group is already gone */ }
  }

  #wakeWaiters(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  async #readStdout(): Promise<void> {
    let pending = "";
    while (true) {
      const { value, done } = await this.#stdout.read();
      if (done) break;
      pending += value;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) this.#receive(line);
    }
    this.#receive(pending);
  }

  #receive(line: string): void {
    if (line.trim() === "") return;
    this.transcript.push({ dir: "out", line });
    this.#messages.push({ seq: this.#messages.length, line, json: parseObject(line) });
    this.#wakeWaiters();
  }

  async #readStderr(): Promise<void> {
    while (true) {
      const { value, done } = await this.#stderr.read();
      if (done) break;
      this.#stderrTail = (this.#stderrTail + value).slice(-4000);
    }
  }

  #tail(): string {
    const tail = this.#stderrTail.trim().split("\n").slice(-5).join("\n");
    return tail ? `; stderr ends with:\n${tail}` : "";
  }
}

function parseObject(line: string): Record<string, unknown> {
  try {
    const value = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
