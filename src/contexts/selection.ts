/**
 * Which daemon a command talks to (D32): `--context NAME` (the CLI passes it
 * as `SVC_CONTEXT`), else `$SVC_CONTEXT`, else the context `svc context use`
 * chose, else `local`: the daemon of `--home` / `$SVC_HOME` / `~/.svc`.
 */
import { ConfigError } from "../config/config_error.ts";
import { contextsPath, LOCAL_CONTEXT, readContexts } from "./contexts_file.ts";
import { type ContextEndpoint, parseContextEndpoint } from "./endpoint.ts";

/** The environment variable that names a context (`--context` sets it for one command). */
export const CONTEXT_ENV = "SVC_CONTEXT";

/** A context to talk to: this machine's daemon, or a named one and where it is. */
export type Context =
  | { readonly name: typeof LOCAL_CONTEXT }
  | { readonly name: string; readonly endpoint: ContextEndpoint };

/** The local context. */
export const LOCAL: Context = { name: LOCAL_CONTEXT };

/** The context chosen by the environment and the contexts file; an unknown name is a `ConfigError`. */
export async function selectContext(env: (name: string) => string | undefined): Promise<Context> {
  const named = env(CONTEXT_ENV) || null;
  if (named === LOCAL_CONTEXT) return LOCAL;
  const path = contextsPath(env);
  const file = await readContexts(path);
  const name = named ?? file.current;
  if (name === null || name === LOCAL_CONTEXT) return LOCAL;
  const entry = file.contexts[name];
  if (entry === undefined) {
    throw new ConfigError(
      named === null
        ? `The current context "${name}" is not in "${path}": "svc context use local" goes back`
        : `No context "${name}" ("svc context ls" lists them)`,
    );
  }
  return { name, endpoint: parseContextEndpoint(entry.endpoint) };
}

/** `local` and every context of the file, by name (`--all-contexts`). */
export async function allContexts(env: (name: string) => string | undefined): Promise<Context[]> {
  const file = await readContexts(contextsPath(env));
  return [
    LOCAL,
    ...Object.keys(file.contexts).sort().map((name) => ({
      name,
      endpoint: parseContextEndpoint(file.contexts[name].endpoint),
    })),
  ];
}
