/**
 * The owner's notification command (D21, config `notify`): run without a
 * shell, with event details in its environment, so a desktop notifier, a
 * phone push (ntfy) or a script can reach the owner. It never fails what it
 * reports on: its exit and output go to the daemon log, and a command still
 * running after the time limit is killed.
 */
import type { Logger } from "../log.ts";
import type { OwnedProcesses } from "../sessions/owned_processes.ts";

/** What may trigger a notification: run outcomes, and a pending approval (D18). */
export const NOTIFY_EVENTS = ["failed", "timed_out", "succeeded", "approval.requested"] as const;
export type NotifyEvent = typeof NOTIFY_EVENTS[number];

/** `notify` of config.json with its default applied. */
export interface NotifyConfig {
  command: string[];
  on: NotifyEvent[];
}

/** Events notified when config `notify.on` is absent: what needs the owner, not successes. */
export const DEFAULT_NOTIFY_ON: readonly NotifyEvent[] = [
  "failed",
  "timed_out",
  "approval.requested",
];

/** A command still running after this long is killed (and logged). */
export const NOTIFY_TIMEOUT_MS = 30_000;
/** Output kept for the log, per stream. */
const MAX_LOGGED_OUTPUT = 2048;

/** Runs one notification; resolves when it ended (it never rejects). */
export type NotifyRunner = (
  command: string[],
  env: Record<string, string>,
) => Promise<void>;

/**
 * The real runner: `Deno.Command`, no shell, bounded in time, output to the
 * log; through `processes` when given, so a stopping daemon waits for the
 * command until its stop deadline, then kills it (issue 28 item 15).
 */
export function commandNotifier(
  log: Logger,
  { timeoutMs = NOTIFY_TIMEOUT_MS, processes }: {
    timeoutMs?: number;
    processes?: OwnedProcesses;
  } = {},
): NotifyRunner {
  return async (command, env) => {
    let child: Deno.ChildProcess;
    try {
      const notifier = new Deno.Command(command[0], {
        args: command.slice(1),
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      });
      child = processes?.spawn(notifier, { group: false, atStop: "wait" }) ?? notifier.spawn();
    } catch (error) {
      log.warn("Notification command could not start", { command: command[0], error });
      return;
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        child.kill("SIGKILL");
      } catch { /* it just exited */ }
    }, timeoutMs);
    try {
      const output = await child.output();
      const text = (bytes: Uint8Array) =>
        new TextDecoder().decode(bytes.subarray(0, MAX_LOGGED_OUTPUT));
      const fields = {
        command: command[0],
        event: env.SVC_EVENT,
        code: output.code,
        stdout: text(output.stdout),
        stderr: text(output.stderr),
      };
      if (timedOut) log.warn(`Notification command killed after ${timeoutMs} ms`, fields);
      else if (!output.success) log.warn("Notification command failed", fields);
      else log.info("Notification command ran", fields);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Sends `event` with `env` when the config asks for it; never waits on the command. */
export function notify(
  config: NotifyConfig | null,
  runner: NotifyRunner,
  event: NotifyEvent,
  env: Record<string, string>,
): Promise<void> | null {
  if (config === null || !config.on.includes(event)) return null;
  return runner(config.command, { ...env, SVC_EVENT: event });
}
