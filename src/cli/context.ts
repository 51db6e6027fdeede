import {
  checkContextName,
  type ContextsFile,
  contextsPath,
  LOCAL_CONTEXT,
  readContexts,
  writeContexts,
} from "../contexts/contexts_file.ts";
import { ConfigError } from "../config/config_error.ts";
import { formatContextEndpoint, parseContextEndpoint } from "../contexts/endpoint.ts";
import { CONTEXT_ENV } from "../contexts/selection.ts";
import { parseCommandArgs } from "./args.ts";
import {
  type Command,
  EXIT,
  type Io,
  pickSubcommand,
  type Subcommand,
  UsageError,
} from "./command.ts";
import { table } from "./output.ts";
import { terminalSafe } from "./terminal_text.ts";

/** `svc context add|ls|use|rm` (D32): the daemons this CLI can talk to. */
export const contextCommand: Command = {
  name: "context",
  summary: "Add, list, choose and remove contexts: svc daemons on other machines",
  usage: `Usage: svc context <subcommand> [--json]

A context is a svc daemon the CLI talks to: "local" (this machine's, the
daemon of --home / SVC_HOME / ~/.svc) or one added here. Every command that
talks to a daemon takes --context NAME; SVC_CONTEXT names one too; else the
context chosen with "use" applies, else "local". See docs/contexts.md.

Subcommands:
  add NAME URL
      URL is ssh://[user@]host[:port][?home=DIR&svc=PATH] (DIR and PATH
      percent-encoded): the client runs "ssh host svc dial-stdio [--home DIR]"
      with the ssh on PATH, so your ssh config applies; PATH is the remote svc
      when it is not on the remote PATH. Or unix:///path/to/svc.sock.
  ls [--json]
      Every context, the current one marked with "*".
  use NAME
      Makes NAME the current context ("use local" goes back to this machine).
  rm NAME
      Removes NAME (the current context becomes "local" when it was NAME).

Contexts live in $XDG_CONFIG_HOME/svc/contexts.json (else
~/.config/svc/contexts.json), mode 0600.`,
  localOnly: true,
  run(args, io) {
    const { run, rest } = pickSubcommand(SUBCOMMANDS, args);
    return run(rest, io);
  },
};

const SUBCOMMANDS: Record<string, Subcommand> = {
  add: addContext,
  ls: listContexts,
  use: useContext,
  rm: removeContext,
};

async function addContext(args: string[], io: Io): Promise<number> {
  const { positionals } = parseCommandArgs(args, {}, { positionals: 2 });
  const [name, url] = positionals;
  if (name === undefined) throw new UsageError("Missing context NAME");
  if (url === undefined) throw new UsageError("Missing context URL");
  checkContextName(name);
  const endpoint = parseContextEndpoint(url);
  const path = contextsFile(io);
  const file = await readContexts(path);
  if (Object.hasOwn(file.contexts, name)) {
    io.err(`svc context: "${name}" exists already ("svc context rm ${name}" first)`);
    return EXIT.refused;
  }
  file.contexts[name] = { endpoint: formatContextEndpoint(endpoint) };
  await writeContexts(path, file);
  io.out(`Added context "${name}" (${file.contexts[name].endpoint})`);
  return EXIT.ok;
}

async function listContexts(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, { json: { type: "boolean" } });
  const file = await readContexts(contextsFile(io));
  const current = currentName(file, io);
  const rows = [
    { name: LOCAL_CONTEXT, endpoint: "this machine (--home, SVC_HOME or ~/.svc)" },
    ...Object.keys(file.contexts).sort().map((name) => ({
      name,
      endpoint: file.contexts[name].endpoint,
    })),
  ].map((row) => ({ ...row, current: row.name === current }));
  if (values.json) {
    io.out(JSON.stringify(rows, null, 2));
    return EXIT.ok;
  }
  io.out(table(
    ["NAME", "ENDPOINT"],
    rows.map((row) => [`${row.name}${row.current ? " *" : ""}`, row.endpoint]),
  ));
  return EXIT.ok;
}

async function useContext(args: string[], io: Io): Promise<number> {
  const name = onlyName(args);
  const path = contextsFile(io);
  const file = await readContexts(path);
  if (name !== LOCAL_CONTEXT && !Object.hasOwn(file.contexts, name)) {
    io.err(`svc context: no context "${terminalSafe(name)}" ("svc context ls" lists them)`);
    return EXIT.refused;
  }
  file.current = name === LOCAL_CONTEXT ? null : name;
  await writeContexts(path, file);
  io.out(`Current context: "${name}"`);
  const override = io.env(CONTEXT_ENV);
  if (override) io.err(`Note: ${CONTEXT_ENV}="${override}" overrides it in this shell`);
  return EXIT.ok;
}

async function removeContext(args: string[], io: Io): Promise<number> {
  const name = onlyName(args);
  const path = contextsFile(io);
  const file = await readContexts(path);
  if (!Object.hasOwn(file.contexts, name)) {
    io.err(`svc context: no context "${terminalSafe(name)}" ("svc context ls" lists them)`);
    return EXIT.refused;
  }
  delete file.contexts[name];
  const wasCurrent = file.current === name;
  if (wasCurrent) file.current = null;
  await writeContexts(path, file);
  io.out(`Removed context "${name}"${wasCurrent ? `; the current context is now "local"` : ""}`);
  return EXIT.ok;
}

/** The context commands would use now: `SVC_CONTEXT`, else the file's choice, else `local`. */
function currentName(file: ContextsFile, io: Io): string {
  return io.env(CONTEXT_ENV) || file.current || LOCAL_CONTEXT;
}

/** The contexts file's path, which adding, using and removing need. */
function contextsFile(io: Io): string {
  const path = contextsPath(io.env);
  if (path === null) {
    throw new ConfigError("Cannot find where to keep contexts: set XDG_CONFIG_HOME or HOME");
  }
  return path;
}

function onlyName(args: string[]): string {
  const { positionals } = parseCommandArgs(args, {}, { positionals: 1 });
  const name = positionals[0];
  if (name === undefined) throw new UsageError("Missing context NAME");
  return name;
}
