/** Capability records (C2.4, D5): what the daemon offers, not who may use it. */

export type CapabilityStatus = "enabled" | "disabled" | "degraded";

/** One capability record (C2.4). */
export interface CapabilityRecord {
  id: string;
  label: string;
  owner: string;
  status: CapabilityStatus;
  policy: string;
  actions: string[];
}

/** A harness as probed on this machine. */
export interface HarnessStatus {
  id: string;
  label: string;
  status: CapabilityStatus;
}

/**
 * The ten versioned automation actions (C4.1), then worktrees and results
 * (D20, D21), and pausing and activating by id (D30).
 */
export const AUTOMATION_ACTIONS: readonly string[] = [
  "svc.automations.list",
  "svc.automations.get",
  "svc.automations.create",
  "svc.automations.update",
  "svc.automations.delete",
  "svc.automations.tick",
  "svc.automations.runs",
  "svc.automations.run",
  "svc.automations.import",
  "svc.automations.health",
  "svc.automations.worktrees",
  "svc.automations.prune",
  "svc.automations.inbox",
  "svc.automations.overview",
  "svc.automations.result",
  "svc.automations.pause",
  "svc.automations.activate",
];

/** The session actions (D18): answer a permission request, list the pending ones. */
export const SESSION_ACTIONS: readonly string[] = [
  "svc.sessions.approve",
  "svc.sessions.approvals",
];

/**
 * The standing approval rules (D28): add and remove (owner-only); they are
 * read with `GET /approval-rules`, the decisions with `GET /approvals/log`.
 */
export const APPROVAL_RULE_ACTIONS: readonly string[] = [
  "svc.approvals.rules.add",
  "svc.approvals.rules.remove",
];

/** Builds the records from the current harness probe results (D5's table). */
export function capabilityRecords(harnesses: readonly HarnessStatus[]): CapabilityRecord[] {
  return [
    {
      id: "svc.capabilities",
      label: "Capabilities",
      owner: "core",
      status: "enabled",
      policy: "none",
      actions: ["svc.capabilities.refresh"],
    },
    {
      id: "svc.sessions",
      label: "Harness sessions",
      owner: "core",
      status: "enabled",
      policy: "approval-required",
      actions: [...SESSION_ACTIONS],
    },
    {
      // D26: `POST /sessions/{id}/resume` continues an ended conversation (owner-only).
      id: "svc.sessions.resume",
      label: "Resume ended conversations",
      owner: "core",
      status: "enabled",
      policy: "owner-only",
      actions: [],
    },
    {
      id: "svc.approvals",
      label: "Approval rules",
      owner: "core",
      status: "enabled",
      policy: "approval-required",
      actions: [...APPROVAL_RULE_ACTIONS],
    },
    {
      id: "svc.automations",
      label: "Automations",
      owner: "scheduler",
      status: "enabled",
      policy: "approval-required",
      actions: [...AUTOMATION_ACTIONS],
    },
    {
      // D27: GET /sessions/{id}/worktree/diff, POST .../land and .../discard (routes, owner-only).
      id: "svc.worktrees",
      label: "Review, land and discard isolated runs' worktrees",
      owner: "core",
      status: "enabled",
      policy: "owner-only",
      actions: [],
    },
    {
      // D34: GET /sessions/{id}/worktree/check, land verify, /land-queue (routes, owner-only).
      id: "svc.land_queue",
      label: "Check, verify and queue lands, sending failures back to their agents",
      owner: "core",
      status: "enabled",
      policy: "owner-only",
      actions: [],
    },
    ...harnesses.map((harness) => ({
      id: `svc.harness.${harness.id}`,
      label: harness.label,
      owner: harness.id,
      status: harness.status,
      policy: "none",
      actions: [],
    })),
  ];
}

/** The two phases of a probe: programs looked up (fast), then built-ins' version probes. */
export interface HarnessProbes {
  find(): Promise<HarnessStatus[]>;
  verify(): Promise<HarnessStatus[]>;
}

/**
 * Holds the latest probe of the harness programs. A refresh first looks the
 * programs up (milliseconds: `enabled` or `disabled`), then runs the
 * built-ins' version probes (seconds for some CLIs), which may only demote a
 * harness to `degraded`. The daemon listens after the first phase, so slow
 * CLIs never delay `/health`; `probing` says the second phase still runs.
 */
export class CapabilityRegistry {
  #harnesses: HarnessStatus[] = [];
  #records: CapabilityRecord[] = capabilityRecords([]);
  #json = JSON.stringify(this.#records);
  readonly #probes: HarnessProbes;
  #found: Promise<void> = Promise.resolve();
  #refreshing: Promise<readonly CapabilityRecord[]> | null = null;

  constructor(probes: HarnessProbes) {
    this.#probes = probes;
  }

  /** Re-probes every harness program; resolves with the records once both phases are done. */
  refresh(): Promise<readonly CapabilityRecord[]> {
    if (this.#refreshing) return this.#refreshing;
    let foundDone!: () => void;
    this.#found = new Promise((resolve) => foundDone = resolve);
    const refreshing = (async () => {
      try {
        this.#set(await this.#probes.find());
      } finally {
        foundDone();
      }
      this.#set(await this.#probes.verify());
      return this.list();
    })();
    this.#refreshing = refreshing;
    refreshing.finally(() => {
      if (this.#refreshing === refreshing) this.#refreshing = null;
    }).catch(() => {});
    return refreshing;
  }

  /**
   * The last probe's records without probing (a TCP refresh, D23): those of
   * the refresh under way once it ends, else the current ones.
   */
  latest(): Promise<readonly CapabilityRecord[]> {
    return this.#refreshing ?? Promise.resolve(this.list());
  }

  /** Resolves once the running refresh has looked the programs up. */
  found(): Promise<void> {
    return this.#found;
  }

  /** True while version probes run (health reports it). */
  get probing(): boolean {
    return this.#refreshing !== null;
  }

  /** The current records (the same array until the next refresh: do not mutate it). */
  list(): readonly CapabilityRecord[] {
    return this.#records;
  }

  /** The current records as JSON text, serialised once per refresh (the /health hot path). */
  json(): string {
    return this.#json;
  }

  /** The probed status of harness `id`, or null when there is no such harness. */
  harness(id: string): HarnessStatus | null {
    return this.#harnesses.find((harness) => harness.id === id) ?? null;
  }

  #set(harnesses: HarnessStatus[]): void {
    this.#harnesses = harnesses;
    this.#records = capabilityRecords(harnesses);
    this.#json = JSON.stringify(this.#records);
  }
}
