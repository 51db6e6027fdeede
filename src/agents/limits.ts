/**
 * What a turn that failed on a provider's limit says about it (D33): which
 * limit (`rate_limit`: requests too fast, over in seconds or minutes;
 * `usage_limit`: a plan's quota, over at a reset time) and, when the agent
 * or its message tells, when it lifts. Each adapter reads its agent's own
 * signals (docs/harnesses.md "Limits"); the message text is read here.
 */

/** Which limit ended a turn (D33 `reason`). */
export type LimitReason = "rate_limit" | "usage_limit";

/** A turn's limit, as its agent reported it. */
export interface TurnLimit {
  reason: LimitReason;
  /** When the limit resets (ms since the epoch), when the agent said; else null. */
  resetsAt: number | null;
  /** The wait its message states ("try again in 20s"), in ms; else null. */
  retryAfterMs: number | null;
}

/** "Please try again in 20s", "Suggested retry after 2s", "retry in 2.5s", "retry after 1m". */
const STATED_DELAY =
  /(?:try again|retry)(?: after| in) (\d+(?:\.\d+)?) ?(ms|s|sec|seconds?|m|min|minutes?)\b/i;
/** A plan's quota, not a request rate (claude says when it is not: "not your usage limit"). */
const USAGE_TEXT =
  /hit your (?:session|usage|weekly|daily) limit|usage limit|daily quota|exceeded your current quota/i;
const NOT_USAGE_TEXT = /not your usage limit/i;
/** A message about a limit at all (an agent's error text that is not one is left alone). */
const LIMIT_TEXT = /rate.?limit|usage limit|quota|too many requests|\b429\b|session limit/i;

/** The delay a message states, in ms, or null. */
export function statedDelayMs(message: string): number | null {
  const match = STATED_DELAY.exec(message);
  if (match === null) return null;
  const unit = match[2].toLowerCase();
  const scale = unit === "ms" ? 1 : unit.startsWith("m") ? 60_000 : 1000;
  return Math.round(Number(match[1]) * scale);
}

/**
 * The limit an error message describes, or null when it is about no limit.
 * `known` says the agent already marked it as one (an HTTP 429): then a
 * message that names none is a rate limit. A quota message that states a
 * retry delay is a rate limit too (gemini's per-minute quota).
 */
export function limitFromMessage(
  message: string,
  { known = false, resetsAt = null }: { known?: boolean; resetsAt?: number | null } = {},
): TurnLimit | null {
  if (!known && !LIMIT_TEXT.test(message)) return null;
  const retryAfterMs = statedDelayMs(message);
  const usage = USAGE_TEXT.test(message) && !NOT_USAGE_TEXT.test(message) &&
    retryAfterMs === null;
  return { reason: usage ? "usage_limit" : "rate_limit", resetsAt, retryAfterMs };
}
