/**
 * Sends one notification to one channel (D31): a webhook POST, the desktop
 * program, or the owner's command (no shell; the notification in its
 * environment). A failure is an `Error` whose message names the cause and
 * never the webhook's URL, which may hold a token; the daemon aborts a send
 * that takes too long through `signal`.
 */
import type { OwnedProcesses } from "../sessions/owned_processes.ts";
import { type Notification, plainText } from "./content.ts";
import { desktopCommand } from "./desktop_command.ts";
import type { ChannelConfig } from "./notification_config.ts";
import { webhookRequest } from "./webhook_format.ts";

/** Sends `notification` on `channel`; rejects with the reason when it did not arrive. */
export type ChannelSender = (
  channel: ChannelConfig,
  notification: Notification,
  signal: AbortSignal,
) => Promise<void>;

/** Characters of a command's stderr kept in the error. */
const MAX_ERROR_CHARS = 200;

/** The real sender: `fetch` and `Deno.Command`, through `processes` so a stop ends them. */
export function channelSender(
  { processes, os = Deno.build.os }: { processes: OwnedProcesses; os?: typeof Deno.build.os },
): ChannelSender {
  return (channel, notification, signal) => {
    switch (channel.kind) {
      case "webhook":
        return postWebhook(channel.url, channel.format ?? "json", notification, signal);
      case "desktop": {
        const { argv, env } = desktopCommand(os, notification);
        return runProgram(processes, argv, env, signal);
      }
      case "command":
        return runProgram(processes, channel.command, commandEnv(notification), signal);
    }
  };
}

/** The environment of a `command` channel: every field of the notification. */
export function commandEnv(notification: Notification): Record<string, string> {
  return {
    SVC_EVENT: notification.event,
    SVC_TITLE: notification.title,
    SVC_BODY: notification.body,
    SVC_SESSION_ID: notification.sessionId ?? "",
    SVC_HARNESS: notification.harness ?? "",
    SVC_PROJECT: notification.project ?? "",
    SVC_URL: notification.url ?? "",
    SVC_AT: notification.at,
  };
}

async function postWebhook(
  url: string,
  format: "json" | "ntfy" | "slack",
  notification: Notification,
  signal: AbortSignal,
): Promise<void> {
  const { headers, body } = webhookRequest(format, notification);
  let response: Response;
  try {
    response = await fetch(url, { method: "POST", headers, body, signal, redirect: "manual" });
  } catch (error) {
    if (signal.aborted) throw new Error("timed out");
    // Deno's messages quote the URL: only the error's kind is kept.
    throw new Error(`cannot connect (${(error as Error).name})`);
  }
  await response.body?.cancel();
  if (!response.ok) throw new Error(`answered HTTP ${response.status}`);
}

async function runProgram(
  processes: OwnedProcesses,
  argv: string[],
  env: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  let child: Deno.ChildProcess;
  try {
    child = processes.spawn(
      new Deno.Command(argv[0], {
        args: argv.slice(1),
        env,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }),
      { group: false, atStop: "kill" },
    );
  } catch (error) {
    throw new Error(
      error instanceof Deno.errors.NotFound
        ? `"${argv[0]}" is not found on PATH`
        : `"${argv[0]}" cannot start (${(error as Error).name})`,
    );
  }
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch { /* it just exited */ }
  };
  signal.addEventListener("abort", kill, { once: true });
  try {
    const output = await child.output();
    if (signal.aborted) throw new Error("timed out");
    if (!output.success) {
      const stderr = plainText(new TextDecoder().decode(output.stderr).trim(), MAX_ERROR_CHARS);
      throw new Error(`"${argv[0]}" exited with code ${output.code}${stderr && `: ${stderr}`}`);
    }
  } finally {
    signal.removeEventListener("abort", kill);
  }
}
