/**
 * Runs `svc ui` on the terminal (D25): Ink in the alternate screen, the
 * sync loop, and the terminal given back as it was on quit, SIGTERM, SIGHUP
 * and a crash (alternate screen left, cursor shown, raw mode off, title
 * restored). Loaded only by the `ui` command, so nothing else pays for Ink.
 */
import { type Instance, render } from "ink";
import type { SvcClient } from "../client/client.ts";
import { UiActions } from "./actions.ts";
import { App } from "./app.tsx";
import { FocusStore } from "./focus.ts";
import { hostsActions } from "./hosts_actions.ts";
import { hostedFocus, HostsStore, HostsSync, type UiHost } from "./hosts_store.ts";
import { UiStore } from "./store.ts";
import { UiSync } from "./sync.ts";
import { parseSeenState, seenStateText } from "./seen_state.ts";

/** Leaves the alternate screen and shows the cursor: written again after a crash. */
const RESTORE = "\x1b[?1049l\x1b[?25h";
/** xterm's title stack: push at start, pop at the end (terminals without it ignore both). */
const PUSH_TITLE = "\x1b[22;0t";
const POP_TITLE = "\x1b[23;0t";

/** One daemon the UI shows (D32: a context), and where its unseen sessions are kept. */
export interface UiHostOptions {
  /** The context's name (`local`). */
  name: string;
  client: SvcClient;
  /** Where the sessions that still need the user are kept between runs (seen_state.ts). */
  seenFile: string;
  /** The banner's advice while its daemon is away (default: start one with svc serve). */
  awayAdvice?: string;
}

/** Options of `runUi`. */
export interface UiOptions {
  /** One or more daemons; with several, one fleet with a HOST column. */
  hosts: readonly UiHostOptions[];
  color: boolean;
  stalledAfterMs: number;
  cwd: string;
}

/** Shows the UI until the user quits or a signal ends it; returns the exit code. */
export async function runUi(options: UiOptions): Promise<number> {
  const encoder = new TextEncoder();
  const write = (text: string) => {
    try {
      Deno.stdout.writeSync(encoder.encode(text));
    } catch { /* the terminal is gone */ }
  };
  const focus = new FocusStore();
  const multiHost = options.hosts.length > 1;
  const hosts: UiHost[] = [];
  const keepers: Array<() => void> = [];
  for (const host of options.hosts) {
    const store = new UiStore({ restored: parseSeenState(readText(host.seenFile)) });
    const keepSeen = keepSeenOf(store, host.seenFile);
    keepers.push(keepSeen);
    const sink = hostedFocus(host.name, focus, multiHost);
    hosts.push({
      name: host.name,
      store,
      sync: new UiSync({ client: host.client, store, focus: sink, awayAdvice: host.awayAdvice }),
    });
  }
  const store = new HostsStore(hosts);
  const sync = new HostsSync(hosts);
  const actions = hostsActions(
    options.hosts.map((host) => ({ name: host.name, actions: new UiActions(host.client) })),
  );
  const stop = new AbortController();
  write(PUSH_TITLE);
  const instance: Instance = render(
    <App
      {...{ store, focus, sync, actions }}
      flushFrame={() => void instance.waitUntilRenderFlush()}
      stalledAfterMs={options.stalledAfterMs}
      cwd={options.cwd}
      color={options.color}
      terminal={{
        // The title is ours, never agent text: a count and a fixed word.
        title: (text) => write(`\x1b]0;${text}\x07`),
        bell: () => write("\x07"),
      }}
    />,
    {
      interactive: true,
      alternateScreen: true,
      exitOnCtrlC: false,
      patchConsole: true,
      maxFps: 30,
    },
  );
  let signalled: number | null = null;
  const onSignal = (code: number) => () => {
    signalled = code;
    instance.unmount();
  };
  const signals: Array<[Deno.Signal, () => void]> = [
    ["SIGTERM", onSignal(143)],
    ["SIGHUP", onSignal(129)],
  ];
  for (const [signal, handler] of signals) Deno.addSignalListener(signal, handler);
  const following = sync.run(stop.signal);
  try {
    await instance.waitUntilExit();
    return signalled ?? 0;
  } finally {
    stop.abort();
    sync.stop();
    for (const [signal, handler] of signals) Deno.removeSignalListener(signal, handler);
    instance.unmount();
    instance.cleanup();
    try {
      Deno.stdin.setRaw(false);
    } catch { /* not a terminal any more */ }
    write(RESTORE + POP_TITLE);
    for (const keepSeen of keepers) keepSeen();
    // The loop ends on the abort; a read that does not notice it yet is not waited for long.
    await Promise.race([following.catch(() => {}), new Promise((r) => setTimeout(r, 300))]);
  }
}

/**
 * Keeps who still needs the user on one host in `seenFile`, as it changes,
 * and returns what keeps it at the end (with the time of the end; only of a
 * host that answers: an away one's list is not known).
 */
function keepSeenOf(store: UiStore, seenFile: string): () => void {
  const keep = () =>
    writeText(seenFile, seenStateText(store.snapshot().unseen, new Date().toISOString()));
  let unseen = store.snapshot().unseen;
  store.subscribe(() => {
    if (store.snapshot().unseen === unseen) return;
    unseen = store.snapshot().unseen;
    keep();
  });
  return () => {
    if (store.snapshot().connection === "connected") keep();
  };
}

/** A file's text, or null when it cannot be read (a first run). */
function readText(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

/** Writes a small file whole; a failure costs only what the next start restores. */
function writeText(path: string, text: string): void {
  try {
    Deno.writeTextFileSync(path, text, { mode: 0o600 });
  } catch { /* the home is gone or read-only */ }
}
