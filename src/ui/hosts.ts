/**
 * One view of several daemons (D32's `svc ui --context A --context B`):
 * each host's snapshot merged into one, so the views and the keymap work
 * on it as on one daemon's. Every id in the merged snapshot (sessions,
 * approvals, routines, runs, land items) is host-qualified, `HOST/ID`, so
 * two hosts' ids never meet and an action knows where to go (hosts_actions.ts).
 * With one host the snapshot is that host's, untouched. Pure: no I/O.
 */
import { uniquePrefixLength } from "./format.ts";
import type { SessionRecord, Snapshot } from "./model.ts";

/** How one host (a context) stands, for its banner and the header. */
export interface HostStatus {
  /** The context's name (`local` for this machine's daemon). */
  readonly name: string;
  readonly connection: Snapshot["connection"];
  /** Why it is away, or that it restarted; null when all is well. */
  readonly banner: string | null;
}

/** What the views read: the merged snapshot and every host's status, in the order given. */
export type HostsSnapshot = Snapshot & { readonly hosts: readonly HostStatus[] };

/** One host's name and snapshot, as a merge takes them. */
export interface HostSnapshot {
  readonly name: string;
  readonly snapshot: Snapshot;
}

/** The id of `id` on `host` in a merged snapshot (context names never hold a `/`). */
export function hostedId(host: string, id: string): string {
  return `${host}/${id}`;
}

/** A merged snapshot's id taken apart: the host and the daemon's own id. */
export function splitHostedId(hosted: string): { host: string; id: string } {
  const slash = hosted.indexOf("/");
  return slash < 0
    ? { host: "", id: hosted }
    : { host: hosted.slice(0, slash), id: hosted.slice(slash + 1) };
}

/**
 * The id a view shows for `id` of a snapshot of `hosts.length` hosts: the
 * daemon's own id (the host has its column), so it is what the CLI takes.
 */
export function shownId(id: string, multiHost: boolean): string {
  return multiHost ? splitHostedId(id).id : id;
}

/**
 * The columns of a session id that tell every listed session apart, over
 * every host's sessions (D25's prefix the CLI accepts, with `--context`).
 */
export function sessionIdWidth(snapshot: HostsSnapshot): number {
  const multiHost = snapshot.hosts.length > 1;
  return uniquePrefixLength(
    new Set([...snapshot.sessions.keys()].map((id) => shownId(id, multiHost))),
  );
}

/**
 * The banners of the header: one per host that has something to say, named
 * when there are several; `away` when its daemon does not answer.
 */
export function hostsBanners(
  snapshot: Pick<HostsSnapshot, "banner" | "connection" | "hosts">,
): Array<{ text: string; away: boolean }> {
  if (snapshot.hosts.length <= 1) {
    return snapshot.banner === null
      ? []
      : [{ text: snapshot.banner, away: snapshot.connection === "disconnected" }];
  }
  return snapshot.hosts.flatMap((host) =>
    host.banner === null
      ? []
      : [{ text: `${host.name}: ${host.banner}`, away: host.connection === "disconnected" }]
  );
}

/**
 * The hosts' snapshots as one. One host: its snapshot with its status.
 * Several: every id host-qualified, each session tagged with its `host`,
 * approvals oldest first across hosts, today's cost summed over the hosts
 * that know it, and every host's harnesses (`HOST/ID`: a launch goes there).
 */
export function mergeHosts(hosts: readonly HostSnapshot[]): HostsSnapshot {
  const statuses = hosts.map(({ name, snapshot }) => ({
    name,
    connection: snapshot.connection,
    banner: snapshot.banner,
  }));
  if (hosts.length === 1) return { ...hosts[0].snapshot, hosts: statuses };
  const sessions = new Map<string, SessionRecord>();
  const lastEventAt = new Map<string, number>();
  const unseen = new Set<string>();
  const approvals: Array<Snapshot["approvals"][number]> = [];
  const routines: Array<Snapshot["routines"][number]> = [];
  const inbox: Array<Snapshot["inbox"][number]> = [];
  const landQueue: Array<Snapshot["landQueue"][number]> = [];
  const harnesses: Array<Snapshot["harnesses"][number]> = [];
  let todayCostUsd: number | null = null;
  for (const { name, snapshot } of hosts) {
    const q = (id: string) => hostedId(name, id);
    for (const [id, session] of snapshot.sessions) {
      sessions.set(q(id), { ...session, id: q(id), host: name });
    }
    for (const [id, at] of snapshot.lastEventAt) lastEventAt.set(q(id), at);
    for (const id of snapshot.unseen) unseen.add(q(id));
    for (const approval of snapshot.approvals) {
      approvals.push({ ...approval, sessionId: q(approval.sessionId) });
    }
    for (const routine of snapshot.routines) {
      routines.push({
        ...routine,
        id: q(routine.id),
        lastRun: routine.lastRun && { ...routine.lastRun, id: q(routine.lastRun.id) },
      });
    }
    for (const entry of snapshot.inbox) {
      inbox.push({ ...entry, runId: q(entry.runId), routineId: q(entry.routineId) });
    }
    for (const item of [...snapshot.landQueue].sort((a, b) => a.position - b.position)) {
      landQueue.push({ ...item, itemId: q(item.itemId), sessionId: q(item.sessionId) });
    }
    // A harness of each host is a choice of its own: the form's choice says where to launch.
    for (const harness of snapshot.harnesses) {
      harnesses.push({ id: q(harness.id), label: `${harness.label} on ${name}` });
    }
    if (snapshot.todayCostUsd !== null) todayCostUsd = (todayCostUsd ?? 0) + snapshot.todayCostUsd;
  }
  const banners = hostsBanners({ banner: null, connection: "connected", hosts: statuses });
  return {
    connection: mergedConnection(statuses),
    banner: banners.length === 0 ? null : banners.map((banner) => banner.text).join(" · "),
    daemon: null,
    sessions,
    lastEventAt,
    approvals: approvals.sort((a, b) =>
      Date.parse(a.requestedAt) - Date.parse(b.requestedAt) ||
      a.sessionId.localeCompare(b.sessionId)
    ),
    routines,
    inbox,
    harnesses,
    todayCostUsd,
    // Positions are per host's queue: each host's items stay together, in its order.
    landQueue: landQueue.map((item, position) => ({ ...item, position })),
    unseen,
    hosts: statuses,
  };
}

/** Connected while any host answers; disconnected only when none does. */
function mergedConnection(hosts: readonly HostStatus[]): Snapshot["connection"] {
  if (hosts.some((host) => host.connection === "connected")) return "connected";
  if (hosts.every((host) => host.connection === "disconnected")) return "disconnected";
  return "connecting";
}
