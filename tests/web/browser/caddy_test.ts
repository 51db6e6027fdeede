/**
 * The web app through a reverse proxy with TLS (issue 34, D30 "remote
 * reach"): Debian's Caddy with `tls internal` on loopback in front of the
 * daemon's TCP listener, `web.origins` naming Caddy's https origin. Chromium
 * resolves the origin's name to 127.0.0.1 (`--host-resolver-rules`) and
 * accepts certificates under Caddy's local CA only (the key of its
 * intermediate in `--ignore-certificate-errors-spki-list`). The printed
 * https URL pairs; the cookie is `Secure`, `HttpOnly` and `SameSite=Strict`;
 * the fleet loads; an approval and a typed turn go through; without the
 * cookie the origin serves only the app's files and the pairing exchange.
 * A Caddy that rewrites `Host` works only with `web.trustProxy`.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { type Caddy, hasCaddy, startCaddy } from "../../helpers/caddy.ts";
import {
  fixtureHarnesses,
  freePort,
  startTestDaemon,
  type TestDaemon,
} from "../../helpers/daemon.ts";
import { removeTree, tempHome } from "../../helpers/home.ts";
import { agentConfig, launchAgent, waitForKind } from "../../helpers/scripted_agent.ts";
import { hasChromium, launchChromium, pairingUrl, PHONE } from "./page.ts";

const HOST = "box.svc.test";

const caddyTest = (name: string, fn: () => Promise<void>) =>
  Deno.test({
    name,
    ignore: !hasChromium || !hasCaddy,
    sanitizeResources: false,
    sanitizeOps: false,
    fn,
  });

/** A daemon on `port` whose `web.origins` is Caddy's, with the scripted agent. */
function daemonBehind(caddy: Caddy, port: number, trustProxy = false): Promise<TestDaemon> {
  return startTestDaemon({
    tcp: { hostname: "127.0.0.1", port },
    configJson: agentConfig({
      harnesses: { ...agentConfig().harnesses as object, ...fixtureHarnesses() },
      web: { origins: [caddy.origin], trustProxy },
    }),
  });
}

/** Chromium that finds HOST on loopback and accepts Caddy's local CA, and nothing else. */
function browserFor(caddy: Caddy): Promise<Browser> {
  return launchChromium([
    `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
    `--ignore-certificate-errors-spki-list=${caddy.caSpki}`,
  ]);
}

/** The https pairing URL `svc devices pair` prints for Caddy's origin. */
async function httpsPairingUrl(t: TestDaemon, caddy: Caddy): Promise<string> {
  const { urls } = await pairingUrl(t.home, "operate");
  const url = urls.find((each) => each.startsWith(`${caddy.origin}/pair#`));
  assert.ok(url, `no pairing URL for ${caddy.origin}: ${JSON.stringify(urls)}`);
  return url;
}

/** Pairs a phone page over https; checks the cookie's attributes. */
async function pairOverHttps(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: PHONE });
  await page.goto(url);
  await page.getByRole("heading", { name: "Fleet" }).waitFor();
  const origin = new URL(url).origin;
  assert.equal(new URL(page.url()).origin, origin);
  const cookies = await page.context().cookies(origin);
  const cookie = cookies.find((each) => each.name === "svc_device");
  assert.ok(cookie, JSON.stringify(cookies));
  assert.deepEqual(
    [cookie.secure, cookie.httpOnly, cookie.sameSite, cookie.path, cookie.domain],
    [true, true, "Strict", "/", HOST],
  );
  assert.ok(cookie.expires > Date.now() / 1000 + 86_400, "Max-Age: the device's life");
  assert.doesNotMatch(await page.evaluate<string>("document.cookie"), /svc_device/);
  return page;
}

/** A request allowed from its card through the proxy; the agent says the tool ran. */
async function allowThrough(t: TestDaemon, page: Page, origin: string, project: string) {
  const id = await launchAgent(t, project, { approvals: "ask" });
  await page.goto(`${origin}/#/approvals`);
  const card = page.getByRole("listitem", { name: "Bash: touch created.txt" });
  await card.getByRole("button", { name: "Allow" }).click();
  const [resolved] = await waitForKind(t, id, "agent.permission.resolved");
  assert.deepEqual([resolved.decision, resolved.by], ["allow", "owner"]);
  // The prompt is the first agent.message (role user); the reply is the second.
  assert.match(JSON.stringify(await waitForKind(t, id, "agent.message", 2)), /allowed/);
  return id;
}

/** Runs `body`, printing Caddy's log when it fails. */
async function withLog(caddy: Caddy, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    console.error(`${error}\nCaddy's log:\n${caddy.log().slice(-4000)}`);
    throw error;
  }
}

caddyTest(
  "web app through Caddy (tls internal): pairs over https with a Secure cookie and works",
  async () => {
    const port = freePort();
    // Caddy's port is known once it runs: its origin goes into the config before the daemon starts.
    await using caddy = await startCaddy(HOST, `127.0.0.1:${port}`);
    await using t = await daemonBehind(caddy, port);
    const project = await Deno.realPath(await tempHome());
    const browser = await browserFor(caddy);
    try {
      await withLog(caddy, async () => {
        const url = await httpsPairingUrl(t, caddy);

        // Unpaired, the origin serves the app's page but no data (rule 6).
        const stranger = await browser.newPage({ viewport: PHONE });
        const app = await stranger.goto(`${caddy.origin}/`);
        assert.equal(app?.status(), 200);
        assert.match(app!.headers()["content-security-policy"], /default-src 'self'/);
        const anonymous = await stranger.evaluate(async () => {
          const response = await fetch("/api/v1/sessions");
          return { status: response.status, body: await response.json() };
        });
        assert.equal(anonymous.status, 401, JSON.stringify(anonymous));
        assert.equal(anonymous.body.error.code, "not_paired");

        const page = await pairOverHttps(browser, url);
        const id = await allowThrough(t, page, caddy.origin, project);

        // A turn typed in the session view reaches the agent; its answer comes back.
        await page.goto(`${caddy.origin}/#/s/${id}`);
        await page.getByLabel("Message to the agent").fill("over https");
        await page.getByRole("button", { name: "Send" }).click();
        await page.getByText("echo: over https").waitFor();
      });
    } finally {
      await browser.close();
      await removeTree(project);
    }
  },
);

caddyTest(
  "web app through a Caddy that rewrites Host: refused without web.trustProxy, works with it",
  async () => {
    const port = freePort();
    await using caddy = await startCaddy(HOST, `127.0.0.1:${port}`, { rewriteHost: true });
    const project = await Deno.realPath(await tempHome());
    const browser = await browserFor(caddy);
    try {
      await withLog(caddy, async () => {
        {
          // Host is the listener's, so the https Origin a module script is fetched with is not
          // the request's own (rule 4): the app does not even load, nothing pairs.
          await using t = await daemonBehind(caddy, port);
          const page = await browser.newPage({ viewport: PHONE });
          const script = page.waitForResponse((r) => new URL(r.url()).pathname === "/app.js");
          await page.goto(await httpsPairingUrl(t, caddy));
          assert.equal((await script).status(), 403);
          assert.equal((await script).request().headers()["origin"], caddy.origin);
          assert.equal((await page.context().cookies()).length, 0);
          const devices = await t.client.get<{ devices: unknown[] }>("/devices");
          assert.equal(devices.body.devices.length, 0);
          // And what docs/web.md warns of: a read without Origin passes as a local peer's (D23).
          const read = await page.evaluate(async () => (await fetch("/api/v1/sessions")).status);
          assert.equal(read, 200);
          await page.close();
        }
        // With trustProxy the forwarded Host (a web.origins entry) is the request's.
        await using t = await daemonBehind(caddy, port, true);
        const page = await pairOverHttps(browser, await httpsPairingUrl(t, caddy));
        await allowThrough(t, page, caddy.origin, project);
      });
    } finally {
      await browser.close();
      await removeTree(project);
    }
  },
);
