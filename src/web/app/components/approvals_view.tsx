/**
 * The approvals (`/#/approvals`, D30): each pending request a list item
 * named by its tool and whole command, every path shown, and Allow, Deny
 * and Always (a rule for this session) when the device may answer.
 */
import type { Snapshot } from "../../../ui/model.ts";
import { approvalCard } from "../approval_card.ts";
import { allows } from "../device.ts";
import { hrefOf } from "../route.ts";
import type { WebRuntime } from "../web_runtime.ts";
import { selectedProps } from "./selection.ts";

export function ApprovalsView(
  { runtime, snapshot, scopes, selected }: {
    runtime: WebRuntime;
    snapshot: Snapshot;
    scopes: readonly string[];
    selected: number;
  },
) {
  const nowMs = Date.now();
  const mayAnswer = allows(scopes, "approve");
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      {snapshot.approvals.length === 0
        ? <p>Nothing waits for an answer.</p>
        : (
          <ul className="approvals">
            {snapshot.approvals.map((approval, index) => {
              const card = approvalCard(approval, nowMs);
              return (
                <li
                  key={card.key}
                  aria-label={card.label}
                  {...selectedProps(index === selected, "card")}
                >
                  <div className="tool">{card.tool}</div>
                  <pre className="command">{card.command}</pre>
                  {card.paths.length > 0 && (
                    <ul className="paths" aria-label="Paths">
                      {card.paths.map((path) => <li key={path}>{path}</li>)}
                    </ul>
                  )}
                  {card.grants !== null && <p className="grants">Allowing grants: {card.grants}</p>}
                  <p className="meta">
                    <a href={hrefOf({ view: "session", sessionId: approval.sessionId })}>
                      {approval.sessionId}
                    </a>{" "}
                    · {card.left}
                  </p>
                  {mayAnswer
                    ? (
                      <div className="answers">
                        <button type="button" onClick={() => runtime.answer(approval, "allow")}>
                          Allow
                        </button>
                        <button type="button" onClick={() => runtime.answer(approval, "deny")}>
                          Deny
                        </button>
                        <button
                          type="button"
                          title="Allow, and allow the same again in this session"
                          onClick={() => runtime.answer(approval, "always")}
                        >
                          Always
                        </button>
                      </div>
                    )
                    : <p className="meta">This device may read only.</p>}
                </li>
              );
            })}
          </ul>
        )}
    </section>
  );
}
