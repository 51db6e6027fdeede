/**
 * Where a context's daemon is (D32): `ssh://[user@]host[:port][?home=DIR&svc=PATH]`
 * (DIR and PATH percent-encoded) or `unix:///path/to/svc.sock`. Pure parsing,
 * so every rule is table-tested.
 */
import { ConfigError } from "../config/config_error.ts";

/** A daemon reached through `ssh … svc dial-stdio` on another machine. */
export interface SshEndpoint {
  readonly kind: "ssh";
  readonly user: string | null;
  /**
   * As ssh takes it: a name (a `Host` alias of the user's ssh config works)
   * or an address (IPv6 without brackets).
   */
  readonly host: string;
  readonly port: number | null;
  /** The remote `--home`; null for the remote default (`$SVC_HOME` or `~/.svc`). */
  readonly home: string | null;
  /** The remote program to run; `svc` (found on the remote PATH) by default. */
  readonly svc: string;
}

/** A daemon's socket on this machine. */
export interface UnixEndpoint {
  readonly kind: "unix";
  readonly path: string;
}

/** A parsed context endpoint. */
export type ContextEndpoint = SshEndpoint | UnixEndpoint;

const SSH_QUERY_KEYS = ["home", "svc"];

/** Parses a context's URL; a `ConfigError` names what is wrong with it. */
export function parseContextEndpoint(text: string): ContextEndpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(text, "it is not a URL");
  }
  if (url.hash !== "") throw invalid(text, "it has a #fragment");
  if (url.protocol === "unix:") return unixEndpoint(text, url);
  if (url.protocol === "ssh:") return sshEndpoint(text, url);
  throw invalid(text, `"${url.protocol}" is neither ssh: nor unix:`);
}

function unixEndpoint(text: string, url: URL): UnixEndpoint {
  if (url.host !== "") throw invalid(text, "a unix: URL has no host (unix:///path/to/svc.sock)");
  if (url.search !== "") throw invalid(text, "a unix: URL takes no ?query");
  const path = decodeURIComponent(url.pathname);
  if (!path.startsWith("/") || path === "/") throw invalid(text, "it names no socket path");
  return { kind: "unix", path };
}

function sshEndpoint(text: string, url: URL): SshEndpoint {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (host === "") throw invalid(text, "it names no host");
  if (host.startsWith("-")) throw invalid(text, `host "${host}" starts with "-"`);
  if (url.password !== "") throw invalid(text, "svc never keeps a password: use a key");
  if (url.pathname !== "" && url.pathname !== "/") {
    throw invalid(text, "an ssh: URL has no path: put the remote home in ?home=DIR");
  }
  const query = sshQuery(text, url.search);
  const user = url.username === "" ? null : decodeURIComponent(url.username);
  if (user !== null && user.startsWith("-")) throw invalid(text, `user "${user}" starts with "-"`);
  return {
    kind: "ssh",
    user,
    host,
    port: url.port === "" ? null : Number(url.port),
    home: query.get("home") ?? null,
    svc: query.get("svc") ?? "svc",
  };
}

/**
 * The query's `home` and `svc`, percent-decoded (not as a form: a `+` in a
 * path stays a `+`); an unknown, repeated or empty key is refused.
 */
function sshQuery(text: string, search: string): Map<string, string> {
  const query = new Map<string, string>();
  if (search === "" || search === "?") return query;
  for (const pair of search.slice(1).split("&")) {
    const at = pair.indexOf("=");
    const key = at < 0 ? pair : pair.slice(0, at);
    if (!SSH_QUERY_KEYS.includes(key)) {
      throw invalid(text, `unknown ?${key}= (only ${SSH_QUERY_KEYS.join(" and ")})`);
    }
    if (query.has(key)) throw invalid(text, `?${key}= is given twice`);
    let value: string;
    try {
      value = decodeURIComponent(at < 0 ? "" : pair.slice(at + 1));
    } catch {
      throw invalid(text, `?${key}= is not percent-encoded correctly`);
    }
    if (value === "") throw invalid(text, `?${key}= is empty`);
    query.set(key, value);
  }
  return query;
}

/** The endpoint as a URL again, for `svc context ls`. */
export function formatContextEndpoint(endpoint: ContextEndpoint): string {
  if (endpoint.kind === "unix") return `unix://${encodeURI(endpoint.path)}`;
  const user = endpoint.user === null ? "" : `${encodeURIComponent(endpoint.user)}@`;
  const port = endpoint.port === null ? "" : `:${endpoint.port}`;
  const query = [
    ...(endpoint.home === null ? [] : [`home=${encodeURIComponent(endpoint.home)}`]),
    ...(endpoint.svc === "svc" ? [] : [`svc=${encodeURIComponent(endpoint.svc)}`]),
  ];
  const host = endpoint.host.includes(":") ? `[${endpoint.host}]` : endpoint.host;
  return `ssh://${user}${host}${port}${query.length > 0 ? `?${query.join("&")}` : ""}`;
}

function invalid(text: string, why: string): ConfigError {
  return new ConfigError(
    `"${text}" is not a context URL: ${why} (ssh://[user@]host[:port][?home=DIR] or unix:///path)`,
  );
}
