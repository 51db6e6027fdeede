/**
 * The processes svc starts besides sessions (harness version probes, git,
 * notification commands), each tracked until it exits so that none outlives
 * the daemon (issue 28 item 15). Sessions have their own stop path in the
 * supervisor.
 */
import { type Clock, settlesWithin } from "../clock.ts";
import { killProcessGroup } from "./spawner.ts";

/**
 * What a stopping daemon does with a process: `kill` it at once (a version
 * probe's answer is of no use any more), or `wait` for it until the stop
 * deadline and kill it then (git finishing a worktree, a notification).
 */
export type AtStop = "kill" | "wait";

/** How one owned process is started and ended. */
export interface OwnedOptions {
  /** The child was spawned `detached` and leads its own process group: kill the group. */
  group: boolean;
  atStop: AtStop;
}

/** Every process started through `spawn` ends with the daemon or by its stop deadline. */
export class OwnedProcesses {
  readonly #live = new Map<Deno.ChildProcess, OwnedOptions>();
  #draining = false;
  #closed = false;

  /**
   * Spawns `command` and tracks it until it exits. Throws `Interrupted` once
   * the daemon stops starting processes of this kind: `kill` ones from
   * `drain`, all from `close`.
   */
  spawn(command: Deno.Command, options: OwnedOptions): Deno.ChildProcess {
    if (this.#closed || (this.#draining && options.atStop === "kill")) {
      throw new Deno.errors.Interrupted("The daemon is stopping: no new process is started");
    }
    const child = command.spawn();
    this.#live.set(child, options);
    child.status.finally(() => this.#live.delete(child)).catch(() => {});
    return child;
  }

  /** How many tracked processes are still running. */
  get size(): number {
    return this.#live.size;
  }

  /** A stop begins: kills the `kill` processes and starts no more of them. */
  drain(): void {
    this.#draining = true;
    for (const [child, options] of this.#live) {
      if (options.atStop === "kill") kill(child, options);
    }
  }

  /**
   * Ends every tracked process: `drain`, then waits up to `deadlineMs` for
   * the `wait` ones (including any started meanwhile), then refuses new ones,
   * kills what is left and waits for it to exit. Resolves true when nothing
   * had to be killed at the deadline.
   */
  async close(clock: Clock, deadlineMs: number): Promise<boolean> {
    this.drain();
    const inTime = await settlesWithin(clock, this.#allExited(), deadlineMs);
    this.#closed = true;
    for (const [child, options] of this.#live) kill(child, options);
    await this.#allExited();
    return inTime;
  }

  async #allExited(): Promise<void> {
    while (this.#live.size > 0) {
      await Promise.all([...this.#live.keys()].map((child) => child.status));
    }
  }
}

function kill(child: Deno.ChildProcess, { group }: OwnedOptions): void {
  if (group && killProcessGroup(child.pid, "SIGKILL")) return;
  try {
    child.kill("SIGKILL");
  } catch {
    // It exited in the meantime.
  }
}
