import type {
  ExitStatus,
  SpawnedProcess,
  Spawner,
  SpawnRequest,
} from "../../src/sessions/spawner.ts";

/** A process of the fake spawner, driven by the test. */
export class FakeProcess implements SpawnedProcess {
  static #nextPid = 900_000;
  readonly pid = FakeProcess.#nextPid++;
  readonly pgid = this.pid;
  readonly request: SpawnRequest;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly stdin: WritableStream<Uint8Array>;
  readonly status: Promise<ExitStatus>;
  readonly signals: Deno.Signal[] = [];
  stdinText = "";
  #out!: ReadableByteStreamController;
  #err!: ReadableByteStreamController;
  #exit!: (status: ExitStatus) => void;
  #exited = false;

  constructor(request: SpawnRequest) {
    this.request = request;
    // Byte streams, as a real child's pipes: the supervisor reads them into its own buffer.
    this.stdout = new ReadableStream({ type: "bytes", start: (c) => void (this.#out = c) });
    this.stderr = new ReadableStream({ type: "bytes", start: (c) => void (this.#err = c) });
    this.stdin = new WritableStream({
      write: (chunk) => void (this.stdinText += new TextDecoder().decode(chunk)),
    });
    this.status = new Promise((resolve) => this.#exit = resolve);
  }

  /** Writes text on stdout or stderr. */
  write(text: string, stream: "stdout" | "stderr" = "stdout"): void {
    if (text === "") return; // A byte stream refuses empty chunks; a pipe never delivers one.
    (stream === "stdout" ? this.#out : this.#err).enqueue(new TextEncoder().encode(text));
  }

  /** Ends the process with `code` (or by `signal`). */
  exit(code: number, signal: string | null = null): void {
    if (this.#exited) return;
    this.#exited = true;
    for (const pipe of [this.#out, this.#err]) {
      pipe.close();
      pipe.byobRequest?.respond(0); // A reader waiting with its buffer learns of the end (EOF).
    }
    this.#exit({ code, signal });
  }

  get exited(): boolean {
    return this.#exited;
  }

  killGroup(signal: Deno.Signal): void {
    this.signals.push(signal);
    this.exit(signal === "SIGKILL" ? 137 : 143, signal);
  }
}

/** A spawner whose processes the test drives; `failWith` makes the next spawn throw. */
export class FakeSpawner implements Spawner {
  readonly processes: FakeProcess[] = [];
  failWith: Error | null = null;

  spawn(request: SpawnRequest): SpawnedProcess {
    if (this.failWith) {
      const error = this.failWith;
      this.failWith = null;
      throw error;
    }
    const process = new FakeProcess(request);
    this.processes.push(process);
    return process;
  }

  /** The `count`-th process spawned, waiting for it. */
  async next(count: number): Promise<FakeProcess> {
    for (let i = 0; i < 1000 && this.processes.length < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    if (this.processes.length < count) throw new Error("No process was spawned");
    return this.processes[count - 1];
  }
}
