/**
 * The directory the user ran `svc` in (issue 27 item 8). `deno task svc …`
 * runs in the directory of deno.json (the svc checkout) and sets `INIT_CWD`
 * to where the user was, so from source `Deno.cwd()` is the checkout: every
 * path the CLI resolves, and every cwd or project root it sends, starts from
 * here instead.
 */
import { isAbsolute, resolve } from "node:path";
import { resolveHome } from "../config/home.ts";
import type { Io } from "./command.ts";

/** `INIT_CWD` when running under `deno task` (an absolute path), else `Deno.cwd()`. */
export function cliWorkingDirectory(io: Pick<Io, "env">): string {
  const initial = io.env("INIT_CWD");
  return initial !== undefined && isAbsolute(initial) ? initial : Deno.cwd();
}

/** `path` resolved against the CLI's working directory (an absolute path stays as it is). */
export function resolveCliPath(io: Pick<Io, "env">, path: string): string {
  return resolve(cliWorkingDirectory(io), path);
}

/** The home of `--home` / `$SVC_HOME` / `~/.svc`, a relative one resolved as `resolveCliPath`. */
export function resolveCliHome(flag: string | undefined, io: Pick<Io, "env">): string {
  return resolveCliPath(io, resolveHome(flag, io.env));
}
