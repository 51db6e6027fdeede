/**
 * Runs `svc ui` on the terminal (D25): Ink in the alternate screen, the
 * sync loop, and the terminal given back as it was on quit, SIGTERM, SIGHUP
 * and a crash (alternate screen left, cursor shown, raw mode off, title
 * restored). Loaded only by the `ui` command, so nothing else pays for Ink.
 */
import { render } from "ink";
import type { SvcClient } from "../client/client.ts";
import { UiActions } from "./actions.ts";
import { App } from "./app.tsx";
import { FocusStore } from "./focus.ts";
import { UiStore } from "./store.ts";
import { UiSync } from "./sync.ts";
import { parseSeenState, seenStateText } from "./seen_state.ts";

/** Leaves the alternate screen and shows the cursor: written again after a crash. */
const RESTORE = "\x1b[?1049l\x1b[?25h";
/** xterm's title stack: push at start, pop at the end (terminals without it ignore both). */
const PUSH_TITLE = "\x1b[22;0t";
const POP_TITLE = "\x1b[23;0t";

/** Options of `runUi`. */
export interface UiOptions {
  client: SvcClient;
  color: boolean;
  stalledAfterMs: number;
  cwd: string;
  /** Where the sessions that still need the user are kept between runs (seen_state.ts). */
  seenFile: string;
}

/** Shows the UI until the user quits or a signal ends it; returns the exit code. */
export async function runUi(options: UiOptions): Promise<number> {
  const encoder = new TextEncoder();
  const write = (text: string) => {
    try {
      Deno.stdout.writeSync(encoder.encode(text));
    } catch { /* the terminal is gone */ }
  };
  const store = new UiStore({ restored: parseSeenState(readText(options.seenFile)) });
  // Who still needs the user is kept as it changes, and at the end with the time of the end.
  const keepSeen = () =>
    writeText(
      options.seenFile,
      seenStateText(store.snapshot().unseen, new Date().toISOString()),
    );
  let unseen = store.snapshot().unseen;
  store.subscribe(() => {
    if (store.snapshot().unseen === unseen) return;
    unseen = store.snapshot().unseen;
    keepSeen();
  });
  const focus = new FocusStore();
  const sync = new UiSync({ client: options.client, store, focus });
  const actions = new UiActions(options.client);
  const stop = new AbortController();
  write(PUSH_TITLE);
  const instance = render(
    <App
      {...{ store, focus, sync, actions }}
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
    if (store.snapshot().connection === "connected") keepSeen();
    // The loop ends on the abort; a read that does not notice it yet is not waited for long.
    await Promise.race([following.catch(() => {}), new Promise((r) => setTimeout(r, 300))]);
  }
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
