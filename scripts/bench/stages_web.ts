/**
 * The web face's budgets (D30), in Debian's headless Chromium against a real
 * `svc serve --tcp` with a paired device, each against a baseline of the
 * same run:
 *
 * - the app's script gzipped (goal ≤ 250 KB), against a bare React 19 app
 *   bundled the same way (`deno bundle --platform=browser --minify`);
 * - first meaningful paint, cold (goal ≤ 800 ms): a fresh browser context
 *   (no cache) opening `/#/fleet` of a store of 1,000 sessions, to the frame
 *   that shows the fleet's list, against a bare page of one heading and list
 *   served from this process;
 * - event → DOM with 50 live sessions, p99 (goal ≤ 150 ms): 49 tickers write
 *   20 lines/s each while the page shows the 50th's session view; from the
 *   timestamp the ticker wrote into its line (before the daemon read it) to
 *   the animation frame after the line is in the transcript (a
 *   MutationObserver), against a bare SSE reader of the same session, over
 *   the same lines; the details also count from the daemon's own event time
 *   (`created_at`);
 * - an idle paired page (goal ≈ 0: under 1 % of one core): the daemon's CPU
 *   while the fleet is open and nothing runs, against the same daemon with
 *   no page; and the page's own main-thread time (the DevTools protocol's
 *   `Performance.getMetrics` TaskDuration), against the bare page idle.
 */
import { join } from "node:path";
import type { Browser, BrowserContext, Cookie, Page } from "playwright-core";
import { startChromium } from "./chromium.ts";
import {
  type BenchContext,
  harnessConfig,
  launch,
  makeHome,
  projectDir,
  readBack,
} from "./context.ts";
import { UnixHttpClient } from "./http_client.ts";
import { cpuSeconds } from "./load.ts";
import { startSvc } from "./processes.ts";
import { type Figure, figure, median, percentile } from "./report.ts";
import { seedSessions } from "./seed_rows.ts";
import { SseConnection } from "./sse_client.ts";
import { BARE_PAGE, FIRST_PAINT_DONE, FIRST_PAINT_PROBE, LATENCY_PROBE } from "./web_probes.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const SEEDED_SESSIONS = 1000;
const LIVE_SESSIONS = 50;
const KB = 1000;

/** A free loopback TCP port (bound once, then released). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Bytes of `data` gzipped (CompressionStream, its default level). */
async function gzippedBytes(data: Uint8Array): Promise<number> {
  const stream = new Blob([data as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/** A bare React 19 app (one element rendered), bundled as `deno task web:build` bundles the app. */
async function bareReactBundle(ctx: BenchContext): Promise<Uint8Array> {
  const dir = join(ctx.root, "bare-react");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    join(dir, "main.js"),
    `import { createElement } from "react";
import { createRoot } from "react-dom/client";
createRoot(document.getElementById("root")).render(createElement("h1", null, "Fleet"));
`,
  );
  const out = join(dir, "app.js");
  const process = ctx.registry.spawn("deno bundle", Deno.execPath(), [
    "bundle",
    "--platform=browser",
    "--minify",
    "--config",
    join(REPO, "deno.json"),
    "-o",
    out,
    join(dir, "main.js"),
  ]);
  const status = await process.exited;
  if (!status.success) throw new Error(`bundling bare React failed:\n${process.stderr()}`);
  return await Deno.readFile(out);
}

/** Pairs a device with `scope` the way a page does; returns its cookie. */
async function pairDevice(
  browser: Browser,
  client: UnixHttpClient,
  scope: string,
): Promise<Cookie> {
  const code = await client.json<{ url: string }>("POST", "/api/v1/devices/pairing-codes", {
    name: "bench",
    scope,
  });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(code.url);
    await page.getByRole("heading", { name: "Fleet" }).waitFor({ timeout: 30_000 });
    const cookie = (await context.cookies()).find((each) => each.name === "svc_device");
    if (!cookie) throw new Error("pairing set no svc_device cookie");
    return cookie;
  } finally {
    await context.close();
  }
}

/** A fresh context (no cache) holding the device's cookie. */
async function freshContext(browser: Browser, cookie: Cookie | null): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  if (cookie) await context.addCookies([cookie]);
  return context;
}

/** One cold load of `url`: first-contentful-paint, LCP and the frame showing the fleet (ms). */
async function coldLoad(browser: Browser, cookie: Cookie | null, url: string) {
  const context = await freshContext(browser, cookie);
  try {
    await context.addInitScript(FIRST_PAINT_PROBE);
    const page = await context.newPage();
    await page.goto(url);
    // Polled by evaluate: waitForFunction evaluates its text with eval, which the app's CSP refuses.
    const deadline = performance.now() + 30_000;
    while (!await page.evaluate<boolean>(FIRST_PAINT_DONE)) {
      if (performance.now() > deadline) throw new Error(`no first paint of ${url} in 30 s`);
      await sleep(20);
    }
    return await page.evaluate<{ fcp: number; lcp: number | null; fleet: number }>(
      "globalThis.__svcBench",
    );
  } finally {
    await context.close();
  }
}

/** The page's main-thread busy seconds so far (DevTools `Performance.getMetrics`). */
async function pageTaskSeconds(page: Page): Promise<() => Promise<number>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  return async () => {
    const { metrics } = await cdp.send("Performance.getMetrics");
    return metrics.find((metric) => metric.name === "TaskDuration")?.value ?? NaN;
  };
}

/** Share of one core used over `ms` by the daemon (`pid`) and the page (`task`). */
async function idleShares(pid: number, task: () => Promise<number>, ms: number) {
  const daemonBefore = cpuSeconds(pid) ?? NaN;
  const pageBefore = await task();
  const started = performance.now();
  await sleep(ms);
  const seconds = (performance.now() - started) / 1000;
  return {
    daemon: ((cpuSeconds(pid) ?? NaN) - daemonBefore) / seconds,
    page: (await task() - pageBefore) / seconds,
  };
}

/** Serves the bare page on a loopback port from this process until `close()`. */
function serveBarePage(): { url: string; close(): Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(BARE_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  return { url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}

export async function webBudgets(ctx: BenchContext): Promise<Figure[]> {
  // 1. The bundle.
  const appBytes = await Deno.readFile(join(REPO, "web/dist/app.js"));
  const appGzip = await gzippedBytes(appBytes);
  const bareGzip = await gzippedBytes(await bareReactBundle(ctx));
  ctx.log(`web: app.js ${appBytes.length} B, ${appGzip} B gzipped (bare React ${bareGzip} B)`);

  const port = freePort();
  const origin = `http://127.0.0.1:${port}`;
  const home = await makeHome(ctx, "web", harnessConfig(ctx));
  seedSessions(home, SEEDED_SESSIONS);
  const svc = await startSvc(ctx.registry, home, {
    cpuProfDir: ctx.cpuProfDir ?? undefined,
    args: ["--tcp", `127.0.0.1:${port}`],
  });
  // A new connection per phase: the daemon closes one left idle through the idle windows.
  let client = await UnixHttpClient.connect(svc.socket);
  const chromium = await startChromium(ctx);
  const bare = serveBarePage();
  const browser = chromium.browser;
  const runs = ctx.quick ? 3 : 7;
  const idleMs = ctx.quick ? 5_000 : 60_000;
  try {
    const cookie = await pairDevice(browser, client, "read");

    // 2. Idle: the daemon alone (a bare page open elsewhere), then with the fleet open.
    const barePage = await (await freshContext(browser, null)).newPage();
    await barePage.goto(bare.url);
    await sleep(2000);
    const bareIdle = await idleShares(svc.process.pid, await pageTaskSeconds(barePage), idleMs);
    await barePage.context().close();
    const fleetPage = await (await freshContext(browser, cookie)).newPage();
    await fleetPage.goto(`${origin}/#/fleet`);
    await fleetPage.locator("ul.fleet > li").first().waitFor({ timeout: 30_000 });
    await sleep(2000);
    let idleRequests = 0;
    fleetPage.on("request", () => idleRequests++);
    const idle = await idleShares(svc.process.pid, await pageTaskSeconds(fleetPage), idleMs);
    await fleetPage.context().close();
    ctx.log(
      `web: idle daemon ${(idle.daemon * 100).toFixed(2)} % with the fleet open, ${
        (bareIdle.daemon * 100).toFixed(2)
      } % without, ${idleRequests} requests from the page; page ${
        (idle.page * 100).toFixed(2)
      } % (bare ${(bareIdle.page * 100).toFixed(2)} %)`,
    );

    // 3. First meaningful paint, cold: a fresh context per run, the first run counted too.
    const loads = [];
    const bareLoads = [];
    for (let run = 0; run < runs; run++) {
      loads.push(await coldLoad(browser, cookie, `${origin}/#/fleet`));
      bareLoads.push(await coldLoad(browser, null, bare.url));
    }
    ctx.log(`web: fleet shown ${loads.map((load) => load.fleet.toFixed(0)).join(", ")} ms`);

    // 4. Event → DOM with 50 live sessions: 49 busy ones and the one on screen.
    const project = await projectDir(ctx);
    client.close();
    client = await UnixHttpClient.connect(svc.socket);
    const ticks = ctx.quick ? 100 : 300;
    const tickMs = 100;
    const busyLines = Math.ceil((ticks * tickMs + 30_000) / 50);
    for (let i = 0; i < LIVE_SESSIONS - 1; i++) {
      await launch(client, { projectRoot: project, harness: "ticker", prompt: `${busyLines} 50` });
    }
    const watchedId = await launch(client, {
      projectRoot: project,
      harness: "ticker",
      prompt: `${ticks} ${tickMs}`,
    });
    const sseSeen = new Map<number, number>();
    const sse = await SseConnection.open(
      svc.socket,
      `/api/v1/sessions/${watchedId}/events/stream`,
    );
    const sseReading = sse.readAll((frames, at) => {
      for (const frame of frames) {
        for (const match of frame.data.matchAll(/tick (\d+) (\d+\.\d+)/g)) {
          const n = Number(match[1]);
          if (!sseSeen.has(n)) sseSeen.set(n, at - Number(match[2]));
        }
      }
    });
    const page = await (await freshContext(browser, cookie)).newPage();
    await page.goto(`${origin}/#/s/${watchedId}`);
    await page.getByRole("log", { name: "Transcript" }).getByText(/^tick \d+ /).first()
      .waitFor({ timeout: 60_000 });
    await sleep(1000);
    const floor = await page.evaluate<number>(LATENCY_PROBE);
    const deadline = performance.now() + ticks * tickMs + 60_000;
    let shown: Array<[number, number]> = [];
    while (performance.now() < deadline) {
      shown = await page.evaluate<Array<[number, number]>>("globalThis.__svcLatencies()");
      if (shown.some(([n]) => n === ticks - 1)) break;
      await sleep(500);
    }
    await sleep(500);
    shown = await page.evaluate<Array<[number, number]>>("globalThis.__svcLatencies()");
    sse.close();
    await sseReading.catch(() => {});
    await page.context().close();
    // The first 5 ticks after the probe are warm-up; the baseline counts the same ticks.
    const counted = shown.filter(([n]) => n > floor + 5);
    const domLatencies = counted.map(([, ms]) => ms);
    const sseLatencies = counted.flatMap(([n]) => sseSeen.has(n) ? [sseSeen.get(n)!] : []);
    // The same lines from the daemon's own event time (`created_at`, whole ms) instead.
    const written = new Map<number, { at: number; stored: number }>();
    await readBack(client, watchedId, (event) => {
      if (event.kind !== "output") return;
      for (const match of JSON.parse(event.payload_json).data.matchAll(/tick (\d+) (\d+\.\d+)/g)) {
        written.set(Number(match[1]), {
          at: Number(match[2]),
          stored: Date.parse(event.created_at),
        });
      }
    });
    const fromEvent = counted.flatMap(([n, ms]) => {
      const line = written.get(n);
      return line === undefined ? [] : [line.at + ms - line.stored];
    });
    ctx.log(
      `web: event → DOM p99 ${percentile(domLatencies, 99).toFixed(1)} ms (SSE ${
        percentile(sseLatencies, 99).toFixed(1)
      }; from the daemon's event time ${
        percentile(fromEvent, 99).toFixed(1)
      }), ${domLatencies.length} of ${ticks - floor - 1} ticks after tick ${floor}`,
    );

    return [
      figure({
        id: "web_bundle_gzip_kb",
        label: "web app script (web/dist/app.js) gzipped",
        unit: "KB",
        better: "lower",
        svc: appGzip / KB,
        baseline: bareGzip / KB,
        baselineLabel: "a bare React 19 app bundled the same way",
        target: { on: "svc", op: "<=", value: 250 },
        details: { rawBytes: appBytes.length, gzipBytes: appGzip, baselineGzipBytes: bareGzip },
      }),
      figure({
        id: "web_first_meaningful_paint_ms",
        label:
          `web app cold: navigation → the frame showing the fleet (${SEEDED_SESSIONS} sessions in the store), median of ${runs}`,
        unit: "ms",
        better: "lower",
        svc: median(loads.map((load) => load.fleet)),
        baseline: median(bareLoads.map((load) => load.fleet)),
        baselineLabel: "a bare page of one heading and list, the same way",
        target: { on: "svc", op: "<=", value: 800 },
        details: {
          runs: loads.map((load) => load.fleet),
          firstContentfulPaint: loads.map((load) => load.fcp),
          largestContentfulPaint: loads.map((load) => load.lcp),
          baselineRuns: bareLoads.map((load) => load.fleet),
        },
      }),
      figure({
        id: "web_event_to_dom_p99_ms",
        label:
          `web app: a line of the session on screen in its transcript, ${LIVE_SESSIONS} live sessions, p99`,
        unit: "ms",
        better: "lower",
        svc: percentile(domLatencies, 99),
        baseline: percentile(sseLatencies, 99),
        baselineLabel: "a bare SSE reader of the same session, same lines",
        target: { on: "svc", op: "<=", value: 150 },
        details: {
          lines: domLatencies.length,
          p50: percentile(domLatencies, 50),
          max: Math.max(...domLatencies),
          baselineP50: percentile(sseLatencies, 50),
          fromDaemonEventP50: percentile(fromEvent, 50),
          fromDaemonEventP99: percentile(fromEvent, 99),
        },
      }),
      figure({
        id: "web_idle_daemon_cpu_percent",
        label: `daemon CPU with an idle paired page (the fleet) open, over ${
          idleMs / 1000
        } s (% of one core)`,
        unit: "%",
        better: "lower",
        svc: idle.daemon * 100,
        baseline: bareIdle.daemon * 100,
        baselineLabel: "the same daemon, no page of it open",
        target: { on: "svc", op: "<=", value: 1 },
        // /proc/<pid>/stat counts CPU in 10 ms ticks.
        details: {
          resolutionPercent: 0.01 / (idleMs / 1000) * 100,
          requestsWhileIdle: idleRequests,
        },
      }),
      figure({
        id: "web_idle_page_cpu_percent",
        label: `the idle fleet page's main thread over ${idleMs / 1000} s (% of one core)`,
        unit: "%",
        better: "lower",
        svc: idle.page * 100,
        baseline: bareIdle.page * 100,
        baselineLabel: "the bare page idle",
        target: { on: "svc", op: "<=", value: 1 },
      }),
    ];
  } finally {
    await bare.close();
    await chromium.close();
    client.close();
    await svc.stop();
  }
}
