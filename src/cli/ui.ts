import { join } from "node:path";
import { loadConfig } from "../config/load.ts";
import { homePaths } from "../config/home.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, EXIT } from "./command.ts";
import { connect } from "./connect.ts";
import { cliWorkingDirectory, resolveCliHome } from "./working_dir.ts";

/** `svc ui`: mission control, a full-screen view of every agent, approval and routine (D25). */
export const uiCommand: Command = {
  name: "ui",
  summary: "Mission control: every session, approval and routine on one screen",
  usage: `Usage: svc ui [--home DIR] [--no-color]

A full-screen terminal view of the daemon (D25): the fleet of sessions with
their state (working, waiting, idle, stalled, ended), what needs you, every
pending approval with its countdown, a session's conversation live with an
input line, routines and the inbox, and a form to start a session. It reads
the daemon's lists once, then follows its feed; a daemon that stops or
restarts is shown in a banner and picked up again.

Keys: ? shows every key of the view, q quits, 1-6 and Tab switch views,
n jumps to the next session that needs you, c starts a session.

Options:
  --no-color   no colour (also when NO_COLOR is set)

Needs a terminal; for a line per change that scripts can read, use svc watch.`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      home: { type: "string" },
      "no-color": { type: "boolean", default: false },
    });
    if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) {
      io.err("svc ui needs a terminal (try svc watch)");
      return EXIT.usage;
    }
    const paths = homePaths(resolveCliHome(values.home, io));
    const config = loadConfig(paths.config);
    const { client } = await connect(values.home, io);
    // React's development build costs the UI several times the CPU of its production one
    // (measured: most of a busy fleet's frames went to its dev-only bookkeeping).
    if (io.env("NODE_ENV") === undefined) Deno.env.set("NODE_ENV", "production");
    // Loaded here only: Ink and React cost the other commands (and the daemon) nothing.
    const { runUi } = await import("../ui/run.tsx");
    try {
      return await runUi({
        client,
        color: !values["no-color"] && io.env("NO_COLOR") === undefined,
        stalledAfterMs: config.ui.stalledAfterSeconds * 1000,
        cwd: cliWorkingDirectory(io),
        seenFile: join(paths.root, "ui-seen.json"),
      });
    } finally {
      client.close();
    }
  },
};
