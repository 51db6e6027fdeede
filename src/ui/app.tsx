/**
 * `svc ui`'s root component (D25): reads the store, routes every key
 * through the keymap, and hands the views their slice. Actions go through
 * `UiActions`; the daemon is only read by the sync loop.
 */
import { Box, Text, useApp, useInput, useWindowSize } from "ink";
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import type { Key } from "ink";
import { edit, keyName, splitKey } from "./key_input.ts";
import type { Actions, Outcome } from "./actions.ts";
import {
  alwaysConfirm,
  type Confirm,
  killConfirm,
  landCancelConfirm,
  quitConfirm,
  routineConfirm,
} from "./confirms.ts";
import type { FocusStore } from "./focus.ts";
import { type Command, commandFor, type View, VIEWS } from "./keymap.ts";
import {
  attentionItems,
  fleetRows,
  fleetState,
  inboxOrder,
  lastEventOf,
  nextAttention,
  pendingSession,
  type SessionRecord,
} from "./model.ts";
import type { HostsStore } from "./hosts_store.ts";
import { hostsBanners, sessionIdWidth } from "./hosts.ts";
import type { UiSync } from "./sync.ts";
import { type Measure, type TranscriptScroll, TranscriptWindow } from "./transcript_window.ts";
import { ApprovalsView } from "./components/approvals_view.tsx";
import { AttentionView } from "./components/attention_view.tsx";
import { FleetView } from "./components/fleet_view.tsx";
import { Header } from "./components/header.tsx";
import { HelpOverlay } from "./components/help_overlay.tsx";
import { helpPage } from "./help_page.ts";
import {
  conversationRoom,
  readOn,
  type RequestPanel,
  requestPanel,
  type RequestReading,
  requestRoom,
} from "./request_panel.ts";
import { InboxView } from "./components/inbox_view.tsx";
import { NewSessionView } from "./components/new_session_view.tsx";
import { emptyForm, formKey, type FormState, launchOf } from "./new_session_form.ts";
import { RoutinesView } from "./components/routines_view.tsx";
import { LandView } from "./components/land_view.tsx";
import { cancellable, type LandRow, landRows, NOT_CANCELLABLE } from "./land_queue_view.ts";
import { SessionView } from "./components/session_view.tsx";
import { ColorContext } from "./components/theme.ts";
import { useNotice } from "./components/use_notice.ts";
import { pagedScroll } from "./paged_scroll.ts";
import { reviewStep } from "./worktree_review.ts";
import { diffTone, type Paged, TextPager } from "./components/text_pager.tsx";

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
  const { store, focus, actions } = props;
  const app = useApp();
  const size = useWindowSize();
  const snapshot = useSyncExternalStore(store.subscribe, store.snapshot);
  const focused = useSyncExternalStore(focus.subscribe, focus.snapshot);
  // Ages and countdowns change each second only while something runs or waits; otherwise a
  // slow clock is enough (an idle UI costs next to nothing, D25).
  const busy = snapshot.approvals.length > 0 ||
    [...snapshot.sessions.values()].some((session) => session.status === "running");
  const nowMs = useClock(props.now ?? Date.now, props.tickMs ?? (busy ? 1000 : 30_000));

  const [view, setView] = useState<View>("fleet");
  const [selected, setSelected] = useState<Record<string, number>>({});
  const [showEnded, setShowEnded] = useState(false);
  const [filter, setFilter] = useState("");
  const [filtering, setFiltering] = useState(false);
  /** The page of the `?` overlay on screen, or null. */
  const [help, setHelp] = useState<number | null>(null);
  const [input, setInput] = useState<string | null>(null);
  const [scroll, setScroll] = useState<TranscriptScroll>(null);
  const [transcript] = useState(() => new TranscriptWindow(props.measure));
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  /** How far a request longer than its room has been read (`v`). */
  const [requestRead, setRequestRead] = useState<RequestReading>(null);
  const { message, setMessage, dismiss } = useNotice(store, snapshot);
  // An approval, a session that needs the user or ended, and a key's answer are not held for
  // Ink's next frame slot (maxFps): at 30 a second that added up to 33 ms (issue 38 items 2, 7).
  const flushFrame = props.flushFrame ?? (() => {});
  useEffect(() => store.subscribeUrgent(flushFrame), [store]);
  const [form, setForm] = useState<FormState>(() => emptyForm(props.cwd));
  const [launching, setLaunching] = useState(false);
  const [reading, setReading] = useState<
    { runId: string; lines: string[]; scroll: number } | null
  >(null);
  const [history, setHistory] = useState<{ routineId: string; lines: string[] } | null>(null);
  /** The focused session's worktree diff (D27), shown over its conversation. */
  const [diff, setDiff] = useState<Paged | null>(null);

  const options = { nowMs, stalledAfterMs: props.stalledAfterMs };
  const rows = useMemo(
    () => fleetRows(snapshot, { ...options, showEnded, filter }),
    [snapshot, nowMs, showEnded, filter],
  );
  const attention = useMemo(() => attentionItems(snapshot, options), [snapshot, nowMs]);
  const inbox = useMemo(() => inboxOrder(snapshot.inbox), [snapshot.inbox]);
  const land = useMemo(
    () => landRows(snapshot.landQueue, snapshot.sessions),
    [snapshot.landQueue, snapshot.sessions],
  );
  const idWidth = useMemo(() => sessionIdWidth(snapshot), [snapshot.sessions]);
  const multiHost = snapshot.hosts.length > 1;
  const session = focused.sessionId === null
    ? null
    : snapshot.sessions.get(focused.sessionId) ?? null;
  const sessionApproval = session === null
    ? null
    : snapshot.approvals.find((approval) => approval.sessionId === session.id) ?? null;

  // The terminal title counts who needs the user; one bell per new approval (D25).
  useEffect(() => {
    props.terminal.title(
      attention.length === 0 ? "svc" : `svc — ${attention.length} need you`,
    );
  }, [attention.length]);
  useEffect(() => {
    if (store.takeNewApprovals() > 0) props.terminal.bell();
  }, [snapshot.approvals]);

  const lengths: Record<string, number> = {
    fleet: rows.length,
    attention: attention.length,
    approvals: snapshot.approvals.length,
    routines: snapshot.routines.length,
    inbox: inbox.length,
    land: land.length,
  };
  const index = (name: string) =>
    Math.min(selected[name] ?? 0, Math.max(0, (lengths[name] ?? 1) - 1));
  const move = (name: string, by: number) =>
    setSelected((current) => ({
      ...current,
      [name]: Math.max(0, Math.min((lengths[name] ?? 1) - 1, (current[name] ?? 0) + by)),
    }));

  const report = (outcome: Promise<Outcome>) => {
    void outcome.then((result) => {
      setMessage(result);
      if (result.sessionId) {
        const launched = store.snapshot().sessions.get(result.sessionId);
        open(launched ?? pendingSession(result.sessionId, new Date().toISOString()));
      }
    });
  };
  const open = (target: SessionRecord | undefined) => {
    if (!target) return;
    setDiff(null);
    props.sync.focus(target);
    setScroll(null);
    setInput(null);
    setView("session");
  };
  const bodyHeight = Math.max(3, size.rows - 4 - hostsBanners(snapshot).length);
  const chosenApproval = view === "session"
    ? sessionApproval
    : snapshot.approvals[index("approvals")] ?? null;
  // The session view's rows below the conversation: the partial line, the input line (and what
  // Enter does on an ended session), the request whole before its keys (issue 38).
  const reserved = (focused.partial !== null && scroll === null ? 1 : 0) +
    (input === null ? 0 : session?.status === "running" ? 1 : 2);
  const request = (view === "session" || view === "approvals") && chosenApproval && !diff
    ? requestPanel(chosenApproval, {
      width: size.columns,
      room: requestRoom(view, { height: bodyHeight, listed: lengths.approvals, reserved }),
      reading: requestRead,
      window: transcript,
      nowMs,
    })
    : null;
  const conversation = {
    width: size.columns,
    height: conversationRoom(bodyHeight, { request, reserved }),
  };
  const pageLines = view === "session" && !diff ? conversation.height : Math.max(1, bodyHeight - 4);
  const scrollBy = (by: number) =>
    setScroll((from) => transcript.scrollBy(focused.lines, { ...conversation, scroll: from, by }));

  const helpShown = help === null
    ? null
    : helpPage(view, { width: size.columns, height: bodyHeight, page: help });
  const run = (command: Command) => {
    if (
      helpShown && (command === "page-up" || command === "page-down" || command === "up" ||
        command === "down")
    ) {
      return setHelp(helpShown.page + (command === "page-up" || command === "up" ? -1 : 1));
    }
    // A diff or a result on screen scrolls with the moving keys.
    const paged = view === "session" ? diff : view === "inbox" ? reading : null;
    const to = paged && pagedScroll(paged.scroll, command, {
      lines: paged.lines.length,
      page: pageLines,
    });
    if (to !== null && diff && paged === diff) return setDiff({ ...diff, scroll: to });
    if (to !== null && reading && paged === reading) return setReading({ ...reading, scroll: to });
    if (command.startsWith("view-")) {
      setView(command.slice("view-".length) as View);
      setReading(null);
      return setHistory(null);
    }
    switch (command) {
      case "quit": {
        const live = [...snapshot.sessions.values()].filter((s) => s.status === "running");
        const ask = quitConfirm(live.length, app.exit);
        if (ask) setConfirm(ask);
        else app.exit();
        return;
      }
      case "help":
        setHelp((shown) => shown === null ? 0 : null);
        return;
      case "next-view":
        setView(VIEWS[(VIEWS.indexOf(view) + 1) % VIEWS.length]);
        return;
      case "new-session":
        setForm((current) => ({ ...current, field: "prompt" }));
        setView("new");
        return;
      case "next-attention": {
        const next = nextAttention(attention, focused.sessionId);
        if (next === null) setMessage({ ok: true, message: "Nothing needs you" });
        else open(snapshot.sessions.get(next));
        return;
      }
      case "up":
      case "down":
      case "page-up":
      case "page-down": {
        const by = command === "up" ? -1 : command === "down" ? 1 : pageLines;
        const signed = command === "page-up" ? -by : by;
        if (view === "session") scrollBy(signed);
        else move(view, signed);
        return;
      }
      case "top":
        if (view === "session") setScroll(transcript.top(focused.lines, conversation));
        else move(view, -Infinity);
        return;
      case "bottom":
        if (view === "session") setScroll(null);
        else move(view, Infinity);
        return;
      case "open":
        return openSelected();
      case "back":
        if (help !== null) setHelp(null);
        else if (reading) setReading(null);
        else if (history) setHistory(null);
        else if (diff) setDiff(null);
        else if (view === "session" || view === "new") setView("fleet");
        return;
      case "filter":
        setFilter("");
        return setFiltering(true);
      case "toggle-ended":
        setShowEnded((shown) => !shown);
        return;
      case "allow":
      case "deny":
      case "always":
        if (chosenApproval === null || request === null) {
          return setMessage({ ok: false, message: "No request waits here" });
        }
        // Nobody allows what they could not see; denying needs no reading.
        if (command !== "deny" && !request.whole) {
          return setMessage({
            ok: false,
            message: "Read the whole request first: v shows the rest",
          });
        }
        if (command === "always") setConfirm(alwaysConfirm(chosenApproval, actions));
        else report(actions.answer(chosenApproval, command));
        return;
      case "more-request":
        if (request && !request.whole) setRequestRead(readOn(request));
        return;
      case "input":
        // An ended conversation too: Enter resumes it, so typed words never fall through as keys.
        if (session) setInput("");
        else setMessage({ ok: false, message: "No session in focus" });
        return;
      case "interrupt":
        if (session) report(actions.interrupt(session.id));
        return;
      case "close":
        if (session) report(actions.close(session.id));
        return;
      case "kill":
        if (session) setConfirm(killConfirm(session, actions));
        return;
      case "resume":
        if (session && session.status !== "running") report(actions.resume(session.id));
        else setMessage({ ok: false, message: "Only an ended conversation resumes" });
        return;
      case "tool-output": {
        const stays = focus.toggleOutput(scroll);
        return stays === false
          ? setMessage({ ok: false, message: "No tool output above the bottom of the screen" })
          : setScroll(stays);
      }
      case "diff":
      case "land":
      case "discard":
        void reviewStep(command, session, actions).then((step) => {
          if ("pager" in step) setDiff({ ...step.pager, scroll: 0 });
          else if ("confirm" in step) setConfirm(step.confirm);
          else setMessage(step.message);
        });
        return;
      case "run-routine": {
        const routine = snapshot.routines[index("routines")];
        if (routine) report(actions.runRoutine(routine.id));
        return;
      }
      case "pause-routine": {
        const routine = snapshot.routines[index("routines")];
        if (!routine) return;
        void actions.routine(routine.id).then((got) =>
          got.ok ? setConfirm(routineConfirm(routine, actions, got.definition)) : setMessage(got)
        );
        return;
      }
      case "cancel-land": {
        const row = land[index("land")];
        if (!row) return setMessage({ ok: false, message: "Nothing to cancel" });
        if (!cancellable(row.state)) {
          return setMessage({ ok: false, message: NOT_CANCELLABLE });
        }
        setConfirm(landCancelConfirm(row, actions));
        return;
      }
      case "mark-read": {
        const entry = reading
          ? inbox.find((e) => e.runId === reading.runId)
          : inbox[index("inbox")];
        if (!entry) return;
        report(
          actions.markRead(entry.runId).then((outcome) => {
            if (outcome.ok) store.inboxRead(entry.runId, new Date(nowMs).toISOString());
            return outcome;
          }),
        );
      }
    }
  };

  const openSelected = () => {
    switch (view) {
      case "fleet":
        return open(rows[index("fleet")]?.session);
      case "attention":
        return open(attention[index("attention")]?.session);
      case "approvals": {
        const approval = snapshot.approvals[index("approvals")];
        return open(approval ? snapshot.sessions.get(approval.sessionId) : undefined);
      }
      case "routines": {
        const routine = snapshot.routines[index("routines")];
        if (!routine) return;
        void actions.runs(routine.id).then((lines) => setHistory({ routineId: routine.id, lines }));
        return;
      }
      case "land":
        return open(snapshot.sessions.get(land[index("land")]?.sessionId ?? ""));
      case "inbox": {
        const entry = inbox[index("inbox")];
        if (!entry) return;
        void actions.result(entry.runId).then((result) =>
          setReading({ runId: entry.runId, lines: result.text.split("\n"), scroll: 0 })
        );
        return;
      }
    }
  };

  const launch = () => {
    const request = launchOf(form, snapshot.harnesses);
    if ("problem" in request) return setMessage({ ok: false, message: request.problem });
    setLaunching(true);
    report(
      actions.launch(request).finally(() => {
        setLaunching(false);
      }).then((outcome) => {
        if (outcome.ok) setForm(emptyForm(form.projectRoot));
        return outcome;
      }),
    );
  };

  // Keys are handled one at a time, each after the render of the one before: a mode a key
  // enters (the input line, the filter) is in force for the very next key, even when the
  // terminal delivered both in one read. A key with nothing before it to render is handled at
  // once, so its answer is one render, not two (issue 38 item 2).
  const keys = useRef<Array<{ text: string; key: Key }>>([]);
  /** A render that keys wait for (the one after a handled key) has not run yet. */
  const keyRendering = useRef(false);
  const [keyTick, setKeyTick] = useState(0);
  const handleNextKey = () => {
    const next = keys.current.shift();
    if (next === undefined) return;
    keyRendering.current = true;
    handleKey(next.text, next.key);
    setKeyTick((tick) => tick + 1);
    flushFrame();
  };
  useInput((text, key) => {
    const special = key.upArrow || key.downArrow || key.leftArrow || key.rightArrow ||
      key.pageUp || key.pageDown || key.return || key.escape || key.tab || key.ctrl ||
      key.meta || key.backspace || key.delete;
    const chars = [...text];
    if (special || chars.length <= 1) keys.current.push({ text, key });
    else for (const char of chars) keys.current.push(splitKey(char, key));
    // A store change not rendered yet (React renders it in a microtask, so only one made in the
    // key's own task) is rendered first: the key waits for that render, as keys after it do.
    const rendered = store.snapshot() === snapshot && focus.snapshot() === focused;
    if (keyRendering.current) return;
    if (rendered) return handleNextKey();
    keyRendering.current = true;
    setKeyTick((tick) => tick + 1);
  });
  useEffect(() => {
    keyRendering.current = false;
    handleNextKey();
  }, [keyTick]);

  const handleKey = (text: string, key: Key) => {
    const name = keyName(text, key);
    dismiss(); // A key answers the footer's message and a restart banner; it may set a new one.
    if (confirm) {
      if (confirm.keys) {
        const choice = Object.hasOwn(confirm.keys, name) ? confirm.keys[name] : undefined;
        const outcome = choice === undefined ? null : confirm.run(choice);
        if (outcome) report(outcome);
        if (choice !== undefined || name === "<escape>") setConfirm(null);
        return;
      }
      const outcome = name === "y" ? confirm.run() : null;
      if (outcome) report(outcome);
      if (name === "y" || name === "n" || name === "<escape>") setConfirm(null);
      return;
    }
    if (filtering) {
      if (name === "<return>") setFiltering(false);
      else if (name === "<escape>") {
        setFilter("");
        setFiltering(false);
      } else setFilter((current) => edit(current, text, key));
      return;
    }
    if (input !== null) {
      if (name === "<escape>") setInput(null);
      else if (name === "<return>") {
        if (session && input.trim() !== "") {
          report(
            session.status === "running"
              ? actions.send(session.id, input)
              : actions.resumeAndSend(session.id, input),
          );
        }
        setInput(null);
      } else if (name === "<ctrl-c>") setInput(null);
      else setInput((current) => edit(current ?? "", text, key));
      return;
    }
    if (view === "new" && help === null) {
      const step = formKey(form, { name, text, key }, snapshot.harnesses.length);
      if (step === null) return;
      if ("form" in step) return setForm(step.form);
      if (step.do === "launch") return launch();
      if (step.do === "back") return setView("fleet");
      return run("quit");
    }
    const command = commandFor(name, view);
    if (command) run(command);
  };

  const state = session
    ? fleetState(session, lastEventOf(snapshot, session), nowMs, props.stalledAfterMs)
    : null;
  return (
    <Box flexDirection="column" width={size.columns} height={size.rows}>
      <Header snapshot={snapshot} view={view} attention={attention.length} nowMs={nowMs} />
      <Box flexDirection="column" flexGrow={1} marginTop={1}>
        {helpShown
          ? <HelpOverlay view={view} help={helpShown} />
          : confirm
          ? (
            <Box flexDirection="column" borderStyle="round" paddingX={1}>
              {confirm.lines.map((line, i) => <Text key={i} wrap="truncate-end">{line}</Text>)}
            </Box>
          )
          : (
            <Body
              view={view}
              {...{
                rows,
                attention,
                inbox,
                land,
                snapshot,
                focused,
                session,
                state,
                request,
                idWidth,
                multiHost,
              }}
              {...{
                reading,
                history,
                form,
                launching,
                nowMs,
                input,
                scroll,
                showEnded,
                filter,
                filtering,
              }}
              diff={diff}
              conversationHeight={conversation.height}
              transcript={transcript}
              selectedOf={index}
              height={bodyHeight}
              width={size.columns}
            />
          )}
      </Box>
      <Text wrap="truncate-end" dimColor={message === null || message.ok}>
        {message ? message.message : "? keys · q quits"}
      </Text>
    </Box>
  );
}

type BodyProps = {
  view: View;
  rows: ReturnType<typeof fleetRows>;
  attention: ReturnType<typeof attentionItems>;
  inbox: ReturnType<typeof inboxOrder>;
  land: LandRow[];
  snapshot: ReturnType<HostsStore["snapshot"]>;
  focused: ReturnType<FocusStore["snapshot"]>;
  session: SessionRecord | null;
  state: ReturnType<typeof fleetState> | null;
  request: RequestPanel | null;
  conversationHeight: number;
  reading: { runId: string; lines: string[]; scroll: number } | null;
  diff: Paged | null;
  history: { routineId: string; lines: string[] } | null;
  form: FormState;
  launching: boolean;
  nowMs: number;
  input: string | null;
  scroll: TranscriptScroll;
  transcript: TranscriptWindow;
  showEnded: boolean;
  filter: string;
  filtering: boolean;
  selectedOf: (name: string) => number;
  idWidth: number;
  /** Several hosts: a HOST column, and ids shown without their host (hosts.ts). */
  multiHost: boolean;
  height: number;
  width: number;
};

/** The current view. */
function Body(props: BodyProps) {
  const { height, nowMs, idWidth, multiHost } = props;
  switch (props.view) {
    case "fleet":
      return (
        <FleetView
          rows={props.rows}
          selected={props.selectedOf("fleet")}
          {...{ height, nowMs, idWidth, multiHost, width: props.width }}
          hosts={props.snapshot.hosts.map((host) => host.name)}
          showEnded={props.showEnded}
          filter={props.filter}
          filtering={props.filtering}
        />
      );
    case "attention":
      return (
        <AttentionView
          items={props.attention}
          selected={props.selectedOf("attention")}
          {...{ height, nowMs, idWidth, multiHost }}
        />
      );
    case "approvals":
      return (
        <ApprovalsView
          approvals={props.snapshot.approvals}
          sessions={props.snapshot.sessions}
          selected={props.selectedOf("approvals")}
          request={props.request}
          {...{ height, nowMs, idWidth, multiHost }}
        />
      );
    case "session":
      if (props.diff) return <TextPager paged={props.diff} height={height} tone={diffTone} />;
      return (
        <SessionView
          session={props.session}
          state={props.state}
          focus={props.focused}
          transcript={props.transcript}
          scroll={props.scroll}
          input={props.input}
          request={props.request}
          multiHost={multiHost}
          height={props.conversationHeight}
          width={props.width}
        />
      );
    case "routines":
      return (
        <RoutinesView
          routines={props.snapshot.routines}
          selected={props.selectedOf("routines")}
          height={height}
          history={props.history}
        />
      );
    case "inbox":
      return (
        <InboxView
          entries={props.inbox}
          selected={props.selectedOf("inbox")}
          height={height}
          reading={props.reading}
        />
      );
    case "land":
      return <LandView rows={props.land} selected={props.selectedOf("land")} height={height} />;
    case "new":
      return (
        <NewSessionView
          form={props.form}
          harnesses={props.snapshot.harnesses}
          connection={props.snapshot.connection}
          busy={props.launching}
        />
      );
  }
}

/** The clock of the ages and countdowns, re-read every `tickMs` (0: never). */
function useClock(now: () => number, tickMs: number): number {
  const [nowMs, setNow] = useState(now);
  useEffect(() => {
    if (tickMs <= 0) return;
    setNow(now());
    const timer = setInterval(() => setNow(now()), tickMs);
    return () => clearInterval(timer);
  }, [tickMs]);
  return nowMs;
}
