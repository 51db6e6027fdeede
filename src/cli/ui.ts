import { join } from "node:path";
import { loadConfig } from "../config/load.ts";
import { homePaths } from "../config/home.ts";
import { LOCAL_CONTEXT } from "../contexts/contexts_file.ts";
import { allContexts, type Context, CONTEXT_ENV, selectContext } from "../contexts/selection.ts";
import { parseCommandArgs } from "./args.ts";
import { type Command, EXIT, type Io, UsageError } from "./command.ts";
import { type Connection, connectTo } from "./connect.ts";
import { cliWorkingDirectory, resolveCliHome } from "./working_dir.ts";

/** `svc ui`: mission control, a full-screen view of every agent, approval and routine (D25). */
export const uiCommand: Command = {
  name: "ui",
  summary: "Mission control: every session, approval and routine on one screen",
  manyContexts: true,
  usage: `Usage: svc ui [--home DIR] [--context NAME]... [--all-contexts] [--no-color]

A full-screen terminal view of the daemon (D25): the fleet of sessions with
their state (working, waiting, idle, stalled, ended), what needs you, every
pending approval with its countdown, a session's conversation live with an
input line, routines and the inbox, and a form to start a session. It reads
the daemon's lists once, then follows its feed; a daemon that stops or
restarts is shown in a banner and picked up again.

Keys: ? shows every key of the view, q quits, 1-6 and Tab switch views,
n jumps to the next session that needs you, c starts a session.

Options:
  --context NAME   the daemon of this context (svc context); given several
                   times, one view of them all with a HOST column (D32)
  --all-contexts   "local" and every context of svc context ls at once
  --no-color       no colour (also when NO_COLOR is set)

With several hosts each is followed on its own: one that does not answer
shows its banner and comes back by itself. The form offers each host's
harnesses: a new session starts on the host of the one chosen.

Needs a terminal; for a line per change that scripts can read, use svc watch.`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      home: { type: "string" },
      context: { type: "string", multiple: true },
      "all-contexts": { type: "boolean", default: false },
      "no-color": { type: "boolean", default: false },
    });
    // A context that does not exist is named before anything else is asked of the terminal.
    const contexts = await uiContexts(values.context ?? [], values["all-contexts"], io);
    if (!Deno.stdin.isTerminal() || !Deno.stdout.isTerminal()) {
      io.err("svc ui needs a terminal (try svc watch)");
      return EXIT.usage;
    }
    const paths = homePaths(resolveCliHome(values.home, io));
    const config = loadConfig(paths.config);
    // One context keeps --home's check (a remote one refuses it); with several, it is local's.
    const connections: Connection[] = [];
    try {
      for (const context of contexts) {
        const home = contexts.length > 1 && "endpoint" in context ? undefined : values.home;
        connections.push(await connectTo(context, home, io));
      }
      // React's development build costs the UI several times the CPU of its production one
      // (measured: most of a busy fleet's frames went to its dev-only bookkeeping).
      if (io.env("NODE_ENV") === undefined) Deno.env.set("NODE_ENV", "production");
      // Loaded here only: Ink and React cost the other commands (and the daemon) nothing.
      const { runUi } = await import("../ui/run.tsx");
      return await runUi({
        hosts: connections.map((connection) => ({
          name: connection.context,
          client: connection.client,
          // Each host's unseen sessions in a file of its own, in this machine's home.
          seenFile: join(paths.root, seenFileName(connection.context)),
          // Another host's daemon is not started from here: say how to look at it.
          awayAdvice: connection.context === LOCAL_CONTEXT
            ? undefined
            : `Check it with: svc --context ${connection.context} health`,
        })),
        color: !values["no-color"] && io.env("NO_COLOR") === undefined,
        stalledAfterMs: config.ui.stalledAfterSeconds * 1000,
        cwd: cliWorkingDirectory(io),
      });
    } finally {
      for (const connection of connections) connection.client.close();
    }
  },
};

/**
 * The contexts `svc ui` shows: `--all-contexts` (local and every one of the
 * file), else each `--context` once, in the order given, else the selected
 * one (`SVC_CONTEXT`, `svc context use`, `local`).
 */
async function uiContexts(named: string[], all: boolean, io: Io): Promise<Context[]> {
  if (all && named.length > 0) {
    throw new UsageError("--all-contexts already shows every context: leave --context out");
  }
  if (all) return await allContexts(io.env);
  if (named.length === 0) return [await selectContext(io.env)];
  const contexts: Context[] = [];
  for (const name of new Set(named)) {
    contexts.push(await selectContext((key) => key === CONTEXT_ENV ? name : io.env(key)));
  }
  return contexts;
}

/** Where the UI keeps a host's unseen sessions (`local` keeps the name it always had). */
function seenFileName(context: string): string {
  return context === LOCAL_CONTEXT ? "ui-seen.json" : `ui-seen.${context}.json`;
}
