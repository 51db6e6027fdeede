import { z } from "zod";
import { invalidRequest } from "../errors.ts";
import { jsonResponse } from "./json.ts";
import { cursorParam, integerParam } from "./query.ts";
import type { Route } from "./route.ts";
import { approvalLogEntrySchema, approvalRuleSchema, errorDoc } from "./schemas.ts";
import type { ApprovalRules } from "../approvals/rules.ts";
import type { ApprovalRulesStore } from "../store/approval_rules_store.ts";

/** What the approval routes need (D28). */
export interface ApprovalDeps {
  readonly approvalRules: ApprovalRules;
  readonly approvalLog: ApprovalRulesStore;
}

/** Log entries one page holds at most, and without `limit`. */
const MAX_LOG_LIMIT = 1000;
const DEFAULT_LOG_LIMIT = 100;

/**
 * `GET /approval-rules` and `GET /approvals/log` (D28): both only read, so a
 * TCP peer may call them (D23); rules change through owner-only actions.
 */
export function approvalRoutes(deps: ApprovalDeps): Route[] {
  return [
    {
      method: "GET",
      path: "/approval-rules",
      summary: "The standing approval rules, oldest first (D28)",
      operationId: "listApprovalRules",
      tag: "approvals",
      responses: {
        200: {
          description: "Every rule",
          schema: () => z.object({ rules: z.array(approvalRuleSchema()) }),
        },
      },
      handler: () => jsonResponse({ rules: deps.approvalRules.list() }),
    },
    {
      method: "GET",
      path: "/approvals/log",
      summary: "Every permission decision in the order it was made, and who or what made it (D28)",
      operationId: "readApprovalLog",
      tag: "approvals",
      query: z.object({
        since: z.string().optional().describe("RFC 3339 time: decisions at or after it"),
        sessionId: z.string().optional().describe("Only this session's decisions"),
        cursor: z.string().optional().describe("`nextCursor` of the page before"),
        limit: z.int().min(1).max(MAX_LOG_LIMIT).optional().describe("Clamped; default 100"),
      }),
      responses: {
        200: {
          description: "A page of decisions",
          schema: () =>
            z.object({
              entries: z.array(approvalLogEntrySchema()),
              nextCursor: z.string().nullable().describe("Null once the log is read to its end"),
            }),
        },
        400: errorDoc("A bad query parameter"),
      },
      handler: ({ url }) => {
        const since = url.searchParams.get("since") ?? undefined;
        if (since !== undefined && Number.isNaN(Date.parse(since))) {
          throw invalidRequest(`Query parameter "since" must be an RFC 3339 time`, "since");
        }
        const limit = integerParam(url, "limit", { min: 1, max: MAX_LOG_LIMIT }) ??
          DEFAULT_LOG_LIMIT;
        const entries = deps.approvalLog.log({
          cursor: cursorParam(url, "cursor"),
          since: since === undefined ? undefined : new Date(since).toISOString(),
          sessionId: url.searchParams.get("sessionId") ?? undefined,
          limit,
        });
        const nextCursor = entries.length === limit ? entries[entries.length - 1].cursor : null;
        return jsonResponse({ entries, nextCursor });
      },
    },
  ];
}
