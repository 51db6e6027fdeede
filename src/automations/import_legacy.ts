import { basename, dirname, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { ServiceError } from "../errors.ts";
import { parseDefinition, type RoutineDefinition } from "./definition.ts";

/**
 * One legacy routine as read from its source file (D13). `id` is the raw id
 * the file names, before any validation, so the caller can skip an id that
 * already exists first (reason `exists`); it is null when the file names none.
 */
export type LegacyRoutine =
  | { outcome: "import"; file: string; id: string; definition: RoutineDefinition }
  | { outcome: "skip"; file: string; id: string; reason: "heartbeat" }
  | { outcome: "fail"; file: string; id: string | null; reason: string };

/** Where legacy routines live: `$CODEX_HOME` and `$SVC_HOME/import`. */
export interface LegacySources {
  codexHome: string;
  svcImportDir: string;
}

/**
 * Reads `$CODEX_HOME/automations/<id>/automation.toml` and
 * `$SVC_HOME/import/*.json`, Codex first, each source sorted by path. A
 * missing directory holds nothing to import. Files are only read.
 */
export async function readLegacyRoutines(sources: LegacySources): Promise<LegacyRoutine[]> {
  const automationsDir = resolve(sources.codexHome, "automations");
  const codexFiles = (await listEntries(automationsDir))
    .filter((entry) => entry.isDirectory || entry.isSymlink)
    .map((entry) => join(automationsDir, entry.name, "automation.toml"));
  const importDir = resolve(sources.svcImportDir);
  const jsonFiles = (await listEntries(importDir))
    .filter((entry) => (entry.isFile || entry.isSymlink) && entry.name.endsWith(".json"))
    .map((entry) => join(importDir, entry.name));
  const routines: LegacyRoutine[] = [];
  for (const file of codexFiles) {
    const routine = await readSource(file, "TOML", parseToml, codexTomlToDefinition);
    if (routine !== null) routines.push(routine);
  }
  for (const file of jsonFiles) {
    const routine = await readSource(file, "JSON", JSON.parse, svcJsonToDefinition);
    if (routine !== null) routines.push(routine);
  }
  return routines;
}

/**
 * Maps one parsed Codex `automation.toml` to an svc routine (D13): `cron`
 * entries import PAUSED with runtime `codex`, local time, 60 minutes, `cwd` =
 * the first of `cwds`; `heartbeat` entries are skipped. The rrule is kept as
 * written and never approximated.
 */
export function codexTomlToDefinition(doc: Record<string, unknown>, file: string): LegacyRoutine {
  const id = typeof doc.id === "string" ? doc.id : null;
  if (doc.kind === "heartbeat") {
    return { outcome: "skip", file, id: id ?? basename(dirname(file)), reason: "heartbeat" };
  }
  if (doc.kind !== "cron") {
    return fail(file, id, `Unsupported Codex automation kind ${JSON.stringify(doc.kind ?? null)}`);
  }
  const cwds = doc.cwds ?? [];
  if (!Array.isArray(cwds) || !cwds.every((cwd) => typeof cwd === "string")) {
    return fail(file, id, 'Invalid "cwds": expected an array of strings');
  }
  return validate(file, id, {
    schemaVersion: 1,
    id: doc.id,
    name: doc.name,
    status: "PAUSED",
    rrule: doc.rrule,
    timezone: "local",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 60,
    runtime: "codex",
    prompt: doc.prompt,
    ...(doc.model === undefined ? {} : { model: doc.model }),
    ...(cwds.length === 0 ? {} : { cwd: cwds[0] }),
  });
}

/**
 * Maps one `$SVC_HOME/import/*.json` document: a schema-1 definition, or a
 * legacy one without `schemaVersion`, `misfire` or `overlap` (filled with 1,
 * `latest`, `forbid`). The status becomes PAUSED whatever the file says.
 */
export function svcJsonToDefinition(doc: Record<string, unknown>, file: string): LegacyRoutine {
  const id = typeof doc.id === "string" ? doc.id : null;
  return validate(file, id, {
    schemaVersion: 1,
    misfire: "latest",
    overlap: "forbid",
    ...doc,
    status: "PAUSED",
  });
}

/** Reads and maps one source file; null when it does not exist. */
async function readSource(
  file: string,
  format: "TOML" | "JSON",
  parse: (text: string) => unknown,
  map: (doc: Record<string, unknown>, file: string) => LegacyRoutine,
): Promise<LegacyRoutine | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    return fail(file, null, `Cannot read file: ${(error as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return fail(file, null, `Cannot parse ${format}: ${detail}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    return fail(file, null, `Cannot import ${format}: expected an object at the top level`);
  }
  return map(doc as Record<string, unknown>, file);
}

function validate(file: string, id: string | null, input: Record<string, unknown>): LegacyRoutine {
  try {
    const definition = parseDefinition(input, "");
    return { outcome: "import", file, id: definition.id, definition };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return fail(file, id, error.message);
  }
}

function fail(file: string, id: string | null, reason: string): LegacyRoutine {
  return { outcome: "fail", file, id, reason };
}

/** The entries of `dir` sorted by name; none when it does not exist. */
async function listEntries(dir: string): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return [];
    }
    throw error;
  }
  return entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
