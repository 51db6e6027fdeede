/// <reference lib="dom" />
/**
 * The page: its header, the daemon banner, and the view its URL names
 * (D30), with `svc ui`'s keys on the desktop (page_keys.ts) and their `?` help.
 */
import { useEffect, useSyncExternalStore } from "react";
import { hrefOf, type Route, routeOf } from "../route.ts";
import type { WebRuntime } from "../web_runtime.ts";
import { type FleetOptions, pageLists } from "../lists.ts";
import { keymapView } from "../keyboard.ts";
import { launchRefusal } from "../launch_form.ts";
import { KeyHelp } from "./key_help.tsx";
import { LandView } from "./land_view.tsx";
import { listOf, usePageKeys } from "./page_keys.ts";
import { ApprovalsView } from "./approvals_view.tsx";
import { AttentionView } from "./attention_view.tsx";
import { DiffView } from "./diff_view.tsx";
import { FleetView } from "./fleet_view.tsx";
import { InboxView } from "./inbox_view.tsx";
import { NewSessionView } from "./new_session_view.tsx";
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
  // svc ui's view state: the lists' selections, the fleet's options, the help, the last outcome.
  const viewed = useSyncExternalStore(runtime.view.subscribe, runtime.view.snapshot);
  const snapshot = useSyncExternalStore(runtime.store.subscribe, runtime.store.snapshot);
  useSyncExternalStore(subscribeToAddress, address);
  const route = routeOf(location);
  const { device } = page;
  const scopes = device.status === "paired" ? device.scopes : [];
  const view = device.status === "paired" ? keymapView(route) : null;
  const fleet: FleetOptions = { showEnded: viewed.showEnded, filter: viewed.filter };
  const help = viewed.help !== null;
  const lists = pageLists(snapshot, { scopes, fleet, nowMs: Date.now() });
  const list = listOf(route);
  const selected = list === null
    ? 0
    : Math.min(viewed.selected[list] ?? 0, Math.max(0, lists[list].length - 1));
  usePageKeys({ runtime, route, view, snapshot, scopes, lists, selected, help });
  useEffect(() => {
    // The selected row stays in sight as the keys move it.
    document.querySelector("li.selected")?.scrollIntoView({ block: "nearest" });
  }, [selected, list]);
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
  const SessionPage = route.view === "diff" ? DiffView : SessionView;
  return (
    <>
      <header>
        <nav aria-label="Views">
          <a href={hrefOf({ view: "fleet" })} aria-current={current(route, "fleet")}>Fleet</a>
          <a href={hrefOf({ view: "attention" })} aria-current={current(route, "attention")}>
            Attention ({lists.attention.length})
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
          <a href={hrefOf({ view: "land" })} aria-current={current(route, "land")}>
            Land ({lists.land.length})
          </a>
          {launchRefusal(scopes) === null && (
            <a
              className="new-session"
              href={hrefOf({ view: "new" })}
              aria-current={current(route, "new")}
            >
              New session
            </a>
          )}
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
      {viewed.message !== null && route.view !== "new" && (
        <div className={viewed.message.ok ? "outcome" : "outcome bad"} role="status">
          {viewed.message.message}
        </div>
      )}
      <main>
        {help && view !== null
          ? <KeyHelp view={view} onClose={() => runtime.view.dispatch("back")} />
          : route.view === "attention"
          ? <AttentionView rows={lists.attention} selected={selected} />
          : route.view === "approvals"
          ? (
            <ApprovalsView
              runtime={runtime}
              snapshot={snapshot}
              scopes={scopes}
              selected={selected}
            />
          )
          : route.view === "routines"
          ? <RoutinesView runtime={runtime} rows={lists.routines} selected={selected} />
          : route.view === "inbox"
          ? (
            <InboxView
              runtime={runtime}
              snapshot={snapshot}
              runId={route.runId}
              rows={lists.inbox}
              selected={selected}
            />
          )
          : route.view === "land"
          ? <LandView runtime={runtime} rows={lists.land} scopes={scopes} selected={selected} />
          : route.view === "new"
          ? <NewSessionView runtime={runtime} snapshot={snapshot} scopes={scopes} />
          : route.view === "session" || route.view === "diff"
          ? (
            <SessionPage
              runtime={runtime}
              snapshot={snapshot}
              scopes={scopes}
              sessionId={route.sessionId}
            />
          )
          : (
            <FleetView
              snapshot={snapshot}
              rows={lists.fleet}
              selected={selected}
              options={fleet}
              onFilter={(filter) => runtime.view.setFilter(filter)}
            />
          )}
      </main>
    </>
  );
}

function current(route: Route, view: Route["view"]): "page" | undefined {
  return route.view === view ? "page" : undefined;
}
