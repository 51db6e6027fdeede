/**
 * The web app through a reverse proxy with TLS (issue 34, D30 "remote
 * reach"): Debian's Caddy with `tls internal` on loopback in front of the
 * daemon's TCP listener, `web.origins` naming Caddy's https origin. Chromium
 * resolves the origin's name to 127.0.0.1 (`--host-resolver-rules`) and
 * accepts certificates under Caddy's local CA only (the key of its intermediate in
 * `--ignore-certificate-errors-spki-list`). The printed https URL pairs; the
 * cookie is `Secure`, `HttpOnly` and `SameSite=Strict`; the fleet loads; an
 * approval and a typed turn go through; without the cookie the origin serves
 * only the app's files and the pairing exchange.
 */
import assert from "node:assert/strict";
import { hasCaddy, startCaddy } from "../../helpers/caddy.ts";
import { fixtureHarnesses, freePort, startTestDaemon } from "../../helpers/daemon.ts";
import { removeTree, tempHome } from "../../helpers/home.ts";
import { agentConfig, launchAgent, waitForKind } from "../../helpers/scripted_agent.ts";
import { hasChromium, launchChromium, pairingUrl, PHONE } from "./page.ts";

const HOST = "box.svc.test";

Deno.test({
  name: "web app through Caddy (tls internal): pairs over https with a Secure cookie and works",
  ignore: !hasChromium || !hasCaddy,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const port = freePort();
    // Caddy's port is only known once it runs: its origin goes into the config before the daemon starts.
    await using caddy = await startCaddy(HOST, `127.0.0.1:${port}`);
    await using t = await startTestDaemon({
      tcp: { hostname: "127.0.0.1", port },
      configJson: agentConfig({
        harnesses: { ...agentConfig().harnesses as object, ...fixtureHarnesses() },
        web: { origins: [caddy.origin] },
      }),
    });
    const project = await Deno.realPath(await tempHome());
    const browser = await launchChromium([
      `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
      `--ignore-certificate-errors-spki-list=${caddy.caSpki}`,
    ]);
    try {
      const { urls } = await pairingUrl(t.home, "operate");
      const url = urls.find((each) => each.startsWith(`${caddy.origin}/pair#`));
      assert.ok(url, `no pairing URL for ${caddy.origin}: ${JSON.stringify(urls)}`);

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

      const page = await browser.newPage({ viewport: PHONE });
      await page.goto(url);
      await page.getByRole("heading", { name: "Fleet" }).waitFor();
      assert.equal(new URL(page.url()).origin, caddy.origin);
      const cookies = await page.context().cookies(caddy.origin);
      const cookie = cookies.find((each) => each.name === "svc_device");
      assert.ok(cookie, JSON.stringify(cookies));
      assert.deepEqual(
        [cookie.secure, cookie.httpOnly, cookie.sameSite, cookie.path, cookie.domain],
        [true, true, "Strict", "/", HOST],
      );
      assert.ok(cookie.expires > Date.now() / 1000 + 86_400, "Max-Age: the device's life");
      assert.doesNotMatch(await page.evaluate<string>("document.cookie"), /svc_device/);

      // A mutation through the proxy: a request allowed from its card, and the tool runs.
      const id = await launchAgent(t, project, { approvals: "ask" });
      await page.goto(`${caddy.origin}/#/approvals`);
      const card = page.getByRole("listitem", { name: "Bash: touch created.txt" });
      await card.getByRole("button", { name: "Allow" }).click();
      const [resolved] = await waitForKind(t, id, "agent.permission.resolved");
      assert.deepEqual([resolved.decision, resolved.by], ["allow", "owner"]);
      assert.match(JSON.stringify(await waitForKind(t, id, "agent.message")), /allowed/);

      // A turn typed in the session view reaches the agent; its answer streams back.
      await page.goto(`${caddy.origin}/#/s/${id}`);
      await page.getByLabel("Message to the agent").fill("over https");
      await page.getByRole("button", { name: "Send" }).click();
      await page.getByText("echo: over https").waitFor();
    } catch (error) {
      console.error(`${error}\nCaddy's log:\n${caddy.log().slice(-4000)}`);
      throw error;
    } finally {
      await browser.close();
      await removeTree(project);
    }
  },
});
