/** `svc store backup FILE`, `svc store restore FILE` and `svc store reset` (D24). */
import { DatabaseSync } from "node:sqlite";
import { type HomePaths, homePaths, prepareHome } from "../config/home.ts";
import { resolveCliHome, resolveCliPath } from "./working_dir.ts";
import { storeFiles, writeStoreId } from "../store/store_identity.ts";
import { copyBackup } from "../store/backup_file.ts";
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
  summary: "Back up the store, restore a backup, or start over with an empty one",
  usage: `Usage: svc store <subcommand> [--home DIR]

Subcommands:
  backup FILE
      Writes a consistent copy of the store (sessions, events, routines, runs)
      to FILE, which must not exist, mode 0600. Safe while the daemon runs.
  restore FILE
      Makes the store in FILE (a backup, or a store from another home) this
      home's store: moves the current svc.db, its -wal and -shm files and
      store.id aside (renamed *.before-restore-TIME), copies FILE in and
      records its id in store.id. Refused while the daemon runs, and for a
      FILE that is not an svc store (not a regular file, empty, another
      program's database): then nothing in the home moves.
  reset
      Moves svc.db, its -wal and -shm files and store.id aside (renamed
      *.reset-TIME, nothing is deleted), so the next start begins with an empty
      store on purpose. Refused while the daemon runs. For a store the daemon
      refuses to open (deleted, replaced, truncated, damaged): see
      docs/operations.md.`,
  localOnly: true,
  run(args, io) {
    const { run, rest } = pickSubcommand(SUBCOMMANDS, args);
    return run(rest, io);
  },
};

const SUBCOMMANDS: Record<string, Subcommand> = { backup, reset, restore };

async function backup(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { home: { type: "string" } }, {
    positionals: 1,
  });
  const target = resolveCliPath(io, requireId(positionals, "backup file"));
  const paths = homePaths(resolveCliHome(values.home, io));
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

async function restore(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { home: { type: "string" } }, {
    positionals: 1,
  });
  const source = resolveCliPath(io, requireId(positionals, "backup file"));
  const paths = homePaths(resolveCliHome(values.home, io));
  if (!await exists(source)) throw new UsageError(`"${source}" does not exist`);
  prepareHome(paths);
  // Checked and copied before the home lock is taken and before anything moves: FILE may be this
  // home's own svc.db, adopted on purpose, and nothing it makes us wait for holds the lock.
  const staged = await Deno.makeTempFile({ dir: paths.root, prefix: "svc.db.restoring-" });
  try {
    let id: string | null;
    try {
      id = await copyBackup(source, staged);
    } catch (error) {
      io.err(`svc: "${source}" cannot be restored: ${(error as Error).message}`);
      return EXIT.refused;
    }
    return await whileStopped(paths, io, async () => {
      const moved = await moveAside(storeFiles(paths), "before-restore");
      await Deno.rename(staged, paths.db);
      // A store from before D24 has no id: the next start gives it one, as for any such store.
      if (id !== null) writeStoreId(paths.storeId, id);
      io.out(
        `${movedText(moved)}Restored ${source} to ${paths.db}${
          id === null ? "" : ` (store ${id})`
        }. Start the daemon to use it.`,
      );
      return EXIT.ok;
    });
  } finally {
    await Deno.remove(staged).catch(() => {}); // Gone once renamed into place.
  }
}

async function reset(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, { home: { type: "string" } });
  const paths = homePaths(resolveCliHome(values.home, io));
  return await whileStopped(paths, io, async () => {
    const moved = await moveAside(storeFiles(paths), "reset");
    io.out(
      moved.length === 0
        ? "No store to reset: the next start creates one"
        : `${movedText(moved)}The next start creates an empty store.`,
    );
    return EXIT.ok;
  });
}

/** Runs `change` holding the home lock: refused while a daemon runs on the home. */
async function whileStopped(
  paths: HomePaths,
  io: Io,
  change: () => Promise<number>,
): Promise<number> {
  const lock = await Deno.open(paths.lock, { read: true, write: true, create: true, mode: 0o600 });
  try {
    if (!await lock.tryLock(true)) {
      io.err('svc: the daemon is running on this home: stop it first ("svc stop")');
      return EXIT.refused;
    }
    return await change();
  } finally {
    lock.close();
  }
}

/** Renames each of `files` that exists to `FILE.<reason>-<time>`; nothing is deleted. */
async function moveAside(files: string[], reason: string): Promise<string[]> {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const moved: string[] = [];
  for (const file of files) {
    if (!await exists(file)) continue;
    await Deno.rename(file, `${file}.${reason}-${stamp}`);
    moved.push(`${file}.${reason}-${stamp}`);
  }
  return moved;
}

function movedText(moved: string[]): string {
  return moved.length === 0 ? "" : `Moved aside:\n${moved.map((file) => `  ${file}`).join("\n")}\n`;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}
