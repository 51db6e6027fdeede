import { allRoutines } from "./all_routines.ts";
import type { ClientResponse, SvcClient } from "../client/client.ts";
import type { StoredRoutine } from "../automations/definition.ts";
import type { RoutineHealth } from "../automations/health.ts";
import type { ImportResult, RunNowResult } from "../automations/routines.ts";
import type { TickReport } from "../automations/scheduler.ts";
import type { RunRecord } from "../store/runs_store.ts";
import { CLIENT_OPTIONS, parseCommandArgs, requireId } from "./args.ts";
import {
  type Command,
  EXIT,
  type Io,
  pickSubcommand,
  type Subcommand,
  UsageError,
} from "./command.ts";
import { withClient } from "./connect.ts";
import { integerOption } from "./events.ts";
import {
  localTime,
  oneLine,
  printList,
  printResponse,
  table,
  TIME_OPTIONS,
  timeText,
} from "./output.ts";
import { alignedLines, keyValues } from "./key_values.ts";
import { terminalSafe } from "./terminal_text.ts";
import { resolveCliPath } from "./working_dir.ts";
import { resolveRoutineId } from "./id_prefix.ts";

/** A successful `POST /actions` answer of a versioned automation action (C4.1, D10). */
interface ActionResponse<T> {
  ok: true;
  accepted: true;
  action: string;
  status: "completed";
  event: { kind: string; action: string; origin: string | null; payload: unknown };
  result: T;
}

/**
 * `svc automations list|get|create|update|pause|activate|delete|run|runs|health|tick|import`
 * (D1, D10, D12).
 */
export const automationsCommand: Command = {
  name: "automations",
  summary: "Manage scheduled routines: create, run, history, health, import",
  usage: `Usage: svc automations <subcommand> [options]

Subcommands:
  list                       Routines with their next due time (local time).
  get ID                     A routine's definition, one "key: value" line per field.
  create -f FILE             Creates a routine from a JSON definition (FILE "-": stdin).
  update -f FILE             Replaces a routine's definition; set "status": "ACTIVE"
                             after review to let the scheduler run it.
  pause ID                   Sets a routine PAUSED: the scheduler no longer runs it.
  activate ID [--yes]        Shows a routine's definition and, once you confirm
                             (on a terminal; --yes otherwise), sets it ACTIVE.
  delete ID                  Deletes a routine and its run history.
  run ID [--cwd DIR]         Runs a routine now; exit 1 when the run failed.
  runs ID [--limit N]        Recent runs, newest first (default 20).
  health ID                  Next due time, last runs, failures, lease, staleness.
  tick                       Runs one scheduler pass now and reports what it did.
  import                     Imports Codex automations and $SVC_HOME/import/*.json,
                             always PAUSED.

Every subcommand takes --home DIR, and --json to print the raw action response
(list and runs: the array of routines or runs). Times are shown in the local
time zone, or in UTC with --utc. See docs/automations.md.`,
  run(args, io) {
    const { run, rest } = pickSubcommand(SUBCOMMANDS, args);
    return run(rest, io);
  },
};

const SUBCOMMANDS: Record<string, Subcommand> = {
  list: listRoutines,
  get: getRoutine,
  create: (args, io) => writeRoutine("create", args, io),
  update: (args, io) => writeRoutine("update", args, io),
  pause: (args, io) => setStatus("PAUSED", args, io),
  activate: (args, io) => setStatus("ACTIVE", args, io),
  delete: deleteRoutine,
  run: runRoutine,
  runs: listRuns,
  health: showHealth,
  tick,
  import: importRoutines,
};

async function listRoutines(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, { ...CLIENT_OPTIONS, ...TIME_OPTIONS });
  return await withClient(values.home, io, async (client) => {
    const response = await allRoutines(client);
    if (values.json || !response.ok) {
      return printList(io, response, values.json, ({ result }) => result.routines, () => "");
    }
    // The daemon computes the next due time, so the CLI never disagrees with it.
    const nextDue = new Map<string, string | null>();
    for (const routine of response.body.result.routines) {
      if (routine.status !== "ACTIVE") continue;
      const health = await act<RoutineHealth>(client, "svc.automations.health", {
        id: routine.id,
      });
      nextDue.set(routine.id, health.ok ? health.body.result.nextDueAt : null);
    }
    return printResponse(io, response, false, ({ result }) =>
      table(
        ["ID", "STATUS", "RRULE", "TZ", "NEXT DUE", "NAME"],
        result.routines.map((routine) => [
          routine.id,
          routine.status,
          routine.rrule,
          routine.timezone,
          timeText(nextDue.get(routine.id) ?? null, values.utc),
          routine.name,
        ]),
      ));
  });
}

async function getRoutine(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, CLIENT_OPTIONS, { positionals: 1 });
  const routineText = requireId(positionals, "routine");
  return await withClient(values.home, io, async (client) => {
    const id = await resolveRoutineId(client, routineText);
    const response = await act<{ routine: StoredRoutine | null }>(
      client,
      "svc.automations.get",
      { id },
    );
    // `get` answers 200 with a null routine for an unknown id (D10): still a refusal here.
    if (response.ok && response.body.result.routine === null) {
      if (values.json) io.out(JSON.stringify(response.body, null, 2));
      else io.err(`routine_not_found: Routine "${id}" does not exist`);
      return EXIT.refused;
    }
    return printResponse(io, response, values.json, ({ result }) => keyValues(result.routine!));
  });
}

async function writeRoutine(
  action: "create" | "update",
  args: string[],
  io: Io,
): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    file: { type: "string", short: "f" },
  });
  if (values.file === undefined) throw new UsageError('Missing "-f FILE" (a JSON definition)');
  const definition = await readDefinition(values.file, io);
  return await withClient(values.home, io, async (client) => {
    const response = await act<{ routine: StoredRoutine; warnings?: string[] }>(
      client,
      `svc.automations.${action}`,
      { definition },
    );
    // What may still fail its runs (issue 27 item 6: a cwd that does not exist yet).
    if (response.ok && !values.json) {
      for (const warning of response.body.result.warnings ?? []) {
        io.err(terminalSafe(`warning: ${warning}`));
      }
    }
    return printResponse(io, response, values.json, ({ result }) => {
      const verb = action === "create" ? "Created" : "Updated";
      const hint = result.routine.status === "PAUSED"
        ? `; review it, then activate it with "status": "ACTIVE" and "svc automations update"`
        : "";
      return `${verb} routine "${result.routine.id}" (${result.routine.status})${hint}`;
    });
  });
}

/**
 * `pause` and `activate`: `svc.automations.pause|activate` by id (D30: the
 * status alone, as a paired device may). Activating lets it run unattended,
 * so the stored definition is shown and confirmed first: on a terminal by
 * answering y, otherwise with `--yes`.
 */
async function setStatus(
  status: "ACTIVE" | "PAUSED",
  args: string[],
  io: Io,
): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    yes: { type: "boolean" },
  }, { positionals: 1 });
  const routineText = requireId(positionals, "routine");
  const interactive = Deno.stdin.isTerminal();
  if (status === "ACTIVE" && !values.yes && !interactive) {
    throw new UsageError('Activating needs confirmation: run it on a terminal, or pass "--yes"');
  }
  return await withClient(values.home, io, async (client) => {
    const id = await resolveRoutineId(client, routineText);
    const got = await act<{ routine: StoredRoutine | null }>(client, "svc.automations.get", { id });
    if (!got.ok) return printResponse(io, got, values.json, () => "");
    const routine = got.body.result.routine;
    if (routine === null) {
      io.err(`routine_not_found: Routine "${terminalSafe(id)}" does not exist`);
      return EXIT.refused;
    }
    if (routine.status === status) {
      if (values.json) io.out(JSON.stringify(got.body, null, 2));
      else io.out(terminalSafe(`Routine "${routine.id}" is already ${status}`));
      return EXIT.ok;
    }
    if (status === "ACTIVE" && !values.yes) {
      io.out(terminalSafe(keyValues(routine)));
      const answer = await askLine(io, `Activate routine "${terminalSafe(routine.id)}"? [y/N] `);
      if (!/^y(es)?$/i.test(answer.trim())) {
        io.err("Not activated");
        return EXIT.refused;
      }
    }
    const action = status === "ACTIVE" ? "svc.automations.activate" : "svc.automations.pause";
    const response = await act<{ routine: StoredRoutine }>(client, action, { id: routine.id });
    return printResponse(
      io,
      response,
      values.json,
      ({ result }) => `Routine "${result.routine.id}" is now ${result.routine.status}`,
    );
  });
}

/** Writes `question` and reads one line of stdin (empty at its end), within 10 minutes. */
async function askLine(io: Io, question: string): Promise<string> {
  io.write(question);
  const reader = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"">((resolve) => {
    timer = setTimeout(() => resolve(""), ASK_TIMEOUT_MS);
  });
  try {
    let line = "";
    while (!line.includes("\n")) {
      const chunk = await Promise.race([reader.read(), timeout]);
      if (chunk === "") return "";
      if (chunk.done) break;
      line += chunk.value;
    }
    return line.split("\n")[0];
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/** How long `activate` waits for its confirmation before giving up (not activated). */
const ASK_TIMEOUT_MS = 10 * 60_000;

async function deleteRoutine(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, CLIENT_OPTIONS, { positionals: 1 });
  const routineText = requireId(positionals, "routine");
  return await withClient(values.home, io, async (client) => {
    const id = await resolveRoutineId(client, routineText);
    const response = await act<{ id: string }>(client, "svc.automations.delete", { id });
    return printResponse(
      io,
      response,
      values.json,
      ({ result }) => `Deleted routine "${result.id}" and its run history`,
    );
  });
}

async function runRoutine(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    cwd: { type: "string" },
  }, { positionals: 1 });
  const routineText = requireId(positionals, "routine");
  return await withClient(values.home, io, async (client) => {
    const id = await resolveRoutineId(client, routineText);
    const response = await act<RunNowResult>(client, "svc.automations.run", {
      id,
      ...(values.cwd !== undefined && { cwd: resolveCliPath(io, values.cwd) }),
    });
    if (!response.ok) return printResponse(io, response, values.json, () => "");
    const run = response.body.result;
    // Run problems are 200 results (C4.1, D10): a failed run is still exit 1.
    const failed = run.status === "failed";
    if (values.json) {
      io.out(JSON.stringify(response.body, null, 2));
      return failed ? EXIT.refused : EXIT.ok;
    }
    const lines: Array<[string, string]> = [
      ["run", run.runId ?? "-"],
      ["status", run.status],
      ["session", run.sessionId ?? "-"],
    ];
    if (!failed) lines.push(["error", run.error ? `${run.error.code}: ${run.error.message}` : "-"]);
    io.out(terminalSafe(alignedLines(lines)));
    if (!failed) return EXIT.ok;
    io.err(terminalSafe(run.error ? `${run.error.code}: ${run.error.message}` : "The run failed"));
    return EXIT.refused;
  });
}

async function listRuns(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    ...TIME_OPTIONS,
    limit: { type: "string" },
  }, { positionals: 1 });
  const routineText = requireId(positionals, "routine");
  const limit = values.limit === undefined ? undefined : integerOption(values.limit, "--limit", 1);
  return await withClient(values.home, io, async (client) => {
    const id = await resolveRoutineId(client, routineText);
    const response = await act<{ runs: RunRecord[] }>(client, "svc.automations.runs", {
      id,
      ...(limit !== undefined && { limit }),
    });
    return printList(io, response, values.json, ({ result }) => result.runs, ({ result }) =>
      table(
        ["ID", "TRIGGER", "STATUS", "SCHEDULED", "STARTED", "SESSION", "DENIED", "ERROR"],
        result.runs.map((run) => [
          run.id,
          run.trigger,
          run.status,
          timeText(run.scheduledFor, values.utc),
          timeText(run.startedAt, values.utc),
          run.sessionId ?? "-",
          // Tool calls denied by policy (issue 27 item 7); "-" before the run ended.
          run.permissionDenials === null ? "-" : String(run.permissionDenials),
          run.error ? `${run.error.code}: ${run.error.message}` : "-",
        ]),
      ));
  });
}

async function showHealth(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { ...CLIENT_OPTIONS, ...TIME_OPTIONS }, {
    positionals: 1,
  });
  const routineText = requireId(positionals, "routine");
  return await withClient(values.home, io, async (client) => {
    const id = await resolveRoutineId(client, routineText);
    const response = await act<RoutineHealth & { warnings?: string[] }>(
      client,
      "svc.automations.health",
      { id },
    );
    return printResponse(io, response, values.json, ({ result: health }) =>
      alignedLines([
        ["id", health.id],
        ["status", health.status],
        ["nextDueAt", timeText(health.nextDueAt, values.utc)],
        ["lastPlannedAt", timeText(health.lastPlannedAt, values.utc)],
        ["lastRunAt", timeText(health.lastRunAt, values.utc)],
        ["lastSuccessAt", timeText(health.lastSuccessAt, values.utc)],
        ["consecutiveFailures", String(health.consecutiveFailures)],
        ["missedCount", String(health.missedCount)],
        [
          "lease",
          health.lease
            ? `${health.lease.owner} (expires ${timeText(health.lease.expiresAt, values.utc)})`
            : "-",
        ],
        ["stale", health.stale ?? "-"],
        ["warnings", health.warnings?.length ? health.warnings.join("\n") : "-"],
      ]));
  });
}

async function tick(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, { ...CLIENT_OPTIONS, ...TIME_OPTIONS });
  return await withClient(values.home, io, async (client) => {
    const response = await act<TickReport>(client, "svc.automations.tick");
    return printResponse(io, response, values.json, ({ result: report }) =>
      [
        `planned ${report.planned.length}, recovered ${report.recovered.length}, ` +
        `claimed ${report.claimed.length}, failures ${report.failures.length}`,
        ...report.planned.map((p) =>
          `planned    ${p.routineId} ${timeText(p.scheduledFor, values.utc)}` +
          (p.missed > 0 ? ` (${p.missed} missed)` : "")
        ),
        ...report.recovered.map((r) => `recovered  ${r.routineId} ${r.runId} ${r.error}`),
        ...report.claimed.map((c) =>
          `claimed    ${c.routineId} ${c.runId} ${timeText(c.scheduledFor, values.utc)} ${c.status}`
        ),
        ...report.failures.map((f) =>
          `failure    ${f.routineId}${f.runId ? ` ${f.runId}` : ""} ${f.error.code}: ${
            oneLine(f.error.message)
          }`
        ),
      ].join("\n"));
  });
}

async function importRoutines(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, CLIENT_OPTIONS);
  return await withClient(values.home, io, async (client) => {
    const response = await act<ImportResult>(client, "svc.automations.import");
    return printResponse(io, response, values.json, ({ result }) =>
      [
        `imported ${result.imported.length} (PAUSED), skipped ${result.skipped.length}, ` +
        `failed ${result.failed.length}`,
        ...result.imported.map((id) => `imported  ${id}`),
        ...result.skipped.map((s) => `skipped   ${s.id} (${s.reason})`),
        ...result.failed.map((f) => `failed    ${f.file}: ${oneLine(f.reason)}`),
      ].join("\n"));
  });
}

/** POSTs one action with `origin: "cli"` (C4.1: correlation only, no authority). */
function act<T>(
  client: SvcClient,
  action: string,
  fields: Record<string, unknown> = {},
): Promise<ClientResponse<ActionResponse<T>>> {
  return client.post<ActionResponse<T>>("/actions", { action, origin: "cli", ...fields });
}

/** The JSON definition in `file` (`-`: stdin); unreadable or non-JSON is a usage error. */
async function readDefinition(file: string, io: Io): Promise<unknown> {
  const name = file === "-" ? "stdin" : `"${file}"`;
  let text: string;
  try {
    text = file === "-"
      ? await new Response(Deno.stdin.readable).text()
      : await Deno.readTextFile(resolveCliPath(io, file));
  } catch (error) {
    throw new UsageError(`Cannot read definition file ${name}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`Definition file ${name} is not JSON: ${(error as Error).message}`);
  }
}

/** Kept here for its callers and tests; it lives in output.ts. */
export { localTime };

/** A stored routine as `key: value` lines; lists and objects as JSON. */
