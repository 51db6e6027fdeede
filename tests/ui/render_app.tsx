/**
 * Renders `svc ui`'s App with ink-testing-library on fixture data: the real
 * store, focus store and actions module, whose client is a fake that records
 * every call the keys cause and answers as the test says.
 */
import { render } from "ink-testing-library";
import { UiActions } from "../../src/ui/actions.ts";
import { App } from "../../src/ui/app.tsx";
import { FocusStore } from "../../src/ui/focus.ts";
import { HostsStore } from "../../src/ui/hosts_store.ts";
import type { SessionRecord } from "../../src/ui/model.ts";
import { type SyncedLists, UiStore } from "../../src/ui/store.ts";
import { NOW } from "./fixtures.ts";

/** Named keys as a terminal sends them. */
export const KEY = {
  enter: "\r",
  escape: "\x1b",
  up: "\x1b[A",
  down: "\x1b[B",
  tab: "\t",
  ctrlC: "\x03",
  pageUp: "\x1b[5~",
  backspace: "\x7f",
};

export interface Call {
  path: string;
  body: Record<string, unknown>;
  method?: "GET";
}

/** How the fake daemon answers a POST: status and body (default 200 `{}`). */
export type Answer = (call: Call) => { status: number; body: unknown };

export function renderApp(
  lists: SyncedLists,
  options: { answer?: Answer; color?: boolean; measure?: (grapheme: string) => number } = {},
) {
  const store = new UiStore({ notifyIntervalMs: 0 });
  store.synced(lists);
  const focus = new FocusStore();
  const calls: Call[] = [];
  const focused: string[] = [];
  const terminal = { titles: [] as string[], bells: 0, flushes: 0 };
  const client = {
    get: <T,>(path: string) => {
      const call = { path, body: {}, method: "GET" as const };
      calls.push(call);
      const { status, body: answer } = options.answer?.(call) ?? { status: 200, body: {} };
      return Promise.resolve({ status, ok: status < 400, body: answer as T });
    },
    post: <T,>(path: string, body: unknown) => {
      const call = { path, body: body as Record<string, unknown> };
      calls.push(call);
      const { status, body: answer } = options.answer?.(call) ?? { status: 200, body: {} };
      return Promise.resolve({ status, ok: status < 400, body: answer as T });
    },
  };
  const sync = {
    focus: (session: SessionRecord | null) => {
      focused.push(session?.id ?? "");
      store.focus(session?.id ?? null);
      focus.reset(session?.id ?? null, session?.protocol ?? "raw");
    },
  };
  const app = render(
    <App
      store={new HostsStore([{ name: "local", store }])}
      focus={focus}
      sync={sync}
      actions={new UiActions(client)}
      stalledAfterMs={120_000}
      cwd="/home/me/project"
      color={options.color ?? false}
      terminal={{
        title: (text) => terminal.titles.push(text),
        bell: () => terminal.bells++,
      }}
      now={() => NOW}
      tickMs={0}
      measure={options.measure}
      flushFrame={() => terminal.flushes++}
    />,
  );
  /** Types `keys` (each string is one write) and lets the app settle. */
  const press = async (...keys: string[]) => {
    for (const key of keys) {
      app.stdin.write(key);
      // The app takes one key per render: a chunk of several characters takes several.
      for (let i = 0; i < [...key].length; i++) await settle();
    }
  };
  return {
    ...app,
    store,
    focus,
    calls,
    focused,
    terminal,
    press,
    frame: () => app.lastFrame() ?? "",
  };
}

/** Lets effects, the key queue and promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 5));
}
