import { invalidRequest } from "./errors.ts";

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
