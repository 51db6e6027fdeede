import { z } from "zod";
import { invalidRequest, ServiceError } from "./errors.ts";

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
  const key = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
  const { field, message } = issueProblem(issue, key, input, prefix);
  throw invalidRequest(message, field || undefined);
}

/** One invalid field of a request: its path and what is wrong. */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * 400 `invalid_request` naming every invalid field at once (issue 27 item
 * 6): `details.field` is the first, `details.fields` all of them (with
 * one problem, only `details.field`, as `invalidRequest`).
 */
export function invalidFields(problems: readonly FieldProblem[]): ServiceError {
  // One field: the single-error shape every client knows (`details.field` only).
  if (problems.length === 1) {
    return invalidRequest(problems[0].message, problems[0].field || undefined);
  }
  const message = `Invalid fields: ${problems.map((problem) => problem.message).join("; ")}`;
  return new ServiceError("invalid_request", 400, message, {
    field: problems[0].field,
    fields: problems.map((problem) => ({ ...problem })),
  });
}

/**
 * Like `parseInput`, but every issue is reported at once (issue 27 item 6):
 * one 400 whose `details.fields` lists each field and its message.
 */
export function parseInputAll<T extends z.ZodType>(
  schema: T,
  input: unknown,
  prefix?: string,
): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems: FieldProblem[] = [];
  for (const issue of result.error.issues) {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
    for (const key of keys) {
      const problem = issueProblem(issue, key, input, prefix);
      if (!problems.some(({ field }) => field === problem.field)) problems.push(problem);
    }
  }
  throw invalidFields(problems);
}

/**
 * The field and message of one zod issue (`key`: the unknown key it names),
 * its path prefixed with `prefix` when given.
 */
function issueProblem(
  issue: z.core.$ZodIssue,
  key: string | undefined,
  input: unknown,
  prefix: string | undefined,
): FieldProblem {
  const path = issue.path.map(String);
  const parts = key === undefined ? path : [...path, key];
  const field = [prefix, ...parts].filter((part) => part !== undefined && part !== "").join(".");
  const missing = issue.code !== "unrecognized_keys" && valueAt(input, issue.path) === undefined;
  const message = issue.code === "unrecognized_keys"
    ? `Unknown field "${field}"`
    : missing && field
    ? `Field "${field}" is required`
    : field
    ? `Invalid "${field}": ${issue.message}`
    : `Invalid request: ${issue.message}`;
  return { field, message };
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

/** Characters an id prefix may hold: those of every svc id (D4, routine ids of C2.6). */
export const ID_PREFIX_PATTERN = /^[A-Za-z0-9._-]{1,96}$/;

/** An `idPrefix` filter (issue 27 item 9): 1 to 96 id characters. */
export function idPrefixSchema() {
  const error = { error: () => 'expected 1 to 96 ASCII letters, digits, ".", "_" or "-"' };
  return z.string(error).regex(ID_PREFIX_PATTERN, error);
}

/**
 * The bounds of ids starting with `prefix` in BINARY collation, for an
 * indexed range scan (`id >= low AND id < high`): id characters are all
 * below "~", so `prefix + "~"` is past every id with that prefix.
 */
export function idPrefixRange(prefix: string): [low: string, high: string] {
  return [prefix, `${prefix}~`];
}

/** The operating system a path is checked for: the daemon's own unless a test says otherwise. */
export type HostOs = typeof Deno.build.os;

/**
 * True when `path` is absolute on `os` (issue 28 item 9): on Unix it starts
 * with "/"; on Windows it starts with a drive letter and a separator (`C:\x`,
 * `C:/x`) or is a UNC path (`\\server\share`). `C:/x` is relative on Linux,
 * and `\x` is relative to the current drive on Windows.
 */
export function isAbsoluteHostPath(path: string, os: HostOs = Deno.build.os): boolean {
  if (os !== "windows") return path.startsWith("/");
  return /^[A-Za-z]:[\\/]/.test(path) || /^[\\/]{2}[^\\/]+[\\/][^\\/]/.test(path);
}

/**
 * True when `path` is meant as absolute on another system than `os`: a drive
 * letter or a UNC path on Unix, a leading separator without a drive on
 * Windows. Such a path must not be taken as relative to some directory.
 */
export function isForeignAbsolutePath(path: string, os: HostOs = Deno.build.os): boolean {
  if (os === "windows") return /^[\\/]/.test(path) && !isAbsoluteHostPath(path, os);
  return /^([A-Za-z]:([\\/]|$)|\\\\)/.test(path);
}

/** What an absolute path looks like on `os`, for messages. */
export function absolutePathRequirement(os: HostOs = Deno.build.os): string {
  return os === "windows"
    ? String.raw`expected an absolute path such as "C:\dir" or "\\server\share"`
    : 'expected an absolute path starting with "/"';
}

/** A string that is an absolute path on `os` (issue 28 item 9). */
export function absolutePath(os: HostOs = Deno.build.os) {
  const error = { error: () => absolutePathRequirement(os) };
  return z.string(error).refine((path) => isAbsoluteHostPath(path, os), error);
}
