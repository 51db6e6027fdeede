import { z } from "zod";
import { invalidRequest } from "./errors.ts";

/**
 * Parses `input` with a zod schema, or throws 400 `invalid_request` whose
 * `details.field` is the offending path (D10: `definition.rrule`), prefixed
 * with `prefix` when given. For unknown keys the field names the key.
 */
export function parseInput<T extends z.ZodType>(
  schema: T,
  input: unknown,
  prefix?: string,
): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") path.push(issue.keys[0]);
  const field = [prefix, ...path].filter((part) => part !== undefined && part !== "").join(".");
  const missing = issue.code !== "unrecognized_keys" && valueAt(input, issue.path) === undefined;
  const message = issue.code === "unrecognized_keys"
    ? `Unknown field "${field}"`
    : missing && field
    ? `Field "${field}" is required`
    : field
    ? `Invalid "${field}": ${issue.message}`
    : `Invalid request: ${issue.message}`;
  throw invalidRequest(message, field || undefined);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * A string of `min` to `max` characters counted as JavaScript string length
 * (UTF-16 units, D7). zod's own `.min`/`.max` switch to counting code points
 * once a string is over the bound, which lets emoji-heavy values through.
 */
export function boundedText(min: number, max: number, message?: string) {
  const text = message ?? `expected ${min} to ${max} characters`;
  const error = { error: () => text };
  // .min/.max document the bounds (OpenAPI); the refine enforces them in UTF-16 units.
  return z.string(message === undefined ? undefined : error).min(min, error).max(max, error)
    .refine((value) => value.length >= min && value.length <= max, error);
}
