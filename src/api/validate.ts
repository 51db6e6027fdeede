import type { z } from "zod";
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
  const message = issue.code === "unrecognized_keys"
    ? `Unknown field "${field}"`
    : field
    ? `Invalid "${field}": ${issue.message}`
    : `Invalid request: ${issue.message}`;
  throw invalidRequest(message, field || undefined);
}
