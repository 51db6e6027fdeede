/**
 * The user's contexts (D32): `$XDG_CONFIG_HOME/svc/contexts.json` (else
 * `~/.config/svc/contexts.json`), owner-only (0600 in a 0700 directory),
 * written whole through a temporary file so a reader never sees half of it.
 */
import { dirname, join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../config/config_error.ts";
import { parseContextEndpoint } from "./endpoint.ts";

/** The context that is always there: the daemon of `--home` / `$SVC_HOME` / `~/.svc`. */
export const LOCAL_CONTEXT = "local";

/** What a context name may be: a word that is safe in a table and a file. */
const CONTEXT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const contextsSchema = z.strictObject({
  /** The context `svc context use` chose; null (or absent) for `local`. */
  current: z.string().nullable().default(null),
  contexts: z.record(
    z.string().regex(CONTEXT_NAME),
    z.strictObject({ endpoint: z.string() }),
  ).default({}),
});

/** The file's contents. */
export type ContextsFile = z.infer<typeof contextsSchema>;

/**
 * Where the contexts file is, from the environment; null when neither
 * `XDG_CONFIG_HOME` nor a home directory is set (then there is no file, and
 * `local` is the only context).
 */
export function contextsPath(env: (name: string) => string | undefined): string | null {
  const home = Deno.build.os === "windows" ? env("USERPROFILE") : env("HOME");
  const configHome = env("XDG_CONFIG_HOME") ||
    (Deno.build.os === "windows" ? env("APPDATA") : undefined) ||
    (home ? join(home, ".config") : null);
  return configHome === null ? null : join(configHome, "svc", "contexts.json");
}

/** A usage-level check of a new context's name; the message says what is allowed. */
export function checkContextName(name: string): void {
  if (name === LOCAL_CONTEXT) {
    throw new ConfigError(`"${LOCAL_CONTEXT}" is always this machine's daemon: pick another name`);
  }
  if (!CONTEXT_NAME.test(name)) {
    throw new ConfigError(
      `Context name "${name}" is not allowed: letters, digits, ".", "_" and "-", at most 64`,
    );
  }
}

/**
 * The file at `path`, or an empty one when it does not exist (or there is
 * no path); a bad file is a `ConfigError`.
 */
export async function readContexts(path: string | null): Promise<ContextsFile> {
  if (path === null) return { current: null, contexts: {} };
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { current: null, contexts: {} };
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(`"${path}" is not JSON: fix or remove it`);
  }
  const parsed = contextsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`"${path}": ${issue.path.join(".") || "(file)"}: ${issue.message}`);
  }
  for (const [name, context] of Object.entries(parsed.data.contexts)) {
    try {
      parseContextEndpoint(context.endpoint);
    } catch (error) {
      throw new ConfigError(`"${path}": context "${name}": ${(error as Error).message}`);
    }
  }
  return parsed.data;
}

/** Writes the whole file, 0600 in a 0700 directory, replacing the old one atomically. */
export async function writeContexts(path: string, file: ContextsFile): Promise<void> {
  const directory = dirname(path);
  await Deno.mkdir(directory, { recursive: true, mode: 0o700 });
  const temporary = join(directory, `.contexts.${crypto.randomUUID()}.tmp`);
  try {
    await Deno.writeTextFile(temporary, JSON.stringify(file, null, 2) + "\n", { mode: 0o600 });
    if (Deno.build.os !== "windows") await Deno.chmod(temporary, 0o600);
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}
