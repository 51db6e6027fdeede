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

/** The ten versioned automation actions (C4.1). */
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
      policy: "none",
      actions: [],
    },
    {
      id: "svc.automations",
      label: "Automations",
      owner: "scheduler",
      status: "enabled",
      policy: "approval-required",
      actions: [...AUTOMATION_ACTIONS],
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

/** Holds the latest probe of the harness programs; `refresh` probes again. */
export class CapabilityRegistry {
  #harnesses: HarnessStatus[] = [];
  #records: CapabilityRecord[] = capabilityRecords([]);
  #json = JSON.stringify(this.#records);
  readonly #probe: () => Promise<HarnessStatus[]>;

  constructor(probe: () => Promise<HarnessStatus[]>) {
    this.#probe = probe;
  }

  /** Re-probes every harness program and returns the new records. */
  async refresh(): Promise<readonly CapabilityRecord[]> {
    this.#harnesses = await this.#probe();
    this.#records = capabilityRecords(this.#harnesses);
    this.#json = JSON.stringify(this.#records);
    return this.list();
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
}
