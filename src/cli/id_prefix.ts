/**
 * Short ids (issue 27 item 9, issue 38 item 13): every CLI command that takes
 * a session, run, routine, approval rule or permission request id accepts any
 * unique prefix of it, as Docker does, resolved here. The daemon does the
 * matching (`GET /sessions?idPrefix=`, `idPrefix` of `svc.automations.list`
 * and `svc.automations.runs`), so the CLI reads one bounded page, never the
 * whole history; the approval rules (at most 1000) are matched from their list.
 *
 * - A unique match is that id; an exact id is itself even when it is also a
 *   prefix of another (routine ids are free-form: `nightly`, `nightly-2`).
 * - No match: the text is returned as typed, so the daemon's own answer
 *   (`session_not_found`, exit 1) is printed, as for a full id.
 * - Several: `AmbiguousIdError` (exit 2) lists them.
 *
 * Session, run and rule ids may be typed without their `ses_`/`run_`/`apr_`
 * tag and in lower case (`01m85` → `ses_01M85…`).
 */
import type { SvcClient } from "../client/client.ts";
import type { PendingApproval } from "../approvals/broker.ts";
import type { ApprovalRule } from "../policy/approval_rules.ts";
import type { StoredRoutine } from "../automations/definition.ts";
import type { RunRecord } from "../store/runs_store.ts";
import type { SessionRecord } from "../store/sessions_store.ts";
import { act } from "./action.ts";

/** Matches listed in an ambiguity error; one more is fetched to know there are more. */
export const MAX_LISTED_MATCHES = 10;

/** What an id names, for messages and `svc completions ids KIND`. */
export type IdKind = "session" | "routine" | "run" | "rule" | "request";

/** The tags of the ids the daemon makes (ids.ts) that the CLI takes. */
type IdTag = "ses" | "run" | "apr";

/** A prefix that matches several ids: the CLI prints it and exits 2. */
export class AmbiguousIdError extends Error {
  readonly kind: IdKind;
  readonly prefix: string;
  readonly matches: readonly string[];

  constructor(kind: IdKind, prefix: string, matches: readonly string[], more: boolean) {
    const count = more ? `more than ${matches.length}` : String(matches.length);
    const listed = matches.map((id) => `  ${id}`).join("\n") + (more ? "\n  …" : "");
    super(
      `${kind[0].toUpperCase()}${kind.slice(1)} ID "${prefix}" is ambiguous: it matches ` +
        `${count} ${kind}s:\n${listed}\nType more of the ID`,
    );
    this.name = "AmbiguousIdError";
    this.kind = kind;
    this.prefix = prefix;
    this.matches = matches;
  }
}

/**
 * `text` as the daemon stores ids of `tag` (`ses`, `run`, `apr`): the tag added when
 * missing, the ULID part in upper case. Other text is returned unchanged.
 */
export function normalizeTaggedId(tag: IdTag, text: string): string {
  const match = text.match(new RegExp(`^(?:${tag}_)?([0-9A-Za-z]{1,26})$`, "i"));
  return match ? `${tag}_${match[1].toUpperCase()}` : text;
}

/** The one id `matches` allows for `prefix`, or `prefix` itself when none matches. */
function pick(kind: IdKind, prefix: string, matches: readonly string[]): string {
  if (matches.includes(prefix)) return prefix;
  if (matches.length === 0) return prefix;
  if (matches.length === 1) return matches[0];
  const more = matches.length > MAX_LISTED_MATCHES;
  throw new AmbiguousIdError(kind, prefix, matches.slice(0, MAX_LISTED_MATCHES), more);
}

/** The ids of `ids` that start with `prefix`: a daemon that ignores `idPrefix` lists others. */
function startingWith(prefix: string, ids: string[]): string[] {
  return [...new Set(ids.filter((id) => typeof id === "string" && id.startsWith(prefix)))];
}

/** The session ids starting with `prefix` (newest first, at most `limit`); [] when refused. */
export async function sessionIdsWithPrefix(
  client: SvcClient,
  prefix: string,
  limit = MAX_LISTED_MATCHES + 1,
): Promise<string[]> {
  const query = new URLSearchParams({ idPrefix: prefix, limit: String(limit) });
  const response = await client.get<SessionRecord[]>(`/sessions?${query}`);
  return response.ok ? startingWith(prefix, response.body.map((session) => session.id)) : [];
}

/** The routine ids starting with `prefix` (all for ""; by id, at most `limit`); [] when refused. */
export async function routineIdsWithPrefix(
  client: SvcClient,
  prefix: string,
  limit = MAX_LISTED_MATCHES + 1,
): Promise<string[]> {
  const response = await act<{ routines: StoredRoutine[] }>(client, "svc.automations.list", {
    ...(prefix !== "" && { idPrefix: prefix }),
    limit,
  });
  return response.ok
    ? startingWith(prefix, response.body.result.routines.map((routine) => routine.id))
    : [];
}

/** The run ids starting with `prefix` (newest first, at most `limit`); [] when refused. */
export async function runIdsWithPrefix(
  client: SvcClient,
  prefix: string,
  limit = MAX_LISTED_MATCHES + 1,
): Promise<string[]> {
  const response = await act<{ runs: RunRecord[] }>(client, "svc.automations.runs", {
    idPrefix: prefix,
    limit,
  });
  return response.ok ? startingWith(prefix, response.body.result.runs.map((run) => run.id)) : [];
}

/** The approval rule ids starting with `prefix`, from the whole (bounded) list; [] when refused. */
async function ruleIdsWithPrefix(client: SvcClient, prefix: string): Promise<string[]> {
  const response = await client.get<{ rules: ApprovalRule[] }>("/approval-rules");
  return response.ok ? startingWith(prefix, response.body.rules.map((rule) => rule.id)) : [];
}

/** Text that may be (a prefix of) an id: anything else is sent as typed. */
const ID_TEXT = /^[A-Za-z0-9._-]{1,96}$/;

/**
 * The id of `kind` that `text` names: a full `tag_` id, or a unique prefix of
 * one (`ses_01M8`, `01m8`), looked up through `idsWithPrefix`.
 */
async function resolveTaggedId(
  text: string,
  { kind, tag, idsWithPrefix }: {
    kind: IdKind;
    tag: IdTag;
    idsWithPrefix: (prefix: string) => Promise<string[]>;
  },
): Promise<string> {
  const prefix = normalizeTaggedId(tag, text);
  if (new RegExp(`^${tag}_[0-9A-Z]{26}$`).test(prefix)) return prefix;
  if (!ID_TEXT.test(prefix)) return text;
  const matches = await idsWithPrefix(prefix);
  return matches.length === 0 ? text : pick(kind, prefix, matches);
}

/** The session `text` names: a full id, or a unique prefix of one (`ses_01M8`, `01m8`). */
export async function resolveSessionId(client: SvcClient, text: string): Promise<string> {
  return await resolveTaggedId(text, {
    kind: "session",
    tag: "ses",
    idsWithPrefix: (prefix) => sessionIdsWithPrefix(client, prefix),
  });
}

/** The routine `text` names: its id, or a unique prefix of one. */
export async function resolveRoutineId(client: SvcClient, text: string): Promise<string> {
  if (!ID_TEXT.test(text)) return text;
  return pick("routine", text, await routineIdsWithPrefix(client, text));
}

/** The run `text` names: a full id, or a unique prefix of one (`run_01M8`, `01m8`). */
export async function resolveRunId(client: SvcClient, text: string): Promise<string> {
  return await resolveTaggedId(text, {
    kind: "run",
    tag: "run",
    idsWithPrefix: (prefix) => runIdsWithPrefix(client, prefix),
  });
}

/** The approval rule `text` names: a full id, or a unique prefix of one (`apr_01M8`, `01m8`). */
export async function resolveRuleId(client: SvcClient, text: string): Promise<string> {
  return await resolveTaggedId(text, {
    kind: "rule",
    tag: "apr",
    idsWithPrefix: (prefix) => ruleIdsWithPrefix(client, prefix),
  });
}

/** A pending permission request: its session and its id. */
export interface RequestRef {
  sessionId: string;
  requestId: string;
}

/**
 * The pending permission requests `sessionText` and `requestText` name, each
 * optional and each a prefix (issue 27 item 9, `svc approve`): with both, the
 * requests of the sessions starting with the first whose id starts with the
 * second; with only `requestText`, the requests of any session whose request
 * id starts with it, else (none) every request of the sessions starting with
 * it; with neither, every pending request. One read of the pending list.
 */
export async function pendingRequestsMatching(
  client: SvcClient,
  sessionText: string | undefined,
  requestText: string | undefined,
): Promise<PendingApproval[]> {
  const response = await act<{ approvals: PendingApproval[] }>(
    client,
    "svc.sessions.approvals",
    {},
  );
  if (!response.ok) return [];
  const pending = response.body.result.approvals;
  const ofSession = (text: string) => {
    const prefix = normalizeTaggedId("ses", text);
    return (request: PendingApproval) => request.sessionId.startsWith(prefix);
  };
  const withRequest = (text: string) => (request: PendingApproval) =>
    request.requestId.startsWith(text);
  const exactFirst = (requests: PendingApproval[], text: string) => {
    const exact = requests.filter((request) => request.requestId === text);
    return exact.length > 0 ? exact : requests;
  };
  if (sessionText !== undefined && requestText !== undefined) {
    return exactFirst(
      pending.filter(ofSession(sessionText)).filter(withRequest(requestText)),
      requestText,
    );
  }
  if (requestText !== undefined) {
    const byRequest = exactFirst(pending.filter(withRequest(requestText)), requestText);
    return byRequest.length > 0 ? byRequest : pending.filter(ofSession(requestText));
  }
  return pending;
}

/**
 * The one pending request `sessionText`/`requestText` name (see
 * `pendingRequestsMatching`); null when none is pending; several →
 * `AmbiguousIdError` listing them as `SESSION REQUEST`.
 */
export async function resolveRequestId(
  client: SvcClient,
  sessionText: string | undefined,
  requestText: string | undefined,
): Promise<RequestRef | null> {
  const matches = await pendingRequestsMatching(client, sessionText, requestText);
  if (matches.length === 0) return null;
  if (matches.length === 1) {
    return { sessionId: matches[0].sessionId, requestId: matches[0].requestId };
  }
  const listed = matches.map((request) => `${request.sessionId} ${request.requestId}`);
  throw new AmbiguousIdError(
    "request",
    requestText ?? sessionText ?? "",
    listed.slice(0, MAX_LISTED_MATCHES),
    listed.length > MAX_LISTED_MATCHES,
  );
}
