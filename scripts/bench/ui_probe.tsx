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
 */
import { EventEmitter } from "node:events";
import { render, Text } from "ink";
import { SvcClient } from "../../src/client/client.ts";
import { UiActions } from "../../src/ui/actions.ts";
import { App } from "../../src/ui/app.tsx";
import { FocusStore } from "../../src/ui/focus.ts";
import type { SessionRecord } from "../../src/ui/model.ts";
import { UiStore } from "../../src/ui/store.ts";
import { UiSync } from "../../src/ui/sync.ts";

/** A 120×40 terminal that keeps nothing but calls `onWrite` with each frame's text. */
class Terminal extends EventEmitter {
  readonly isTTY = true;
  readonly columns = 120;
  readonly rows = 40;
  constructor(readonly onWrite: (text: string) => void) {
    super();
  }
  write = (text: string) => {
    this.onWrite(text);
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
  const instance = render(
    <App
      {...{ store, focus, sync }}
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
  : (() => {
    throw new Error(`Unknown mode "${mode}"`);
  })();
console.log(JSON.stringify(result));
Deno.exit(0);
