import { invalidRequest } from "../errors.ts";

/**
 * Reads an integer query parameter: absent → undefined; not an integer →
 * 400 `invalid_request` naming it; out of [min, max] → clamped (C4.2 clamps
 * `limit`, it never rejects a range).
 */
export function integerParam(
  url: URL,
  name: string,
  { min, max }: { min: number; max: number },
): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return undefined;
  if (!/^-?\d+$/.test(raw.trim())) {
    throw invalidRequest(`Query parameter "${name}" must be an integer, got "${raw}"`, name);
  }
  const value = Number(raw.trim());
  return Math.min(max, Math.max(min, value));
}

/** A cursor parameter: a non-negative integer, else 400 (C4.2 `afterSeq`). */
export function cursorParam(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw.trim()))) {
    throw invalidRequest(
      `Query parameter "${name}" must be an integer of 0 or more, got "${raw}"`,
      name,
    );
  }
  return Number(raw.trim());
}

/** Event kinds: lowercase letters, digits, ".", "_" and "-". */
const KIND = /^[a-z0-9._-]{1,64}$/;
/** Kinds one filter may name. */
const MAX_KINDS = 32;

/**
 * `kinds` of an event read (D17): comma-separated exact kinds, or undefined
 * when absent. An empty entry or a character outside `[a-z0-9._-]` is 400.
 */
export function kindsParam(url: URL): string[] | undefined {
  const raw = url.searchParams.get("kinds");
  if (raw === null) return undefined;
  const kinds = raw.split(",");
  if (kinds.length > MAX_KINDS || !kinds.every((kind) => KIND.test(kind))) {
    throw invalidRequest(
      `Query parameter "kinds" must be 1 to ${MAX_KINDS} comma-separated event kinds of [a-z0-9._-]`,
      "kinds",
    );
  }
  return [...new Set(kinds)];
}
