/**
 * The inbox (`/#/inbox`, D30): routine runs' results, unread first; one
 * opens at `/#/inbox/<run id>` as plain text (React text in a `<pre>`,
 * never HTML: a result holds an agent's message) with Mark read. Reading
 * needs only the read scope.
 */
import { useEffect, useState } from "react";
import type { Snapshot } from "../../../ui/model.ts";
import type { InboxRow } from "../lists.ts";
import { hrefOf } from "../route.ts";
import type { WebRuntime } from "../web_runtime.ts";
import { selectedProps } from "./selection.ts";

export function InboxView(
  { runtime, snapshot, runId, rows, selected }: {
    runtime: WebRuntime;
    snapshot: Snapshot;
    runId: string | null;
    rows: readonly InboxRow[];
    selected: number;
  },
) {
  if (runId !== null) return <ResultView runtime={runtime} snapshot={snapshot} runId={runId} />;
  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">Inbox</h1>
      {rows.length === 0 ? <p>The inbox is empty.</p> : (
        <ul className="fleet inbox">
          {rows.map((row, index) => (
            <li key={row.runId} aria-label={row.label} {...selectedProps(index === selected)}>
              <a href={hrefOf({ view: "inbox", runId: row.runId })}>
                <span className="unread" aria-label={row.unread ? "unread" : "read"}>
                  {row.unread ? "•" : ""}
                </span>
                <span className="title">{row.headline || row.status}</span>
                <span className="meta">
                  {row.routineId} · {row.status}
                  {row.ended === "" ? "" : ` · ${row.ended}`} · {row.runId}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ResultView(
  { runtime, snapshot, runId }: { runtime: WebRuntime; snapshot: Snapshot; runId: string },
) {
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  useEffect(() => {
    let current = true;
    setResult(null);
    void runtime.result(runId).then((read) => current && setResult(read));
    return () => {
      current = false;
    };
  }, [runtime, runId]);
  const entry = snapshot.inbox.find((item) => item.runId === runId);
  return (
    <section aria-labelledby="result-title">
      <p>
        <a href={hrefOf({ view: "inbox", runId: null })}>Back to the inbox</a>
      </p>
      <h1 id="result-title">Result of {runId}</h1>
      {entry?.readAt === null && (
        <div className="controls">
          <button type="button" onClick={() => runtime.markRead(runId)}>Mark read</button>
        </div>
      )}
      {result === null
        ? <p>Loading…</p>
        : result.ok
        ? <pre className="result" aria-label="Result">{result.text}</pre>
        : <p role="alert">{result.text}</p>}
    </section>
  );
}
