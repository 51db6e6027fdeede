/**
 * Caddy (Debian's `caddy` package) as the owner would run it in front of the
 * daemon's TCP listener (docs/web.md, "A reverse proxy with TLS"): `tls
 * internal` (Caddy's own local CA), bound to 127.0.0.1 on a free port, with
 * its config, data and home in a temporary directory. No admin endpoint, no
 * HTTP port 80 redirect, no system service, and never the system trust store
 * (`skip_install_trust`). Without /usr/bin/caddy the tests are skipped, and
 * say so.
 */
import { createHash, X509Certificate } from "node:crypto";
import { freePort } from "./daemon.ts";
import { removeTree, tempHome } from "./home.ts";

export const CADDY = "/usr/bin/caddy";

/** Whether Caddy is installed (`apt-get install -y caddy`). */
export const hasCaddy = await Deno.stat(CADDY).then(() => true, () => false);
if (!hasCaddy) {
  console.error(`SKIPPED: the reverse-proxy test needs ${CADDY} (apt-get install caddy)`);
}

/** A running Caddy serving `origin` over https, proxying to the upstream. */
export interface Caddy extends AsyncDisposable {
  /** `https://HOST:PORT`, the origin to name in `web.origins`. */
  readonly origin: string;
  readonly host: string;
  readonly port: number;
  /**
   * Base64 SHA-256 of the public key of the local CA's intermediate, which
   * signs the site's certificate: for Chromium's `--ignore-certificate-errors-spki-list`.
   */
  readonly caSpki: string;
  /** What Caddy wrote on stderr (its JSON log). */
  log(): string;
}

/**
 * The Caddyfile: one site, `tls internal`, proxying to `upstream`, which
 * keeps the browser's `Host` unless `rewriteHost` (then `Host` is the
 * upstream's and the browser's is in `X-Forwarded-Host`).
 */
export function caddyfile(
  host: string,
  port: number,
  httpPort: number,
  upstream: string,
  rewriteHost = false,
): string {
  const proxy = rewriteHost
    ? `reverse_proxy ${upstream} {
		header_up Host {upstream_hostport}
	}`
    : `reverse_proxy ${upstream}`;
  return `{
	admin off
	skip_install_trust
	auto_https disable_redirects
	http_port ${httpPort}
	https_port ${port}
	servers {
		protocols h1 h2
	}
}

https://${host}:${port} {
	bind 127.0.0.1
	tls internal
	${proxy}
}
`;
}

/**
 * Starts Caddy for `host` in front of `upstream` (`127.0.0.1:PORT`), ready
 * once its certificate is; `rewriteHost` as in `caddyfile`.
 */
export async function startCaddy(
  host: string,
  upstream: string,
  { rewriteHost = false } = {},
): Promise<Caddy> {
  const dir = await tempHome();
  const port = freePort();
  const config = `${dir}/Caddyfile`;
  await Deno.writeTextFile(config, caddyfile(host, port, freePort(), upstream, rewriteHost));
  const child = new Deno.Command(CADDY, {
    args: ["run", "--config", config, "--adapter", "caddyfile"],
    env: {
      HOME: dir,
      XDG_DATA_HOME: `${dir}/data`,
      XDG_CONFIG_HOME: `${dir}/config`,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const reading = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) text += chunk;
  })();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already exited */ }
    await child.status;
    await reading;
    await removeTree(dir);
  };
  try {
    const pki = `${dir}/data/caddy`;
    const leaf = `${pki}/certificates/local/${host}/${host}.crt`;
    const deadline = Date.now() + 20_000;
    while (!(await listening(port) && await exists(leaf))) {
      if (Date.now() > deadline) throw new Error(`Caddy did not start:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The chain Caddy presents is its leaf and the local CA's intermediate, without the root.
    const intermediate = new X509Certificate(
      await Deno.readTextFile(`${pki}/pki/authorities/local/intermediate.crt`),
    );
    const spki = intermediate.publicKey.export({ type: "spki", format: "der" });
    const caSpki = createHash("sha256").update(spki).digest("base64");
    return {
      origin: `https://${host}:${port}`,
      host,
      port,
      caSpki,
      log: () => text,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function listening(port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return true;
  } catch {
    return false;
  }
}
