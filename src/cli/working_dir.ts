/**
 * The directory the user ran `svc` in (issue 27 item 8). `deno task svc …`
 * runs in the directory of deno.json (the svc checkout) and sets `INIT_CWD`
 * to where the user was, so from source `Deno.cwd()` is the checkout: every
 * path the CLI resolves, and every cwd or project root it sends, starts from
 * here instead.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveHome } from "../config/home.ts";
import type { Io } from "./command.ts";

/**
 * The directory of the program's main module: from source, the checkout's
 * root, where `deno task` runs svc (a compiled binary's is not on disk).
 */
function programDirectory(): string | null {
  try {
    return Deno.realPathSync(dirname(fileURLToPath(Deno.mainModule)));
  } catch {
    return null;
  }
}

/**
 * `INIT_CWD` (an absolute path) when `deno task` ran svc, which it does in
 * the checkout's root; else `Deno.cwd()`. A process merely started from a
 * `deno task` (a test's child, a script) inherits `INIT_CWD` but runs
 * elsewhere: its own directory counts.
 */
export function cliWorkingDirectory(
  io: Pick<Io, "env">,
  programDir: string | null = programDirectory(),
): string {
  const initial = io.env("INIT_CWD");
  if (initial === undefined || !isAbsolute(initial)) return Deno.cwd();
  return Deno.cwd() === programDir ? initial : Deno.cwd();
}

/** `path` resolved against the CLI's working directory (an absolute path stays as it is). */
export function resolveCliPath(io: Pick<Io, "env">, path: string): string {
  return resolve(cliWorkingDirectory(io), path);
}

/** The home of `--home` / `$SVC_HOME` / `~/.svc`, a relative one resolved as `resolveCliPath`. */
export function resolveCliHome(flag: string | undefined, io: Pick<Io, "env">): string {
  return resolveCliPath(io, resolveHome(flag, io.env));
}
