import type { Daemon } from "../daemon.ts";
import { resolveCliHome, resolveCliPath } from "./working_dir.ts";
import { parseTcpAddress } from "../transport/tcp_loopback.ts";
import { parseCommandArgs } from "./args.ts";
import type { Command } from "./command.ts";

/** `svc serve`: the daemon in the foreground until SIGINT/SIGTERM (D1). */
export const serveCommand: Command = {
  name: "serve",
  summary: "Run the daemon in the foreground",
  usage: `Usage: svc serve [--home DIR] [--tcp ADDR:PORT] [--project-root DIR]...

Runs the daemon until SIGINT or SIGTERM, then shuts down gracefully.

Options:
  --home DIR           Home directory (default $SVC_HOME, else ~/.svc)
  --tcp ADDR:PORT      Also listen on a loopback TCP address (127.0.0.1:3000); never owner
  --project-root DIR   Allowed project root (repeatable); replaces config.json's projectRoots`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      home: { type: "string" },
      tcp: { type: "string" },
      "project-root": { type: "string", multiple: true },
    });
    const tcp = values.tcp === undefined ? null : parseTcpAddress(values.tcp);
    // Listening first: a stop signal that comes while the daemon starts (even right after its
    // socket answers) stops it gracefully once it has started, instead of killing it.
    const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
    let daemon: Daemon | null = null;
    let stopRequested = false;
    const onSignal = () => {
      stopRequested = true;
      void daemon?.stop();
    };
    for (const signal of signals) Deno.addSignalListener(signal, onSignal);
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
      for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
    }
    return 0;
  },
};
