import { APPROVAL_POLICIES, type ApprovalPolicy } from "../approvals/broker.ts";
import { SESSION_STATUSES, type SessionRecord } from "../store/sessions_store.ts";
import { CLIENT_OPTIONS, parseCommandArgs, requireId } from "./args.ts";
import { type Command, type Io, pickSubcommand, type Subcommand, UsageError } from "./command.ts";
import { withClient } from "./connect.ts";
import { printAllContexts } from "./all_contexts.ts";
import type { SvcClient } from "../client/client.ts";
import { followEvents, integerOption, printerFor } from "./events.ts";
import { printResponse, table, TIME_OPTIONS, timeText } from "./output.ts";
import { counted } from "../count_text.ts";
import { terminalSafe } from "./terminal_text.ts";
import { resolveCliPath } from "./working_dir.ts";
import { resolveSessionId } from "./id_prefix.ts";
import { adoptSession, discoverSessions } from "./sessions_adopt.ts";

const KILL_SIGNALS = ["SIGTERM", "SIGKILL"];

/** `svc sessions list|start|show|input|interrupt|close|kill|resume|unpark|discover|adopt` (D1, D7). */
export const sessionsCommand: Command = {
  name: "sessions",
  summary:
    "List, start, show, send input to, interrupt, close, kill, resume, unpark, discover and adopt sessions",
  usage: `Usage: svc sessions <subcommand> [options]

Subcommands:
  list [--status S] [--limit N] [--utc] [--all-contexts]
      Sessions, newest first (at most N, default 100). S: running, completed,
      failed, killed, orphaned. Times are local, or UTC with --utc. ACTIVITY
      is what a conversation's agent is doing: starting, working, waiting
      approval, idle ("-" for a raw or ended session). --all-contexts lists
      those of "local" and of every context ("svc context") in one table
      with a CONTEXT column; one that does not answer is a line on stderr.
  start --project-root DIR --harness ID [--cwd DIR] [--model M] [--title T]
        [--worktree] [--approvals ask|allow|deny] [--follow]
        (PROMPT... | --prompt-file FILE | -)
      Launches a session and prints its id. The prompt is the arguments joined
      by spaces, the contents of FILE, or stdin with "-". --worktree runs it in
      a new git worktree of the repository (branch svc/session/ID, see
      "svc worktrees"); your checkout is not touched. --approvals sets how
      the agent's permission requests are answered (default: the config's
      approvals.interactive). --follow then prints its events until it
      ends, like "svc events ID --follow".
  show ID [--utc]
      The session record, one "key: value" line per field.
  input ID TEXT... [--no-newline]
      Writes TEXT (the arguments joined by spaces) and a newline to the
      session's stdin; --no-newline leaves the newline out.
  interrupt ID
      Cancels a conversation's current turn; the session stays live.
  close ID
      Ends a conversation once the agent is idle (closes a raw session's stdin).
  kill ID [--signal SIGTERM|SIGKILL]
      Signals the session's process group (default SIGTERM, SIGKILL after 5s).
  resume ID [--model M]
      Continues an ended conversation in a new agent process (D26): the same
      session and log go on ("svc chat ID" to talk to it). RESUMABLE in
      "list" says which can be.
  unpark ID [--cancel]
      Resumes a session parked on a limit (D33) now and sends its interrupted
      turn again; --cancel stops its timer instead (it stays parked).
  discover [--harness H] [--cwd DIR] [--limit N] [--utc]
      The agents' own recent sessions (D33), started in a terminal or by
      svc: Claude Code's transcripts, Codex's rollouts, Gemini CLI's chats,
      opencode's list. One row each: harness, agent session id, last
      activity, directory, title. Only directories inside the project roots.
  adopt --harness H --agent-session ID [--cwd DIR] [--model M] [--title T]
        [--approvals ask|allow|deny]
      Makes an agent's own session (see "discover") a svc session and
      resumes it natively: its transcript is imported into the log, and
      "svc chat ID" continues the conversation. --cwd names the directory it
      ran in when its agent does not say.

Every subcommand takes --home DIR, and --json to print the raw response.`,
  run(args, io) {
    const { run, rest } = pickSubcommand(SUBCOMMANDS, args);
    return run(rest, io);
  },
};

const SUBCOMMANDS: Record<string, Subcommand> = {
  list: listSessions,
  start: startSession,
  show: showSession,
  input: sendInput,
  interrupt: (args, io) => postToSession("interrupt", args, io),
  close: (args, io) => postToSession("close", args, io),
  kill: killSession,
  resume: resumeSession,
  unpark: unparkSession,
  discover: discoverSessions,
  adopt: adoptSession,
};

async function listSessions(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    ...TIME_OPTIONS,
    status: { type: "string" },
    limit: { type: "string" },
    "all-contexts": { type: "boolean" },
  });
  const query = new URLSearchParams();
  if (values.status !== undefined) {
    if (!(SESSION_STATUSES as readonly string[]).includes(values.status)) {
      throw new UsageError(
        `"--status" must be one of ${SESSION_STATUSES.join(", ")}, got "${values.status}"`,
      );
    }
    query.set("status", values.status);
  }
  if (values.limit !== undefined) {
    query.set("limit", String(integerOption(values.limit, "--limit", 1)));
  }
  const search = query.size > 0 ? `?${query}` : "";
  const columns = {
    headers: ["ID", "STATUS", "ACTIVITY", "HARNESS", "CREATED", "RESUMABLE", "TITLE"],
    row: (s: SessionRecord) => [
      s.id,
      s.parked ? `PARKED until ${timeText(s.parked.until, values.utc)}` : s.status,
      s.activity?.replaceAll("_", " ") ?? "-",
      s.harness,
      timeText(s.created_at, values.utc),
      s.resumable ? "yes" : "-",
      s.title,
    ],
  };
  const read = (client: SvcClient) => client.get<SessionRecord[]>(`/sessions${search}`);
  if (values["all-contexts"]) {
    return await printAllContexts(io, values, { read, items: (sessions) => sessions, ...columns });
  }
  return await withClient(values.home, io, async (client) =>
    printResponse(
      io,
      await read(client),
      values.json,
      (sessions) => table(columns.headers, sessions.map(columns.row)),
    ));
}

async function startSession(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    "project-root": { type: "string" },
    harness: { type: "string" },
    cwd: { type: "string" },
    model: { type: "string" },
    title: { type: "string" },
    "prompt-file": { type: "string" },
    follow: { type: "boolean" },
    worktree: { type: "boolean" },
    approvals: { type: "string" },
  }, { positionals: Infinity });
  const projectRoot = values["project-root"];
  if (projectRoot === undefined) throw new UsageError('Missing "--project-root DIR"');
  if (values.harness === undefined) throw new UsageError('Missing "--harness ID"');
  const approvals = approvalsOption(values.approvals);
  const prompt = await readPrompt(positionals, values["prompt-file"], io);
  const request = {
    projectRoot: resolveCliPath(io, projectRoot),
    harness: values.harness,
    prompt,
    ...(values.cwd !== undefined && { cwd: resolveCliPath(io, values.cwd) }),
    ...(values.model !== undefined && { model: values.model }),
    ...(values.title !== undefined && { title: values.title }),
    ...(values.worktree && { isolation: "worktree" }),
    ...(approvals !== undefined && { approvals }),
  };
  return await withClient(values.home, io, async (client) => {
    const response = await client.post<SessionRecord>("/sessions", request);
    if (!values.follow || !response.ok) {
      return printResponse(io, response, values.json, (session) => session.id);
    }
    // Followed with --json: the record, then the events, one JSON value per line.
    io.out(values.json ? JSON.stringify(response.body) : terminalSafe(response.body.id));
    const printer = printerFor(io, response.body.protocol, { json: values.json });
    return await followEvents(client, response.body.id, printer, 0);
  });
}

async function showSession(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { ...CLIENT_OPTIONS, ...TIME_OPTIONS }, {
    positionals: 1,
  });
  const sessionText = requireId(positionals, "session");
  return await withClient(values.home, io, async (client) => {
    const sessionId = await resolveSessionId(client, sessionText);
    const response = await client.get<SessionRecord>(sessionPath(sessionId));
    return printResponse(io, response, values.json, (session) => {
      const entries = Object.entries(session);
      const width = Math.max(...entries.map(([key]) => key.length)) + 1;
      return entries
        .map(([key, value]) => `${`${key}:`.padEnd(width)} ${fieldText(key, value, values.utc)}`)
        .join("\n");
    });
  });
}

/**
 * A record field on one line: times (`*_at`) as every command prints them,
 * objects (usage, worktree) as JSON with `costUsd` rounded to 1e-6, null as "-".
 */
function fieldText(key: string, value: unknown, utc: boolean | undefined): string {
  if (value === null || value === undefined) return "-";
  if (key.endsWith("_at") && typeof value === "string") return timeText(value, utc);
  if (typeof value !== "object") return String(value);
  return JSON.stringify(
    value,
    (name, inner) =>
      name === "costUsd" && typeof inner === "number" ? Number(inner.toFixed(6)) : inner,
  );
}

async function sendInput(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    "no-newline": { type: "boolean" },
  }, { positionals: Infinity });
  const sessionText = requireId(positionals, "session");
  const data = positionals.slice(1).join(" ") + (values["no-newline"] ? "" : "\n");
  if (data === "") throw new UsageError("Missing TEXT");
  return await withClient(values.home, io, async (client) => {
    const sessionId = await resolveSessionId(client, sessionText);
    const response = await client.post(`${sessionPath(sessionId)}/input`, { data });
    const bytes = new TextEncoder().encode(data).length;
    return printResponse(
      io,
      response,
      values.json,
      () => `Sent ${counted(bytes, "byte")} to ${sessionId}`,
    );
  });
}

/** `svc sessions interrupt|close ID`: one body-less POST to the session. */
async function postToSession(
  route: "interrupt" | "close",
  args: string[],
  io: Io,
): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, CLIENT_OPTIONS, { positionals: 1 });
  const sessionText = requireId(positionals, "session");
  return await withClient(values.home, io, async (client) => {
    const sessionId = await resolveSessionId(client, sessionText);
    const response = await client.post(`${sessionPath(sessionId)}/${route}`, {});
    return printResponse(
      io,
      response,
      values.json,
      () =>
        route === "interrupt"
          ? `Interrupted the current turn of ${sessionId}`
          : `Closing ${sessionId}: it ends once the agent is idle`,
    );
  });
}

/** `--approvals`: one of the policies of D18, or a usage error. */
export function approvalsOption(value: string | undefined): ApprovalPolicy | undefined {
  if (value === undefined) return undefined;
  if (!(APPROVAL_POLICIES as readonly string[]).includes(value)) {
    throw new UsageError(
      `"--approvals" must be one of ${APPROVAL_POLICIES.join(", ")}, got "${value}"`,
    );
  }
  return value as ApprovalPolicy;
}

async function killSession(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    signal: { type: "string" },
  }, { positionals: 1 });
  const sessionText = requireId(positionals, "session");
  const signal = values.signal ?? "SIGTERM";
  if (!KILL_SIGNALS.includes(signal)) {
    throw new UsageError(`"--signal" must be SIGTERM or SIGKILL, got "${signal}"`);
  }
  return await withClient(values.home, io, async (client) => {
    const sessionId = await resolveSessionId(client, sessionText);
    const response = await client.post(`${sessionPath(sessionId)}/kill`, { signal });
    return printResponse(io, response, values.json, () => `Sent ${signal} to ${sessionId}`);
  });
}

async function resumeSession(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    model: { type: "string" },
  }, { positionals: 1 });
  const sessionText = requireId(positionals, "session");
  return await withClient(values.home, io, async (client) => {
    const sessionId = await resolveSessionId(client, sessionText);
    const response = await client.post<SessionRecord>(
      `${sessionPath(sessionId)}/resume`,
      values.model === undefined ? {} : { model: values.model },
    );
    return printResponse(
      io,
      response,
      values.json,
      (session) => `Resumed ${session.id} (resume ${session.resumes}): "svc chat ${session.id}"`,
    );
  });
}

async function unparkSession(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    cancel: { type: "boolean" },
  }, { positionals: 1 });
  const sessionText = requireId(positionals, "session");
  return await withClient(values.home, io, async (client) => {
    const sessionId = await resolveSessionId(client, sessionText);
    const response = await client.post<SessionRecord>(
      `${sessionPath(sessionId)}/unpark`,
      values.cancel ? { cancel: true } : {},
    );
    return printResponse(
      io,
      response,
      values.json,
      (session) =>
        values.cancel
          ? `${session.id} stays parked; its timer is cancelled ("svc sessions unpark ${session.id}" resumes it)`
          : `Unparked ${session.id}: its interrupted turn is sent again ("svc chat ${session.id}")`,
    );
  });
}

/** The prompt from the arguments, `--prompt-file FILE` or stdin (`-`). */
async function readPrompt(positionals: string[], promptFile: string | undefined, io: Io) {
  if (promptFile !== undefined) {
    if (positionals.length > 0) {
      throw new UsageError('Give the prompt as arguments or with "--prompt-file", not both');
    }
    if (promptFile === "-") return await readStdin();
    try {
      return await Deno.readTextFile(resolveCliPath(io, promptFile));
    } catch (error) {
      throw new UsageError(`Cannot read prompt file "${promptFile}": ${(error as Error).message}`);
    }
  }
  if (positionals.length === 0) {
    throw new UsageError('Missing PROMPT (arguments, "--prompt-file FILE", or "-" for stdin)');
  }
  if (positionals.length === 1 && positionals[0] === "-") return await readStdin();
  return positionals.join(" ");
}

function readStdin(): Promise<string> {
  return new Response(Deno.stdin.readable).text();
}

function sessionPath(sessionId: string): string {
  return `/sessions/${encodeURIComponent(sessionId)}`;
}
