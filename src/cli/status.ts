import type { RoutineHealth } from "../automations/health.ts";
import { allRoutines } from "./all_routines.ts";
import { ClientError, type SvcClient } from "../client/client.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type Command, EXIT } from "./command.ts";
import { TIME_OPTIONS, timeText } from "./output.ts";
import { connect } from "./connect.ts";
import { LOCAL_CONTEXT } from "../contexts/contexts_file.ts";
import { terminalSafe } from "./terminal_text.ts";

/** `svc status`: the running daemon's health; exit 3 when none answers (D1). */
export const statusCommand: Command = {
  name: "status",
  summary: "Show the running daemon's health",
  usage: `Usage: svc status [--utc] [--home DIR] [--json]

Prints the endpoint, pid, uptime, version and live sessions of the daemon, and
the next routine due (the ACTIVE routine whose next run is soonest, local time;
UTC with --utc).
--json prints the raw /health response. Exits 3 when no daemon answers.`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, { ...CLIENT_OPTIONS, ...TIME_OPTIONS });
    const { client, socket, context } = await connect(values.home, io);
    try {
      const health = await client.health();
      if (values.json) {
        io.out(JSON.stringify(health, null, 2));
        return EXIT.ok;
      }
      const endpoint = health.endpoint.transport === "unix"
        ? health.endpoint.path
        : health.endpoint.name;
      const lines = [
        `svc is running`,
        `  endpoint:      ${endpoint} (${health.endpoint.transport})`,
        `  tcp:           ${health.tcp ?? "off"}`,
        `  pid:           ${health.pid}`,
        `  uptime:        ${formatUptime(health.uptime)}`,
        `  version:       ${health.svcVersion} (${health.apiVersion})`,
        `  live sessions: ${health.liveSessions ?? 0}`,
      ];
      const next = await nextRoutine(client);
      if (next !== undefined) {
        lines.push(
          `  next routine:  ${
            next === null ? "none" : `${next.id} at ${timeText(next.dueAt, values.utc)}`
          }`,
        );
      }
      io.out(terminalSafe(lines.join("\n")));
      return EXIT.ok;
    } catch (error) {
      if (error instanceof ClientError && error.code === "unreachable") {
        // Another context's error names it and the cause (D32); the local one's gets advice.
        if (context !== LOCAL_CONTEXT) throw error;
        io.err(terminalSafe(
          `svc is not running: no daemon answers on "${socket}"; start it with "svc serve"` +
            (values.home === undefined ? "" : ` --home ${values.home}`) +
            ` (or install it as a service: "svc service install")`,
        ));
        return EXIT.unreachable;
      }
      throw error;
    } finally {
      client.close();
    }
  },
};

/**
 * The ACTIVE routine due soonest, as the daemon computes it (`svc.automations.list`,
 * then `svc.automations.health` per ACTIVE routine); null when none is due;
 * undefined when the daemon would not say (refusal or a failed call), so
 * `svc status` still reports the daemon's health.
 */
export async function nextRoutine(
  client: SvcClient,
): Promise<{ id: string; dueAt: string } | null | undefined> {
  try {
    const list = await allRoutines(client);
    if (!list.ok) return undefined;
    let next: { id: string; dueAt: string } | null = null;
    for (const routine of list.body.result.routines) {
      if (routine.status !== "ACTIVE") continue;
      const health = await act<RoutineHealth>(client, "svc.automations.health", {
        id: routine.id,
      });
      const dueAt = health.ok ? health.body.result.nextDueAt : null;
      if (dueAt === null) continue;
      if (next === null || Date.parse(dueAt) < Date.parse(next.dueAt)) {
        next = { id: routine.id, dueAt };
      }
    }
    return next;
  } catch (error) {
    if (error instanceof ClientError) return undefined;
    throw error;
  }
}

/** POSTs one action with `origin: "cli"` (C4.1: correlation only, no authority). */
function act<T>(client: SvcClient, action: string, fields: Record<string, unknown> = {}) {
  return client.post<{ result: T }>("/actions", { action, origin: "cli", ...fields });
}

/** `3h 04m 05s` style uptime. */
export function formatUptime(seconds: number): string {
  const total = Math.floor(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}h ${pad(m)}m ${pad(s)}s` : m > 0 ? `${m}m ${pad(s)}s` : `${s}s`;
}
