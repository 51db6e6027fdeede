/// <reference lib="dom" />
/** The page: its header, the daemon banner, and the view its URL names (D30). */
import { useSyncExternalStore } from "react";
import { hrefOf, type Route, routeOf } from "../route.ts";
import type { WebRuntime } from "../web_runtime.ts";
import { attentionRows } from "../lists.ts";
import { ApprovalsView } from "./approvals_view.tsx";
import { AttentionView } from "./attention_view.tsx";
import { DiffView } from "./diff_view.tsx";
import { FleetView } from "./fleet_view.tsx";
import { InboxView } from "./inbox_view.tsx";
import { RoutinesView } from "./routines_view.tsx";
import { SessionView } from "./session_view.tsx";

function subscribeToAddress(listener: () => void): () => void {
  addEventListener("hashchange", listener);
  addEventListener("popstate", listener);
  return () => {
    removeEventListener("hashchange", listener);
    removeEventListener("popstate", listener);
  };
}

const address = () => `${location.pathname}${location.hash}`;

export function App({ runtime }: { runtime: WebRuntime }) {
  const page = useSyncExternalStore(runtime.subscribe, runtime.snapshot);
  const snapshot = useSyncExternalStore(runtime.store.subscribe, runtime.store.snapshot);
  useSyncExternalStore(subscribeToAddress, address);
  const route = routeOf(location);
  const { device } = page;
  if (device.status === "revoked") {
    return (
      <main className="notice" role="alert">
        <h1>This device was revoked</h1>
        <p>
          The owner revoked this device. To use it again, run <code>svc devices pair</code>{" "}
          on the owner's machine and open the address it prints.
        </p>
      </main>
    );
  }
  if (page.pairingError !== null || device.status === "not_paired") {
    return (
      <main className="notice" role="alert">
        <h1>{page.pairingError === null ? "This device is not paired" : "Pairing failed"}</h1>
        <p>
          {page.pairingError ??
            "Run svc devices pair on the owner's machine and open the address it prints."}
        </p>
      </main>
    );
  }
  if (device.status === "checking") return <main className="notice">Pairing…</main>;
  const scopes = device.status === "paired" ? device.scopes : [];
  const SessionPage = route.view === "diff" ? DiffView : SessionView;
  return (
    <>
      <header>
        <nav aria-label="Views">
          <a href={hrefOf({ view: "fleet" })} aria-current={current(route, "fleet")}>Fleet</a>
          <a href={hrefOf({ view: "attention" })} aria-current={current(route, "attention")}>
            Attention ({attentionRows(snapshot, Date.now()).length})
          </a>
          <a href={hrefOf({ view: "approvals" })} aria-current={current(route, "approvals")}>
            Approvals ({snapshot.approvals.length})
          </a>
          <a href={hrefOf({ view: "routines" })} aria-current={current(route, "routines")}>
            Routines
          </a>
          <a href={hrefOf({ view: "inbox", runId: null })} aria-current={current(route, "inbox")}>
            Inbox ({snapshot.inbox.filter((entry) => entry.readAt === null).length})
          </a>
        </nav>
        {device.status === "paired" && (
          <span className="device">{device.name} · {device.scopes.join(", ")}</span>
        )}
      </header>
      {snapshot.connection !== "connected" && (
        <div className="banner" role="status">
          {snapshot.banner ?? "Connecting to the daemon…"}
        </div>
      )}
      {page.outcome !== null && (
        <div className={page.outcome.ok ? "outcome" : "outcome bad"} role="status">
          {page.outcome.message}
        </div>
      )}
      <main>
        {route.view === "attention"
          ? <AttentionView snapshot={snapshot} />
          : route.view === "approvals"
          ? <ApprovalsView runtime={runtime} snapshot={snapshot} scopes={scopes} />
          : route.view === "routines"
          ? <RoutinesView runtime={runtime} snapshot={snapshot} scopes={scopes} />
          : route.view === "inbox"
          ? <InboxView runtime={runtime} snapshot={snapshot} runId={route.runId} />
          : route.view === "session" || route.view === "diff"
          ? (
            <SessionPage
              runtime={runtime}
              snapshot={snapshot}
              scopes={scopes}
              sessionId={route.sessionId}
            />
          )
          : <FleetView snapshot={snapshot} />}
      </main>
    </>
  );
}

function current(route: Route, view: Route["view"]): "page" | undefined {
  return route.view === view ? "page" : undefined;
}
