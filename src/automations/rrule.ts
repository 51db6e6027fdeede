import { invalidRequest, type ServiceError } from "../errors.ts";

/** Days of the week in RFC 5545 spelling, Monday first (ISO order). */
export const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;

/** One day of the week as RFC 5545 writes it. */
export type Weekday = (typeof WEEKDAYS)[number];

/** The recurrence rules svc runs (D12): daily or weekly, at whole hours. */
export interface RruleSubset {
  freq: "DAILY" | "WEEKLY";
  /** Sorted, unique, 0–23. */
  hours: number[];
  /** Sorted Monday first, unique; `null` means every day. */
  days: Weekday[] | null;
}

const FIELD = "definition.rrule";
const ACCEPTED = "only FREQ, BYHOUR, BYDAY, BYMINUTE=0 and BYSECOND=0 are accepted";

/**
 * Parses the D12 subset of an RFC 5545 RRULE (optional leading `RRULE:`).
 * Anything outside the subset throws 400 `invalid_request` on
 * `definition.rrule` naming the part: a rule is never approximated.
 */
export function parseRrule(text: string): RruleSubset {
  const body = text.startsWith("RRULE:") ? text.slice("RRULE:".length) : text;
  if (body === "") throw refuse("RRULE is empty: FREQ and BYHOUR are required");
  const values = new Map<string, string>();
  for (const part of body.split(";")) {
    const match = /^([A-Z-]+)=(.+)$/.exec(part);
    if (match === null) {
      throw refuse(`Malformed RRULE part "${part}": expected NAME=VALUE in upper case`);
    }
    const [, name, value] = match;
    if (values.has(name)) throw refuse(`Duplicate RRULE part "${part}": ${name} is given twice`);
    values.set(name, value);
  }
  let freq: RruleSubset["freq"] | undefined;
  let hours: number[] | undefined;
  let days: Weekday[] | null = null;
  for (const [name, value] of values) {
    const part = `${name}=${value}`;
    switch (name) {
      case "FREQ":
        if (value !== "DAILY" && value !== "WEEKLY") {
          throw refuse(
            `Unsupported RRULE part "${part}": only FREQ=DAILY and FREQ=WEEKLY are accepted`,
          );
        }
        freq = value;
        break;
      case "BYHOUR":
        hours = parseHours(value, part);
        break;
      case "BYDAY":
        days = parseDays(value, part);
        break;
      case "BYMINUTE":
      case "BYSECOND":
        if (!/^0{1,2}$/.test(value)) {
          throw refuse(`Unsupported RRULE part "${part}": only ${name}=0 is accepted`);
        }
        break;
      default:
        throw refuse(`Unsupported RRULE part "${part}": ${ACCEPTED}`);
    }
  }
  if (freq === undefined) throw refuse("RRULE lacks FREQ: FREQ=DAILY or FREQ=WEEKLY is required");
  if (hours === undefined) throw refuse("RRULE lacks BYHOUR: the hours to run at are required");
  // D12 as amended: FREQ=WEEKLY without BYDAY runs on Mondays, as the origin daemon does.
  return { freq, hours, days: freq === "WEEKLY" && days === null ? ["MO"] : days };
}

function parseHours(value: string, part: string): number[] {
  const hours = new Set<number>();
  for (const item of value.split(",")) {
    const hour = /^\d{1,2}$/.test(item) ? Number(item) : NaN;
    if (!(hour >= 0 && hour <= 23)) {
      throw refuse(`Unsupported RRULE part "${part}": BYHOUR accepts whole hours 0 to 23`);
    }
    hours.add(hour);
  }
  return [...hours].sort((a, b) => a - b);
}

function parseDays(value: string, part: string): Weekday[] {
  const days = new Set<Weekday>();
  for (const item of value.split(",")) {
    const day = WEEKDAYS.find((weekday) => weekday === item);
    if (day === undefined) {
      throw refuse(
        `Unsupported RRULE part "${part}": BYDAY accepts MO, TU, WE, TH, FR, SA and SU without ordinals`,
      );
    }
    days.add(day);
  }
  return WEEKDAYS.filter((weekday) => days.has(weekday));
}

function refuse(message: string): ServiceError {
  return invalidRequest(message, FIELD);
}
