import type { Daemon } from "../daemon.ts";
import { resolveCliHome, resolveCliPath } from "./working_dir.ts";
import { parseTcpAddress } from "../transport/tcp_loopback.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command } from "./command.ts";

/** `svc serve`: the daemon in the foreground until SIGINT, SIGTERM or SIGHUP (D1). */
export const serveCommand: Command = {
  name: "serve",
  summary: "Run the daemon in the foreground",
  usage: `Usage: svc serve [--home DIR] [--tcp ADDR:PORT] [--project-root DIR]...

Runs the daemon until SIGINT, SIGTERM or SIGHUP (its terminal closed), then
shuts down gracefully. On Linux, started with SIGHUP ignored (nohup), it
keeps running when its terminal closes.

Options:
  --home DIR           Home directory (default $SVC_HOME, else ~/.svc)
  --tcp ADDR:PORT      Also listen on a loopback TCP address (127.0.0.1:3000); never owner
  --project-root DIR   Allowed project root (repeatable); replaces config.json's projectRoots`,
  localOnly: true,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      home: { type: "string" },
      tcp: { type: "string" },
      "project-root": { type: "string", multiple: true },
    });
    const tcp = values.tcp === undefined ? null : parseTcpAddress(values.tcp);
    // Listening first: a stop signal that comes while the daemon starts (even right after its
    // socket answers) stops it gracefully once it has started, instead of killing it.
    let daemon: Daemon | null = null;
    let stopRequested = false;
    const onSignal = () => {
      stopRequested = true;
      void daemon?.stop();
    };
    const listeners = new Map<Deno.Signal, () => void>([["SIGINT", onSignal]]);
    if (Deno.build.os !== "windows") {
      listeners.set("SIGTERM", onSignal);
      // A closed terminal hangs up (issue 38 item 6): a stop, unless SIGHUP was ignored at start
      // (`nohup`). Deno's first listener un-ignores SIGHUP, so then one that does nothing keeps it.
      listeners.set("SIGHUP", hangupIgnoredAtStart() ? () => {} : onSignal);
    }
    for (const [signal, listener] of listeners) Deno.addSignalListener(signal, listener);
    try {
      // Loaded here, not with the command table: every other command starts ~50 ms sooner.
      const { startDaemon } = await import("../daemon.ts");
      daemon = await startDaemon({
        home: resolveCliHome(values.home, io),
        tcp,
        projectRoots: values["project-root"]?.map((root) => resolveCliPath(io, root)),
        logToStderr: true,
      });
      if (tcp !== null) {
        // D23: say plainly what the listener shares.
        io.err(
          `svc: TCP ${values.tcp} gives every local user of this machine read access to ` +
            "sessions, events and health (redacted); it never launches, sends input, kills or " +
            "changes anything",
        );
      }
      if (stopRequested) void daemon.stop();
      await daemon.stopped;
    } finally {
      for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
    }
    return 0;
  },
};

/**
 * Whether this process started with SIGHUP ignored (`nohup svc serve`), from the `SigIgn` mask
 * of Linux's /proc/self/status; false elsewhere, where a hang-up always stops the daemon.
 */
function hangupIgnoredAtStart(): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    const ignored = Deno.readTextFileSync("/proc/self/status").match(/^SigIgn:\s*([0-9a-f]+)$/m);
    // Signal N is bit N-1: SIGHUP (1) is the lowest bit of the last hex digit.
    return ignored !== null && (parseInt(ignored[1].slice(-1), 16) & 1) === 1;
  } catch {
    return false;
  }
}
