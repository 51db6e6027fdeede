/**
 * `svc ui`'s root component (D25): renders the view state (view_state.ts)
 * over the store and hands each view its slice; Ink's keys go to the view
 * state, which runs them through the keymap and acts through `UiActions`.
 * The daemon is only read by the sync loop.
 */
import { Box, Text, useApp, useInput, useWindowSize } from "ink";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { Key } from "ink";
import { keyName, splitKey } from "./key_input.ts";
import type { Actions } from "./actions.ts";
import type { FocusSnapshot, FocusStore } from "./focus.ts";
import type { HostsSnapshot } from "./hosts.ts";
import type { HostsStore } from "./hosts_store.ts";
import type { UiSync } from "./sync.ts";
import { type Measure, TranscriptWindow } from "./transcript_window.ts";
import type { ViewFrame } from "./view_frame.ts";
import { type ViewSnapshot, ViewState } from "./view_state.ts";
import { ApprovalsView } from "./components/approvals_view.tsx";
import { AttentionView } from "./components/attention_view.tsx";
import { FleetView } from "./components/fleet_view.tsx";
import { Header } from "./components/header.tsx";
import { HelpOverlay } from "./components/help_overlay.tsx";
import { InboxView } from "./components/inbox_view.tsx";
import { NewSessionView } from "./components/new_session_view.tsx";
import { RoutinesView } from "./components/routines_view.tsx";
import { LandView } from "./components/land_view.tsx";
import { SessionView } from "./components/session_view.tsx";
import { ColorContext } from "./components/theme.ts";
import { useNotice } from "./components/use_notice.ts";
import { diffTone, TextPager } from "./components/text_pager.tsx";

/** What the app is given. */
export interface AppProps {
  /** Every host's store as one (one host: its own, D32). */
  store: Pick<
    HostsStore,
    | "snapshot"
    | "subscribe"
    | "subscribeUrgent"
    | "takeNewApprovals"
    | "dismissBanner"
    | "inboxRead"
  >;
  focus: FocusStore;
  sync: Pick<UiSync, "focus">;
  actions: Actions;
  /** `ui.stalledAfterSeconds` (D25, default 120) in ms. */
  stalledAfterMs: number;
  /** The user's directory: the form's default project root. */
  cwd: string;
  color: boolean;
  /** The terminal title (`svc — 2 need you`) and the bell, written by the runner. */
  terminal: { title(text: string): void; bell(): void };
  /** The clock of the countdowns and ages (tests pass a fixed one). */
  now?: () => number;
  /** Re-render the clock-driven text this often (0: never, for tests). */
  tickMs?: number;
  /** How wide a grapheme is (string-width; tests count what the session view measures). */
  measure?: Measure;
  /**
   * Writes the pending frame now, past the renderer's frame throttle (the
   * runner: Ink's `waitUntilRenderFlush`); called for what the user acts on.
   */
  flushFrame?: () => void;
}

export function App(props: AppProps) {
  return (
    <ColorContext.Provider value={props.color}>
      <Screen {...props} />
    </ColorContext.Provider>
  );
}

function Screen(props: AppProps) {
  const { store, focus } = props;
  const app = useApp();
  const size = useWindowSize();
  const [transcript] = useState(() => new TranscriptWindow(props.measure));
  const [state] = useState(() =>
    new ViewState({
      store,
      focus,
      sync: props.sync,
      actions: props.actions,
      stalledAfterMs: props.stalledAfterMs,
      cwd: props.cwd,
      now: props.now ?? Date.now,
      exit: app.exit,
      transcript,
    })
  );
  const snapshot = useSyncExternalStore(store.subscribe, store.snapshot);
  const focused = useSyncExternalStore(focus.subscribe, focus.snapshot);
  const view = useSyncExternalStore(state.subscribe, state.snapshot);
  // Ages and countdowns change each second only while something runs or waits; otherwise a
  // slow clock is enough (an idle UI costs next to nothing, D25).
  const busy = snapshot.approvals.length > 0 ||
    [...snapshot.sessions.values()].some((session) => session.status === "running");
  useClock(state, props.tickMs ?? (busy ? 1000 : 30_000));
  useNotice(store, snapshot, view.message, () => state.say(null));
  const frame = state.frame({ columns: size.columns, rows: size.rows });

  // The terminal title counts who needs the user; one bell per new approval (D25).
  const attention = frame.lists.attention.length;
  useEffect(() => {
    props.terminal.title(attention === 0 ? "svc" : `svc — ${attention} need you`);
  }, [attention]);
  useEffect(() => {
    if (store.takeNewApprovals() > 0) props.terminal.bell();
  }, [snapshot.approvals]);

  // An approval, a session that needs the user or ended, and a key's answer are not held for
  // Ink's next frame slot (maxFps): at 30 a second that added up to 33 ms (issue 38 items 2, 7).
  const flushFrame = props.flushFrame ?? (() => {});
  useEffect(() => store.subscribeUrgent(flushFrame), [store]);

  // A chunk the terminal sent at once (typed ahead, pasted) is cut into keys, each handled
  // after the one before: a mode a key enters (the input line, the filter) holds for the next.
  // Keys act on what is on screen: a store change not rendered yet (React renders it in a
  // microtask, so only one made in the key's own task) is rendered first, and the keys wait
  // for that render; else a key is handled at once, its answer one render (issue 38 item 2).
  const keys = useRef<Array<{ text: string; key: Key }>>([]);
  const [keyTick, setKeyTick] = useState(0);
  const handleKeys = () => {
    for (const next of keys.current.splice(0)) {
      state.key(keyName(next.text, next.key), next.text, next.key);
      flushFrame();
    }
  };
  useInput((text, key) => {
    const special = key.upArrow || key.downArrow || key.leftArrow || key.rightArrow ||
      key.pageUp || key.pageDown || key.return || key.escape || key.tab || key.ctrl ||
      key.meta || key.backspace || key.delete;
    const chars = [...text];
    if (special || chars.length <= 1) keys.current.push({ text, key });
    else for (const char of chars) keys.current.push(splitKey(char, key));
    const rendered = store.snapshot() === snapshot && focus.snapshot() === focused;
    if (rendered) handleKeys();
    else setKeyTick((tick) => tick + 1);
  });
  useEffect(handleKeys, [keyTick]);

  return (
    <Box flexDirection="column" width={size.columns} height={size.rows}>
      <Header snapshot={snapshot} view={view.view} attention={attention} nowMs={view.nowMs} />
      <Box flexDirection="column" flexGrow={1} marginTop={1}>
        {frame.help
          ? <HelpOverlay view={view.view} help={frame.help} />
          : view.confirm
          ? (
            <Box flexDirection="column" borderStyle="round" paddingX={1}>
              {view.confirm.lines.map((line, i) => <Text key={i} wrap="truncate-end">{line}</Text>)}
            </Box>
          )
          : (
            <Body
              view={view}
              frame={frame}
              snapshot={snapshot}
              focused={focused}
              transcript={transcript}
              width={size.columns}
            />
          )}
      </Box>
      <Text wrap="truncate-end" dimColor={view.message === null || view.message.ok}>
        {view.message ? view.message.message : "? keys · q quits"}
      </Text>
    </Box>
  );
}

type BodyProps = {
  view: ViewSnapshot;
  frame: ViewFrame;
  snapshot: HostsSnapshot;
  focused: FocusSnapshot;
  transcript: TranscriptWindow;
  width: number;
};

/** The current view. */
function Body({ view, frame, snapshot, focused, transcript, width }: BodyProps) {
  const { lists, selected, idWidth, multiHost } = frame;
  const height = frame.bodyHeight;
  const nowMs = view.nowMs;
  switch (view.view) {
    case "fleet":
      return (
        <FleetView
          rows={lists.fleet}
          selected={selected.fleet}
          {...{ height, nowMs, idWidth, multiHost, width }}
          hosts={snapshot.hosts.map((host) => host.name)}
          showEnded={view.showEnded}
          filter={view.filter}
          filtering={view.filtering}
        />
      );
    case "attention":
      return (
        <AttentionView
          items={lists.attention}
          selected={selected.attention}
          {...{ height, nowMs, idWidth, multiHost }}
        />
      );
    case "approvals":
      return (
        <ApprovalsView
          approvals={snapshot.approvals}
          sessions={snapshot.sessions}
          selected={selected.approvals}
          request={frame.request}
          {...{ height, nowMs, idWidth, multiHost }}
        />
      );
    case "session":
      if (view.diff) return <TextPager paged={view.diff} height={height} tone={diffTone} />;
      return (
        <SessionView
          session={frame.session}
          state={frame.sessionState}
          focus={focused}
          transcript={transcript}
          scroll={view.scroll}
          input={view.input}
          request={frame.request}
          multiHost={multiHost}
          height={frame.conversation.height}
          width={width}
        />
      );
    case "routines":
      return (
        <RoutinesView
          routines={snapshot.routines}
          selected={selected.routines}
          height={height}
          history={view.history}
        />
      );
    case "inbox":
      return (
        <InboxView
          entries={lists.inbox}
          selected={selected.inbox}
          height={height}
          reading={view.reading}
        />
      );
    case "land":
      return <LandView rows={lists.land} selected={selected.land} height={height} />;
    case "new":
      return (
        <NewSessionView
          form={view.form}
          harnesses={snapshot.harnesses}
          connection={snapshot.connection}
          busy={view.launching}
        />
      );
  }
}

/** Reads the view state's clock again every `tickMs` (0: never). */
function useClock(state: ViewState, tickMs: number): void {
  useEffect(() => {
    if (tickMs <= 0) return;
    state.tick();
    const timer = setInterval(() => state.tick(), tickMs);
    return () => clearInterval(timer);
  }, [tickMs]);
}
