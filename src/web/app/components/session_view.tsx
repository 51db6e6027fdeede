/// <reference lib="dom" />
/**
 * A session (`/#/s/<id>`, D30): its live transcript with the partial text
 * streamed as it is written, the input box and the controls the device's
 * scopes and the session's state allow. Agent text is React text, never HTML.
 */
import {
  type FormEvent,
  type KeyboardEvent,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import type { Snapshot } from "../../../ui/model.ts";
import { hrefOf } from "../route.ts";
import { sessionControls } from "../session_controls.ts";
import type { WebRuntime } from "../web_runtime.ts";
import { offersDiff } from "../worktree_review.ts";

const LABELS = { interrupt: "Interrupt", close: "Close", resume: "Resume", kill: "Kill" } as const;

/** The message box's id: `i` focuses it. */
export const INPUT_ID = "session-input";
/** The transcript's id: the moving keys scroll it. */
export const TRANSCRIPT_ID = "transcript";

export function SessionView(
  { runtime, snapshot, scopes, sessionId }: {
    runtime: WebRuntime;
    snapshot: Snapshot;
    scopes: readonly string[];
    sessionId: string;
  },
) {
  const focus = useSyncExternalStore(runtime.focusStore.subscribe, runtime.focusStore.snapshot);
  const session = snapshot.sessions.get(sessionId) ?? null;
  const known = session !== null;
  useEffect(() => {
    if (known) runtime.focus(sessionId);
  }, [runtime, sessionId, known]);
  useEffect(() => () => runtime.focus(null), [runtime]);
  const end = useRef<HTMLDivElement>(null);
  // Follows live while at the bottom; scrolled back, it holds still as lines arrive (svc ui's D25).
  const following = useRef(true);
  useEffect(() => {
    following.current = true;
  }, [sessionId]);
  useEffect(() => {
    // Not returned: Chromium's scrollIntoView returns a promise, which React would call on cleanup.
    if (!following.current) return;
    void end.current?.scrollIntoView({ block: "end" });
    // The transcript's own bottom too, past its padding (scrollIntoView stops at the marker).
    const box = end.current?.parentElement;
    if (box) box.scrollTop = box.scrollHeight;
  }, [focus]);
  const [draft, setDraft] = useState("");
  if (session === null) return <MissingSession snapshot={snapshot} sessionId={sessionId} />;
  const { controls, input } = sessionControls(session, scopes);
  const submit = (event: FormEvent | KeyboardEvent) => {
    event.preventDefault();
    if (draft.trim() === "") return;
    void runtime.send(session.id, draft);
    setDraft("");
  };
  return (
    <section aria-labelledby="session-title" className="session">
      <h1 id="session-title">{session.title || session.id}</h1>
      <p className="meta">
        {session.harness} · {session.status}
        {session.activity ? ` · ${session.activity}` : ""} · {session.id}
        {offersDiff(session, scopes) && (
          <>
            {" · "}
            <a href={hrefOf({ view: "diff", sessionId: session.id })}>Diff</a>
          </>
        )}
      </p>
      <div
        id={TRANSCRIPT_ID}
        className="transcript"
        role="log"
        aria-label="Transcript"
        onScroll={(event) => {
          following.current = atBottom(event.currentTarget);
        }}
      >
        {focus.sessionId === session.id &&
          focus.lines.map((line, index) => (
            <div key={index} className={`line ${line.tone}`}>{line.text}</div>
          ))}
        {focus.sessionId === session.id && focus.partial !== null && (
          <div className="line agent partial" aria-live="polite">{focus.partial}</div>
        )}
        <div ref={end} />
      </div>
      {controls.length > 0 && (
        <div className="controls">
          {controls.map((control) => (
            <button
              key={control}
              type="button"
              onClick={() => runtime.control(session.id, control)}
            >
              {LABELS[control]}
            </button>
          ))}
        </div>
      )}
      {input && (
        <form className="input" onSubmit={submit}>
          <textarea
            id={INPUT_ID}
            aria-label="Message to the agent"
            value={draft}
            rows={2}
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={(event) => {
              // As svc ui's input line: Enter sends (Shift-Enter: a new line), Esc leaves the box.
              if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
                submit(event);
              } else if (event.key === "Escape") event.currentTarget.blur();
            }}
          />
          <button type="submit">Send</button>
        </form>
      )}
    </section>
  );
}

/** What a session's views show while the session is not (or not yet) known. */
export function MissingSession({ snapshot, sessionId }: { snapshot: Snapshot; sessionId: string }) {
  return (
    <p>
      {snapshot.connection === "connected"
        ? `No session "${sessionId}" among the live and recent ones.`
        : "Loading…"}
    </p>
  );
}

/** Whether `box` shows its last line (its padding and zoom's rounding short still count). */
function atBottom(box: HTMLElement): boolean {
  return box.scrollHeight - box.scrollTop - box.clientHeight <= 12;
}
