import { type RruleSubset, WEEKDAYS } from "./rrule.ts";

/**
 * The zone a definition's `timezone` names: `utc` is "UTC", `local` the
 * daemon host's zone (D12), read from Temporal unless `hostZone` is given.
 */
export function resolveTimeZone(
  timezone: "local" | "utc",
  hostZone: string = Temporal.Now.timeZoneId(),
): string {
  return timezone === "utc" ? "UTC" : hostZone;
}

/**
 * The rule's occurrence instants (epoch ms) strictly after `afterMs`,
 * ascending and without end. Each selected local day and hour maps to an
 * instant with RFC 5545 §3.3.5 semantics (D12): a time in a spring-forward gap
 * moves forward by the gap, a repeated hour runs at its first instant. Two
 * local hours that land on the same instant yield it once.
 */
export function* occurrencesAfter(
  rule: RruleSubset,
  afterMs: number,
  timeZone: string,
): Generator<number, never> {
  if (rule.hours.length === 0 || rule.days?.length === 0) {
    throw new RangeError("Recurrence rule selects no hour or no day");
  }
  // Start a day early: a gap can push the previous local day's hours past `afterMs`.
  let date = Temporal.Instant.fromEpochMilliseconds(afterMs).toZonedDateTimeISO(timeZone)
    .toPlainDate().subtract({ days: 1 });
  let latest = afterMs;
  while (true) {
    if (rule.days === null || rule.days.includes(WEEKDAYS[date.dayOfWeek - 1])) {
      for (const hour of rule.hours) {
        const instant = date.toPlainDateTime({ hour })
          .toZonedDateTime(timeZone, { disambiguation: "compatible" }).epochMilliseconds;
        if (instant > latest) {
          latest = instant;
          yield instant;
        }
      }
    }
    date = date.add({ days: 1 });
  }
}

/** The first occurrence of `rule` strictly after `afterMs` (epoch ms) in `timeZone`. */
export function nextOccurrence(rule: RruleSubset, afterMs: number, timeZone: string): number {
  return occurrencesAfter(rule, afterMs, timeZone).next().value;
}

/**
 * The occurrences in (`fromExclusiveMs`, `toInclusiveMs`], ascending, at most
 * `max` of them (the earliest).
 */
export function occurrencesBetween(
  rule: RruleSubset,
  fromExclusiveMs: number,
  toInclusiveMs: number,
  timeZone: string,
  max = 1000,
): number[] {
  const found: number[] = [];
  const occurrences = occurrencesAfter(rule, fromExclusiveMs, timeZone);
  while (found.length < max) {
    const instant = occurrences.next().value;
    if (instant > toInclusiveMs) break;
    found.push(instant);
  }
  return found;
}
