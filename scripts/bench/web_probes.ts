/**
 * What the `web` stage runs inside the page (as source text: it runs in
 * Chromium, not in Deno). Times are the page's `performance.now()` (from the
 * navigation's start) or, for latencies, `performance.timeOrigin + now()`,
 * the wall clock the ticker harness stamps its lines with.
 */

/**
 * An init script (before any of the page's own): records first-contentful-
 * paint and largest-contentful-paint, and when the fleet's list is first in
 * the DOM, the end of the frame that shows it (a task posted from the next
 * animation frame runs after that frame is drawn): `__svcBench`.
 */
export const FIRST_PAINT_PROBE = `(() => {
  const bench = { fcp: null, lcp: null, fleet: null };
  globalThis.__svcBench = bench;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.name === "first-contentful-paint") bench.fcp = entry.startTime;
    }
  }).observe({ type: "paint", buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) bench.lcp = entry.startTime;
  }).observe({ type: "largest-contentful-paint", buffered: true });
  const observer = new MutationObserver(() => {
    if (!document.querySelector("ul.fleet > li")) return;
    observer.disconnect();
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { bench.fleet = performance.now(); };
      channel.port2.postMessage(0);
    });
  });
  observer.observe(document, { childList: true, subtree: true });
})()`;

/** True once the first-paint probe has all its times. */
export const FIRST_PAINT_DONE =
  `globalThis.__svcBench?.fcp != null && globalThis.__svcBench?.fleet != null`;

/**
 * Installed on a session view whose transcript already shows ticks: every
 * `tick N T` line added later (N above the highest shown now) is stamped at
 * the next animation frame, the frame that draws it; `__svcLatencies()` is
 * `[N, stamp − T]` for each.
 */
export const LATENCY_PROBE = `(() => {
  const log = document.querySelector('[role="log"]');
  const pattern = /tick (\\d+) (\\d+\\.\\d+)/g;
  let floor = -1;
  for (const match of log.textContent.matchAll(pattern)) floor = Math.max(floor, Number(match[1]));
  const shown = new Map();
  let pending = [];
  const scan = (node) => {
    for (const match of (node.textContent ?? "").matchAll(pattern)) {
      const n = Number(match[1]);
      if (n > floor && !shown.has(n)) {
        shown.set(n, null);
        pending.push([n, Number(match[2])]);
      }
    }
  };
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === "characterData") scan(record.target);
      for (const node of record.addedNodes) scan(node);
    }
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    requestAnimationFrame(() => {
      const at = performance.timeOrigin + performance.now();
      for (const [n, written] of batch) shown.set(n, at - written);
    });
  }).observe(log, { childList: true, subtree: true, characterData: true });
  globalThis.__svcLatencies = () =>
    [...shown].filter(([, latency]) => latency !== null);
  return floor;
})()`;

/** The bare page of the first-paint baseline: what the fleet's first frame holds, nothing else. */
export const BARE_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>bare</title>
</head><body><main><h1>Fleet</h1><ul class="fleet"><li>bare page</li></ul></main></body></html>`;
