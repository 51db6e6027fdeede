/// <reference lib="dom" />
/**
 * An isolated session's diff and land view (`/#/s/<id>/diff`, D27, D34), for
 * an `operate` device: the land check line, the diff as React text in a
 * `<pre>` (never HTML: it is the agent's work), the land buttons when it
 * lands cleanly on a branch, and Discard, which asks on the page first.
 */
import { useEffect, useState } from "react";
import type { Snapshot } from "../../../ui/model.ts";
import { hrefOf } from "../route.ts";
import type { WebRuntime } from "../web_runtime.ts";
import { MissingSession } from "./session_view.tsx";
import { discardQuestion, landLabel, offersDiff, type Review } from "../worktree_review.ts";

export function DiffView(
  { runtime, snapshot, scopes, sessionId }: {
    runtime: WebRuntime;
    snapshot: Snapshot;
    scopes: readonly string[];
    sessionId: string;
  },
) {
  const session = snapshot.sessions.get(sessionId) ?? null;
  const offered = session !== null && offersDiff(session, scopes);
  const [review, setReview] = useState<Review | null>(null);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (!offered) return;
    let current = true;
    setReview(null);
    void runtime.review(sessionId).then((read) => current && setReview(read));
    return () => {
      current = false;
    };
  }, [runtime, sessionId, offered, generation]);
  const back = <a href={hrefOf({ view: "session", sessionId })}>Back to the session</a>;
  if (session === null) return <MissingSession snapshot={snapshot} sessionId={sessionId} />;
  if (!offered) {
    return <p>{back} · This session has no worktree to review, or this device may not.</p>;
  }
  const act = async (run: () => Promise<boolean>) => {
    setBusy(true);
    await run();
    setBusy(false);
    setAsking(false);
    setGeneration((value) => value + 1);
  };
  const more = async () => {
    if (review === null) return;
    setBusy(true);
    setReview(await runtime.moreDiff(sessionId, review));
    setBusy(false);
  };
  const question = discardQuestion(session);
  return (
    <section aria-labelledby="diff-title" className="review">
      <p>{back}</p>
      <h1 id="diff-title">Diff of {session.title || session.id}</h1>
      {review === null ? <p>Loading…</p> : (
        <>
          <p className="check" aria-label="Land check">{review.check}</p>
          {review.modes.length > 0 && (
            <div className="controls">
              {review.modes.map((mode) => (
                <button
                  key={mode}
                  type="button"
                  disabled={busy}
                  onClick={() => act(() => runtime.land(session.id, mode))}
                >
                  {landLabel(mode)}
                </button>
              ))}
            </div>
          )}
          {review.problem !== null && <p role="alert">{review.problem}</p>}
          {review.diff !== null && (
            <pre className="result" aria-label="Diff">
              {review.diff === "" ? "No changes." : review.diff}
            </pre>
          )}
          {review.nextOffset !== null && (
            <button type="button" disabled={busy} onClick={more}>More of the diff</button>
          )}
        </>
      )}
      {asking
        ? (
          <div className="confirm" role="group" aria-label="Discard?">
            <p>{question.question}</p>
            <p>{question.warning}</p>
            <div className="controls">
              <button
                type="button"
                disabled={busy}
                onClick={() => act(() => runtime.discard(session.id))}
              >
                Discard for good
              </button>
              <button type="button" onClick={() => setAsking(false)}>Keep it</button>
            </div>
          </div>
        )
        : (
          <div className="controls">
            <button type="button" disabled={busy} onClick={() => setAsking(true)}>Discard</button>
          </div>
        )}
    </section>
  );
}
