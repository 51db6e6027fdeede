/**
 * Debian's Chromium for the `web` stage: started through the bench's process
 * registry (so a failure, the watchdog or Ctrl-C ends it by pid), headless,
 * on its own profile under the run's root, and driven by playwright-core
 * over the DevTools protocol.
 */
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import type { BenchContext } from "./context.ts";

export const CHROMIUM = "/usr/bin/chromium";

/** A headless Chromium and the browser it is as playwright sees it. */
export interface BenchBrowser {
  readonly browser: Browser;
  close(): Promise<void>;
}

/** Starts Chromium with a DevTools port and connects to it (at most 30 s). */
export async function startChromium(ctx: BenchContext): Promise<BenchBrowser> {
  if (!await Deno.stat(CHROMIUM).then(() => true, () => false)) {
    throw new Error(`the web stage needs ${CHROMIUM} (apt-get install chromium)`);
  }
  const profile = join(ctx.root, "chromium-profile");
  await Deno.mkdir(profile, { recursive: true });
  const process = ctx.registry.spawn("chromium", CHROMIUM, [
    "--headless",
    "--no-sandbox",
    "--no-first-run",
    "--disable-gpu",
    "--disable-extensions",
    "--disable-background-networking",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
    `--user-data-dir=${profile}`,
    "about:blank",
  ]);
  const deadline = performance.now() + 30_000;
  let endpoint: string | null = null;
  while (endpoint === null) {
    endpoint = /DevTools listening on (ws:\/\/\S+)/.exec(process.stderr())?.[1] ?? null;
    if (endpoint !== null) break;
    if (process.hasExited() || performance.now() > deadline) {
      await process.stop("SIGKILL");
      throw new Error(`Chromium did not start:\n${process.stderr().slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const browser = await chromium.connectOverCDP(endpoint);
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      await process.stop("SIGTERM", 5000);
    },
  };
}
