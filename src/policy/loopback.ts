/** Loopback address rules shared by `--tcp` parsing (D1) and Host checks (D14). */

/** True for `localhost`, any `127.0.0.0/8` address and `::1` (with or without brackets). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === "localhost") return true;
  if (bare === "::1" || bare === "0:0:0:0:0:0:0:1") return true;
  const octets = bare.split(".");
  return octets.length === 4 && octets[0] === "127" &&
    octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/** Splits `host:port` or `[v6]:port`; null when the form is wrong. */
export function splitHostPort(value: string): { hostname: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:\[\]]+):(\d{1,5})$/.exec(value);
  if (!match) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return null;
  const hostname = match[1].startsWith("[") ? match[1].slice(1, -1) : match[1];
  return { hostname, port };
}
