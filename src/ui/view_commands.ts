/**
 * What each of the keymap's commands does to `svc ui`'s view state
 * (view_state.ts), in the view it was given in: one switch, face-free.
 */
import { alwaysConfirm, killConfirm, routineConfirm } from "./confirms.ts";
import type { Command, View } from "./keymap.ts";
import { readOn } from "./request_panel.ts";
import type { ViewState } from "./view_state.ts";
import { reviewStep } from "./worktree_review.ts";

/** Runs `command` on `state`. */
export function runViewCommand(state: ViewState, command: Command): void {
  const now = state.snapshot();
  const frame = state.frame();
  const { actions, store, focus } = state.options;
  const snapshot = store.snapshot();
  const { session, request } = frame;
  const fail = (message: string) => state.say({ ok: false, message });
  if (frame.help && isMoveKey(command)) {
    return state.set({
      help: frame.help.page + (command === "page-up" || command === "up" ? -1 : 1),
    });
  }
  if (state.pageText(command, frame.pageLines)) return;
  if (command.startsWith("view-")) {
    return state.set({ view: command.slice("view-".length) as View, reading: null, history: null });
  }
  switch (command) {
    case "quit":
      return state.quit();
    case "help":
      return state.set({ help: now.help === null ? 0 : null });
    case "next-view":
      return state.nextView();
    case "new-session":
      return state.set({ form: { ...now.form, field: "prompt" }, view: "new" });
    case "next-attention": {
      const next = state.nextAttention();
      if ("message" in next) return state.say(next.message);
      return state.open(snapshot.sessions.get(next.sessionId));
    }
    case "up":
    case "down":
    case "page-up":
    case "page-down": {
      const by = command === "up" ? -1 : command === "down" ? 1 : frame.pageLines;
      const signed = command === "page-up" ? -by : by;
      if (now.view === "session") return scrollBy(state, signed);
      return state.move(signed);
    }
    case "top":
      if (now.view === "session") {
        const top = state.options.transcript?.top(state.focused().lines, frame.conversation);
        return state.set({ scroll: top ?? null });
      }
      return state.move(-Infinity);
    case "bottom":
      if (now.view === "session") return state.set({ scroll: null });
      return state.move(Infinity);
    case "open":
      return openSelected(state);
    case "back":
      if (now.help !== null) return state.set({ help: null });
      if (now.reading) return state.set({ reading: null });
      if (now.history) return state.set({ history: null });
      if (now.diff) return state.set({ diff: null });
      if (now.view === "session" || now.view === "new") state.set({ view: "fleet" });
      return;
    case "filter":
      return state.set({ filter: "", filtering: true });
    case "toggle-ended":
      return state.set({ showEnded: !now.showEnded });
    case "allow":
    case "deny":
    case "always": {
      const approval = frame.approval;
      if (approval === null || request === null) return fail("No request waits here");
      // Nobody allows what they could not see; denying needs no reading.
      if (command !== "deny" && !request.whole) {
        return fail("Read the whole request first: v shows the rest");
      }
      if (command === "always") return state.set({ confirm: alwaysConfirm(approval, actions) });
      return state.report(actions.answer(approval, command));
    }
    case "more-request":
      if (request && !request.whole) state.set({ requestRead: readOn(request) });
      return;
    case "input":
      // An ended conversation too: Enter resumes it, so typed words never fall through as keys.
      if (session) return state.set({ input: "" });
      return fail("No session in focus");
    case "interrupt":
      if (session) state.report(actions.interrupt(session.id));
      return;
    case "close":
      if (session) state.report(actions.close(session.id));
      return;
    case "kill":
      if (session) state.set({ confirm: killConfirm(session, actions) });
      return;
    case "resume":
      if (session && session.status !== "running") return state.report(actions.resume(session.id));
      return fail("Only an ended conversation resumes");
    case "tool-output": {
      const stays = focus.toggleOutput(now.scroll);
      if (stays === false) return fail("No tool output above the bottom of the screen");
      return state.set({ scroll: stays });
    }
    case "diff":
    case "land":
    case "discard":
      void reviewStep(command, session, actions).then((step) => {
        if ("pager" in step) state.set({ diff: { ...step.pager, scroll: 0 } });
        else if ("confirm" in step) state.set({ confirm: step.confirm });
        else state.say(step.message);
      });
      return;
    case "run-routine": {
      const routine = state.routineHere();
      if (routine) state.report(actions.runRoutine(routine.id));
      return;
    }
    case "pause-routine": {
      const routine = state.routineHere();
      if (!routine) return;
      void actions.routine(routine.id).then((got) =>
        got.ok
          ? state.set({ confirm: routineConfirm(routine, actions, got.definition) })
          : state.say(got)
      );
      return;
    }
    case "cancel-land":
      return state.cancelLand();
    case "mark-read":
      return state.markRead();
  }
}

function isMoveKey(command: Command): boolean {
  return command === "page-up" || command === "page-down" || command === "up" ||
    command === "down";
}

/** Scrolls the conversation by `by` rows (negative: toward the oldest). */
function scrollBy(state: ViewState, by: number): void {
  const transcript = state.options.transcript;
  if (!transcript) return;
  const { conversation } = state.frame();
  const scroll = transcript.scrollBy(state.focused().lines, {
    ...conversation,
    scroll: state.snapshot().scroll,
    by,
  });
  state.set({ scroll });
}

/** Enter in a list: opens the selected session, a routine's runs or an inbox result. */
function openSelected(state: ViewState): void {
  const { lists, selected } = state.frame();
  const { actions, store } = state.options;
  const sessions = store.snapshot().sessions;
  switch (state.snapshot().view) {
    case "fleet":
      return state.open(lists.fleet[selected.fleet]?.session);
    case "attention":
      return state.open(lists.attention[selected.attention]?.session);
    case "approvals": {
      const approval = lists.approvals[selected.approvals];
      return state.open(approval ? sessions.get(approval.sessionId) : undefined);
    }
    case "routines": {
      const routine = lists.routines[selected.routines];
      if (!routine) return;
      void actions.runs(routine.id).then((lines) =>
        state.set({ history: { routineId: routine.id, lines } })
      );
      return;
    }
    case "land":
      return state.open(sessions.get(lists.land[selected.land]?.sessionId ?? ""));
    case "inbox": {
      const entry = lists.inbox[selected.inbox];
      if (!entry) return;
      void actions.result(entry.runId).then((result) =>
        state.set({ reading: { runId: entry.runId, lines: result.text.split("\n"), scroll: 0 } })
      );
      return;
    }
  }
}
