/**
 * Reading fields of parsed protocol lines defensively: a field of the wrong
 * type reads as null, never as a throw (a malformed line yields no step).
 */

/** A parsed JSON object. */
export type Json = Record<string, unknown>;

/** The value if it is a string, else null. */
export const str = (value: unknown): string | null => typeof value === "string" ? value : null;

/** The value if it is a finite number, else null. */
export const num = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;

/** The value if it is a JSON object (not an array), else null. */
export const obj = (value: unknown): Json | null =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? value as Json : null;

/** A JSON-RPC id (a string or a finite number), or null for a notification or a bad id. */
export function rpcIdOf(value: unknown): string | number | null {
  return typeof value === "string" || num(value) !== null ? value as string | number : null;
}
