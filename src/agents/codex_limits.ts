/**
 * Codex app-server's limit signals (D33, docs/harnesses.md "Limits"):
 * `account/rateLimits/updated` carries each window's use and reset (from the
 * provider's `x-codex-*` headers), and a turn that failed on a limit names it
 * in `codexErrorInfo`: `usageLimitExceeded`, or
 * `responseTooManyFailedAttempts` with HTTP status 429 after its retries.
 */
import { type Json, num, obj, str } from "./json_fields.ts";
import { limitFromMessage, type TurnLimit } from "./limits.ts";

/**
 * The reset (ms since the epoch) of the used-up windows in an
 * `account/rateLimits/updated` notification — the latest, as every one of
 * them must reset — or null when none is used up.
 */
export function exhaustedWindowsReset(params: Json): number | null {
  const limits = obj(params.rateLimits);
  let resetsAt: number | null = null;
  for (const window of [obj(limits?.primary), obj(limits?.secondary)]) {
    const used = num(window?.usedPercent);
    const reset = num(window?.resetsAt);
    if (used === null || used < 100 || reset === null) continue;
    resetsAt = Math.max(resetsAt ?? 0, reset * 1000);
  }
  return resetsAt;
}

/** The limit a failed turn's `error` names, or null; `resetsAt` from the rate-limit windows. */
export function codexTurnLimit(error: Json | null, resetsAt: number | null): TurnLimit | null {
  if (error === null) return null;
  const info = error.codexErrorInfo;
  const message = str(error.message) ?? "";
  if (info === "usageLimitExceeded") {
    return { ...limitFromMessage(message, { known: true })!, reason: "usage_limit", resetsAt };
  }
  const status = num(obj(obj(info)?.responseTooManyFailedAttempts)?.httpStatusCode);
  if (status === 429) return limitFromMessage(message, { known: true, resetsAt });
  return null;
}
