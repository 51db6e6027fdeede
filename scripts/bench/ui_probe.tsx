/**
 * The `svc ui` side of the `ui` bench stage (D25), in its own process: the
 * real App, store, sync loop and client on the daemon's socket, rendered by
 * Ink (interactive, 120×40, at most 30 frames a second, as on a terminal)
 * into a terminal stand-in that timestamps every write. Prints one JSON
 * line. Bounded in time.
 *
 *   ui_probe.tsx frame SOCKET                 ms from process start to the first full frame
 *   ui_probe.tsx latency SOCKET SESSION MS    per `tick n <epoch ms>` line: first seen − written
 *   ui_probe.tsx run SOCKET MS                the fleet on screen for MS (the stage reads CPU, RSS)
 *   ui_probe.tsx bare MS                      a bare Ink app of one line, for MS (the floor)
 *   ui_probe.tsx big SOCKET SESSION IDLE_MS   the session (a 10 × 300k conversation) opened: its own CPU
 *                                             over IDLE_MS, then key → next frame for PgUp, k, j, PgDn
 *   ui_probe.tsx barekeys                     key → next frame in a bare Ink app counting keys (the floor)
 *   ui_probe.tsx approvals SOCKET COUNT MS    the approvals view: per `approve-probe-<n>` request,
 *                                             first seen − its requestedAt; each is denied once seen
 */
import { EventEmitter } from "node:events";
import { type Instance, render, Text, useInput } from "ink";
import { useState } from "react";
import { SvcClient } from "../../src/client/client.ts";
import { UiActions } from "../../src/ui/actions.ts";
import { App } from "../../src/ui/app.tsx";
import { FocusStore } from "../../src/ui/focus.ts";
import { HostsStore } from "../../src/ui/hosts_store.ts";
import type { SessionRecord } from "../../src/ui/model.ts";
import { UiStore } from "../../src/ui/store.ts";
import { UiSync } from "../../src/ui/sync.ts";
import { cpuSeconds } from "./load.ts";

/** A 120×40 terminal that keeps nothing but calls `onWrite` with each frame's text. */
class Terminal extends EventEmitter {
  readonly isTTY = true;
  readonly columns = 120;
  readonly rows = 40;
  constructor(readonly onWrite: (text: string) => void) {
    super();
  }
  /** An empty write (Ink's flush waits on one) is not a frame: only its callback runs. */
  write = (text: string, done?: () => void) => {
    if (text !== "") this.onWrite(text);
    done?.();
    return true;
  };
}

/** A terminal's keyboard: `press` types as a terminal sends keys. */
class Keyboard extends EventEmitter {
  readonly isTTY = true;
  #data: string | null = null;
  press(data: string) {
    this.#data = data;
    this.emit("readable");
    this.emit("data", data);
  }
  setRawMode() {}
  setEncoding() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
  read() {
    const data = this.#data;
    this.#data = null;
    return data;
  }
}

const sinceStart = () => performance.now();
const [mode, ...args] = Deno.args;

function mount(socket: string, onWrite: (text: string) => void) {
  const client = new SvcClient({ socketPath: socket });
  const store = new UiStore();
  const focus = new FocusStore();
  const sync = new UiSync({ client, store, focus });
  const stop = new AbortController();
  const running = sync.run(stop.signal);
  const terminal = new Terminal(onWrite);
  const keyboard = new Keyboard();
  // As src/ui/run.tsx renders it.
  const instance: Instance = render(
    <App
      {...{ focus, sync }}
      store={new HostsStore([{ name: "local", store }])}
      flushFrame={() => void instance.waitUntilRenderFlush()}
      actions={new UiActions(client)}
      stalledAfterMs={120_000}
      cwd={Deno.cwd()}
      color
      terminal={{ title: () => {}, bell: () => {} }}
    />,
    {
      stdout: terminal as unknown as NodeJS.WriteStream,
      stdin: keyboard as unknown as NodeJS.ReadStream,
      interactive: true,
      patchConsole: false,
      exitOnCtrlC: false,
      maxFps: 30,
    },
  );
  return {
    client,
    store,
    sync,
    keyboard,
    async close() {
      stop.abort();
      sync.stop();
      instance.unmount();
      await Promise.race([running, new Promise((r) => setTimeout(r, 300))]);
      client.close();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function firstFrame(socket: string): Promise<unknown> {
  let done!: (ms: number) => void;
  const seen = new Promise<number>((resolve) => done = resolve);
  let text = "";
  const ui = mount(socket, (chunk) => {
    text += chunk;
    // The header with the daemon's facts and the fleet's count: the lists are on screen.
    if (/svc \S+ · up/.test(text) && /sessions? (live|\()/.test(text)) done(sinceStart());
  });
  const ms = await Promise.race([seen, sleep(20_000).then(() => NaN)]);
  await ui.close();
  return { firstFrameMs: ms };
}

async function latency(socket: string, sessionId: string, durationMs: number): Promise<unknown> {
  const firstSeen = new Map<number, number>();
  const latencies: number[] = [];
  /** Ticks written before the session was on screen arrive as its history: not counted. */
  let followingSince = Infinity;
  const ui = mount(socket, (chunk) => {
    const now = performance.timeOrigin + performance.now();
    for (const match of chunk.matchAll(/tick (\d+) (\d+\.\d+)/g)) {
      const n = Number(match[1]);
      if (firstSeen.has(n)) continue;
      firstSeen.set(n, now);
      const written = Number(match[2]);
      if (written >= followingSince) latencies.push(now - written);
    }
  });
  const deadline = Date.now() + 10_000;
  let session: SessionRecord | undefined;
  while (!(session = ui.store.snapshot().sessions.get(sessionId)) && Date.now() < deadline) {
    await sleep(10);
  }
  if (!session) throw new Error(`Session ${sessionId} never reached the UI`);
  // The only live session is the fleet's first row: Enter opens it, as a user would.
  await sleep(200);
  ui.keyboard.press("\r");
  await sleep(1000);
  followingSince = performance.timeOrigin + performance.now();
  await sleep(durationMs);
  await ui.close();
  return { latencies };
}

/** Waits until `sessionId` is in the UI's store, then opens it from the fleet's first row. */
async function openSession(ui: ReturnType<typeof mount>, sessionId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ui.store.snapshot().sessions.has(sessionId) && Date.now() < deadline) await sleep(10);
  if (!ui.store.snapshot().sessions.has(sessionId)) {
    throw new Error(`Session ${sessionId} never reached the UI`);
  }
  await sleep(200);
  ui.keyboard.press("\r");
}

const PAGE_UP = "\x1b[5~";
const PAGE_DOWN = "\x1b[6~";

async function big(socket: string, sessionId: string, idleMs: number): Promise<unknown> {
  let screen = "";
  let writes = 0;
  let nextWrite: (() => void) | null = null;
  const ui = mount(socket, (chunk) => {
    writes++;
    screen = (screen + chunk).slice(-20_000);
    nextWrite?.();
  });
  await openSession(ui, sessionId);
  // The newest rows of the conversation: the end of its last line.
  const deadline = Date.now() + 30_000;
  while (!screen.includes("end of 9") && Date.now() < deadline) await sleep(20);
  if (!screen.includes("end of 9")) throw new Error(`The conversation never showed:\n${screen}`);
  await sleep(1500);
  const writesBefore = writes;
  const cpuBefore = cpuSeconds(Deno.pid) ?? NaN;
  const idleStarted = performance.now();
  await sleep(idleMs);
  const idleSeconds = (performance.now() - idleStarted) / 1000;
  const idleCoreShare = ((cpuSeconds(Deno.pid) ?? NaN) - cpuBefore) / idleSeconds;
  const idleWrites = writes - writesBefore;
  const latencies = await timeKeys(ui.keyboard, (onWrite) => nextWrite = onWrite);
  await ui.close();
  return { idleCoreShare, idleSeconds, idleWrites, latencies };
}

const KEYS = [
  ...Array(5).fill(PAGE_UP),
  ...Array(5).fill("k"),
  ...Array(5).fill("j"),
  ...Array(5).fill(PAGE_DOWN),
];

/** Per key of KEYS: ms from its press to the next frame written (NaN: none within 2 s). */
async function timeKeys(
  keyboard: Keyboard,
  onNextWrite: (callback: (() => void) | null) => void,
): Promise<number[]> {
  const latencies: number[] = [];
  for (const key of KEYS) {
    const shown = new Promise<number>((resolve) => onNextWrite(() => resolve(performance.now())));
    const pressed = performance.now();
    keyboard.press(key);
    latencies.push((await Promise.race([shown, sleep(2000).then(() => NaN)])) - pressed);
    onNextWrite(null);
    await sleep(150);
  }
  return latencies;
}

function KeyCounter() {
  const [count, setCount] = useState(0);
  useInput(() => setCount((n) => n + 1));
  return <Text>svc {count}</Text>;
}

async function bareKeys(): Promise<unknown> {
  let nextWrite: (() => void) | null = null;
  const keyboard = new Keyboard();
  const instance = render(<KeyCounter />, {
    stdout: new Terminal(() => nextWrite?.()) as unknown as NodeJS.WriteStream,
    stdin: keyboard as unknown as NodeJS.ReadStream,
    interactive: true,
    patchConsole: false,
    exitOnCtrlC: false,
    maxFps: 30,
  });
  await sleep(500);
  const latencies = await timeKeys(keyboard, (onWrite) => nextWrite = onWrite);
  instance.unmount();
  return { latencies };
}

async function approvals(socket: string, count: number, durationMs: number): Promise<unknown> {
  const seen = new Map<number, number>();
  const shown: { requestId: string; requestedAt: number; latency: number }[] = [];
  let ui: ReturnType<typeof mount> | null = null;
  /** Requests asked before the view was on screen wait for the UI to start: not counted. */
  let watchingSince = Infinity;
  let early = 0;
  const answer = (n: number, at: number) => {
    const exact = new RegExp(`approve-probe-${n}\\b`);
    const approval = ui?.store.snapshot().approvals.find((a) => exact.test(a.summary));
    if (!approval) return;
    const requestedAt = Date.parse(approval.requestedAt);
    if (requestedAt >= watchingSince) {
      shown.push({ requestId: approval.requestId, requestedAt, latency: at - requestedAt });
    } else early++;
    void new UiActions(ui!.client).answer(approval, "deny");
  };
  ui = mount(socket, (chunk) => {
    const now = performance.timeOrigin + performance.now();
    for (const match of chunk.matchAll(/approve-probe-(\d+)/g)) {
      const n = Number(match[1]);
      if (seen.has(n)) continue;
      seen.set(n, now);
      answer(n, now);
    }
  });
  await sleep(500);
  ui.keyboard.press("3");
  await sleep(500);
  watchingSince = performance.timeOrigin + performance.now();
  const deadline = Date.now() + durationMs;
  while (seen.size < count && Date.now() < deadline) await sleep(50);
  await ui.close();
  return { shown, seen: seen.size, early };
}

async function run(socket: string, durationMs: number): Promise<unknown> {
  let writes = 0;
  const ui = mount(socket, () => writes++);
  await sleep(durationMs);
  const sessions = ui.store.snapshot().sessions.size;
  await ui.close();
  return { writes, sessions };
}

async function bare(durationMs: number): Promise<unknown> {
  let firstFrameMs = NaN;
  const instance = render(<Text>svc</Text>, {
    stdout: new Terminal(() => {
      if (Number.isNaN(firstFrameMs)) firstFrameMs = sinceStart();
    }) as unknown as NodeJS.WriteStream,
    stdin: new Keyboard() as unknown as NodeJS.ReadStream,
    interactive: true,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  await sleep(durationMs);
  instance.unmount();
  return { firstFrameMs };
}

const result = mode === "frame"
  ? await firstFrame(args[0])
  : mode === "latency"
  ? await latency(args[0], args[1], Number(args[2]))
  : mode === "run"
  ? await run(args[0], Number(args[1]))
  : mode === "bare"
  ? await bare(Number(args[0]))
  : mode === "barekeys"
  ? await bareKeys()
  : mode === "big"
  ? await big(args[0], args[1], Number(args[2]))
  : mode === "approvals"
  ? await approvals(args[0], Number(args[1]), Number(args[2]))
  : (() => {
    throw new Error(`Unknown mode "${mode}"`);
  })();
console.log(JSON.stringify(result));
Deno.exit(0);
