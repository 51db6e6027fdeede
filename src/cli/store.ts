/** `svc store backup FILE` and `svc store reset` (D24). */
import { DatabaseSync } from "node:sqlite";
import { resolve } from "node:path";
import { homePaths, resolveHome } from "../config/home.ts";
import { idFilePath } from "../store/store_identity.ts";
import { parseCommandArgs, requireId } from "./args.ts";
import {
  type Command,
  EXIT,
  type Io,
  pickSubcommand,
  type Subcommand,
  UsageError,
} from "./command.ts";

export const storeCommand: Command = {
  name: "store",
  summary: "Back up the store, or start over with an empty one",
  usage: `Usage: svc store <subcommand> [--home DIR]

Subcommands:
  backup FILE
      Writes a consistent copy of the store (sessions, events, routines, runs)
      to FILE, which must not exist, mode 0600. Safe while the daemon runs. To
      restore: stop the daemon, copy FILE over $SVC_HOME/svc.db (remove
      svc.db-wal and svc.db-shm), start it.
  reset
      Moves svc.db, its -wal and -shm files and svc.db.id aside (renamed
      *.reset-TIME, nothing is deleted), so the next start begins with an empty
      store. Refused while the daemon runs. For a store the daemon refuses to
      open (replaced, truncated, damaged): see docs/operations.md.`,
  run(args, io) {
    const { run, rest } = pickSubcommand(SUBCOMMANDS, args);
    return run(rest, io);
  },
};

const SUBCOMMANDS: Record<string, Subcommand> = { backup, reset };

async function backup(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { home: { type: "string" } }, {
    positionals: 1,
  });
  const target = resolve(requireId(positionals, "backup file"));
  const paths = homePaths(resolveHome(values.home, io.env));
  if (await exists(target)) throw new UsageError(`"${target}" exists: name a new file`);
  if (!await exists(paths.db)) {
    io.err(`svc: no store at "${paths.db}"`);
    return EXIT.refused;
  }
  const db = new DatabaseSync(paths.db, { readOnly: true, timeout: 5000 });
  try {
    // One read transaction: a consistent copy even while the daemon commits.
    db.prepare("VACUUM INTO ?").run(target);
  } finally {
    db.close();
  }
  if (Deno.build.os !== "windows") await Deno.chmod(target, 0o600);
  io.out(`Backed up ${paths.db} to ${target}`);
  return EXIT.ok;
}

async function reset(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, { home: { type: "string" } });
  const paths = homePaths(resolveHome(values.home, io.env));
  const lock = await Deno.open(paths.lock, { read: true, write: true, create: true, mode: 0o600 });
  try {
    if (!await lock.tryLock(true)) {
      io.err('svc: the daemon is running on this home: stop it first ("svc stop")');
      return EXIT.refused;
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const moved: string[] = [];
    for (const file of [paths.db, `${paths.db}-wal`, `${paths.db}-shm`, idFilePath(paths.db)]) {
      if (!await exists(file)) continue;
      await Deno.rename(file, `${file}.reset-${stamp}`);
      moved.push(`${file}.reset-${stamp}`);
    }
    io.out(
      moved.length === 0
        ? "No store to reset: the next start creates one"
        : `Moved aside:\n${
          moved.map((file) => `  ${file}`).join("\n")
        }\nThe next start creates an empty store.`,
    );
    return EXIT.ok;
  } finally {
    lock.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}
