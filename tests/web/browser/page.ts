/**
 * The web app (D30) in a real Chromium against a real daemon on a TCP
 * listener, for the browser tests: a daemon with the scripted agent, a
 * browser page at a viewport, pairing through `svc devices pair --json`
 * as the owner would. Without /usr/bin/chromium the tests are skipped, and
 * say so.
 */
import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import {
  fixtureHarnesses,
  freePort,
  startTestDaemon,
  type TestDaemon,
} from "../../helpers/daemon.ts";
import { removeTree, tempHome } from "../../helpers/home.ts";
import { agentConfig } from "../../helpers/scripted_agent.ts";

export const CHROMIUM = "/usr/bin/chromium";

/** Whether Chromium is installed (`apt-get install -y chromium`). */
export const hasChromium = await Deno.stat(CHROMIUM).then(() => true, () => false);
if (!hasChromium) {
  console.error(`SKIPPED: the web app's browser tests need ${CHROMIUM} (apt-get install chromium)`);
}

export const PHONE = { width: 375, height: 667 };
export const DESKTOP = { width: 1280, height: 800 };

/** A daemon with the scripted agent on a TCP listener, and a browser. */
export interface Rig {
  t: TestDaemon;
  port: number;
  origin: string;
  browser: Browser;
  /** A new page at `viewport`. */
  page(viewport?: { width: number; height: number }): Promise<Page>;
  /** Pairs `page` from the URL `svc devices pair --json` prints; the device's scope. */
  pair(page: Page, scope?: string): Promise<{ url: string }>;
  /** A new project folder for agents (its real path), removed with the rig. */
  project(): Promise<string>;
}

/** The rig's daemon; `config` adds keys to its config.json (`projectRoots`, say). */
export async function startRig(
  options: { config?: Record<string, unknown> } = {},
): Promise<Rig & AsyncDisposable> {
  const port = freePort();
  const t = await startTestDaemon({
    tcp: { hostname: "127.0.0.1", port },
    configJson: agentConfig({
      harnesses: { ...agentConfig().harnesses as object, ...fixtureHarnesses() },
      ...options.config,
    }),
  });
  const browser = await launchChromium();
  const projects: string[] = [];
  return {
    t,
    port,
    origin: `http://127.0.0.1:${port}`,
    browser,
    page: (viewport = PHONE) => browser.newPage({ viewport }),
    async pair(page, scope = "operate") {
      const printed = await pairingUrl(t.home, scope);
      await page.goto(printed.url);
      await page.getByRole("heading", { name: "Fleet" }).waitFor();
      return printed;
    },
    async project() {
      const project = await Deno.realPath(await tempHome());
      projects.push(project);
      return project;
    },
    async [Symbol.asyncDispose]() {
      await browser.close();
      await t[Symbol.asyncDispose]();
      for (const project of projects) await removeTree(project);
    },
  };
}

/** Debian's Chromium, headless; `args` are more command-line switches. */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", ...args] });
}

/** What `svc devices pair --json` prints, run as the owner runs it. */
export async function pairingUrl(
  home: string,
  scope: string,
): Promise<{ url: string; urls: string[] }> {
  const main = new URL("../../../main.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "devices", "pair", "--json", "--scope", scope, "--name", "browser"],
    env: { SVC_HOME: home, NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  return JSON.parse(text);
}

/**
 * Where screenshots go when `SVC_WEB_SCREENSHOTS` is set (docs/web/), else
 * nowhere: `name-phone.png` and `name-desktop.png`, the page shown at both
 * sizes (the other one for the moment of its picture), or only at the page's
 * own size with `bothSizes: false` (the keys' help: a phone has no keys).
 */
export async function screenshot(
  page: Page,
  name: string,
  { bothSizes = true }: { bothSizes?: boolean } = {},
): Promise<void> {
  if (!Deno.env.get("SVC_WEB_SCREENSHOTS")) return;
  const dir = new URL("../../../docs/web/", import.meta.url).pathname;
  await Deno.mkdir(dir, { recursive: true });
  const own = page.viewportSize()!;
  const sizes = own.width <= PHONE.width ? ["phone", "desktop"] : ["desktop", "phone"];
  for (const size of bothSizes ? sizes : sizes.slice(0, 1)) {
    await page.setViewportSize(size === "phone" ? PHONE : DESKTOP);
    // A frame for the layout of the new size before the picture.
    await page.evaluate("new Promise((resolve) => requestAnimationFrame(resolve))");
    await page.screenshot({ path: `${dir}${name}-${size}.png` });
  }
  await page.setViewportSize(own);
}
