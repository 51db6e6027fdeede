import type { Usage } from "../agents/protocol.ts";

/** How `svc usage` groups sessions (D22). */
export const USAGE_GROUPS = ["harness", "routine", "day"] as const;
export type UsageGroup = typeof USAGE_GROUPS[number];

/** A session's share of the totals. */
export interface UsageRow {
  harness: string;
  routine_id: string | null;
  created_at: string;
  usage_json: string | null;
}

/** One group's totals; a figure no session of the group reported stays null (D22). */
export interface UsageTotal extends Usage {
  /** The harness, routine id (null: sessions launched directly) or local day `YYYY-MM-DD`. */
  key: string | null;
  sessions: number;
}

/**
 * Sums the sessions' usage by `group`, groups in key order; `zone` names
 * the time zone whose calendar days `day` uses. Pure.
 */
export function usageTotals(
  rows: readonly UsageRow[],
  group: UsageGroup,
  zone: string,
): { groups: UsageTotal[]; total: UsageTotal } {
  const groups = new Map<string | null, UsageTotal>();
  const total = emptyTotal(null);
  for (const row of rows) {
    const key = group === "harness"
      ? row.harness
      : group === "routine"
      ? row.routine_id
      : Temporal.Instant.from(row.created_at).toZonedDateTimeISO(zone).toPlainDate().toString();
    let entry = groups.get(key);
    if (!entry) groups.set(key, entry = emptyTotal(key));
    const usage = row.usage_json === null ? null : JSON.parse(row.usage_json) as Usage;
    add(entry, usage);
    add(total, usage);
  }
  const sorted = [...groups.values()].sort((a, b) => (a.key ?? "").localeCompare(b.key ?? ""));
  return { groups: sorted, total };
}

function emptyTotal(key: string | null): UsageTotal {
  return {
    key,
    sessions: 0,
    inputTokens: null,
    outputTokens: null,
    cachedInputTokens: null,
    costUsd: null,
  };
}

const FIGURES = ["inputTokens", "outputTokens", "cachedInputTokens", "costUsd"] as const;

function add(into: UsageTotal, usage: Usage | null): void {
  into.sessions++;
  if (usage === null) return;
  for (const figure of FIGURES) {
    const value = usage[figure];
    if (value !== null) into[figure] = (into[figure] ?? 0) + value;
  }
}
