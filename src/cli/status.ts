import { ClientError } from "../client/client.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type Command, EXIT } from "./command.ts";
import { connect } from "./connect.ts";

/** `svc status`: the running daemon's health; exit 3 when none answers (D1). */
export const statusCommand: Command = {
  name: "status",
  summary: "Show the running daemon's health",
  usage: `Usage: svc status [--home DIR] [--json]

Prints the endpoint, pid, uptime, version and live sessions of the daemon.
Exits 3 when no daemon answers.`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, CLIENT_OPTIONS);
    const { client, socket } = connect(values.home, io);
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
      io.out(lines.join("\n"));
      return EXIT.ok;
    } catch (error) {
      if (error instanceof ClientError && error.code === "unreachable") {
        io.err(`svc is not running: no daemon answers on "${socket}"`);
        return EXIT.unreachable;
      }
      throw error;
    } finally {
      client.close();
    }
  },
};

/** `3h 04m 05s` style uptime. */
export function formatUptime(seconds: number): string {
  const total = Math.floor(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}h ${pad(m)}m ${pad(s)}s` : m > 0 ? `${m}m ${pad(s)}s` : `${s}s`;
}
