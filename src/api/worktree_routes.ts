/**
 * `GET /sessions/{id}/worktree/diff`, `.../check` (D34), `POST
 * /sessions/{id}/worktree/land` and `.../discard` (D27). All are owner-only: a diff holds the
 * worktree's files as they are and cannot be redacted reliably (D23 keeps
 * TCP reads redacted), and land and discard change the owner's repository.
 */
import { z } from "zod";
import { ServiceError } from "../errors.ts";
import { MAX_PAGE_BYTES } from "../events/page.ts";
import { readJsonBody } from "../policy/body.ts";
import { parseInput } from "../validate.ts";
import { LAND_MODES } from "../worktrees/land_types.ts";
import type { WorktreeReview } from "../worktrees/review.ts";
import { landVerifySchema } from "../worktrees/land_verify.ts";
import { fitJson } from "./artifacts.ts";
import { jsonResponse } from "./json.ts";
import { integerParam } from "./query.ts";
import type { ResponseBudget } from "./response_budget.ts";
import type { Route } from "./route.ts";
import { errorDoc } from "./schemas.ts";

/** What the worktree review routes need. */
export interface WorktreeRouteDeps {
  readonly review: WorktreeReview;
  /** Large pages held in memory at once (issue 13), shared with event pages. */
  readonly budget: ResponseBudget;
}

/** The most bytes of the diff one page reads; its JSON stays within 4 MiB like an event page. */
export const MAX_DIFF_PAGE_BYTES = MAX_PAGE_BYTES;
/** The `data` string as JSON may take this much, leaving room for the wrapper. */
const MAX_DATA_JSON_BYTES = MAX_PAGE_BYTES - 4096;
/** How long a page waits for room in the budget before 503 `server_busy`. */
const BUDGET_WAIT_MS = 30_000;

export const landRequestSchema = z.strictObject({
  mode: z.enum(LAND_MODES).describe(
    "squash: one commit; merge: a merge commit; rebase: the commits on top",
  ),
  message: z.string().min(1).max(64 * 1024).optional()
    .describe(
      "The squash or merge commit's message; with rebase, that of the uncommitted work's commit",
    ),
  verify: landVerifySchema.optional().describe(
    "Run this instead of the project's land.verify in the result before the checkout moves (D34)",
  ),
});

export const discardRequestSchema = z.strictObject({
  force: z.boolean().optional().describe("Discard work that was never landed"),
});

const diffFileSchema = z.object({
  path: z.string(),
  oldPath: z.string().nullable(),
  insertions: z.int().nullable(),
  deletions: z.int().nullable(),
  binary: z.boolean(),
});

const diffPageSchema = () =>
  z.object({
    diff: z.object({
      sessionId: z.string(),
      baseCommit: z.string(),
      headCommit: z.string(),
      bytes: z.int().describe("The whole diff's size"),
      offset: z.int(),
      length: z.int().describe("Bytes of the diff in `data`"),
      nextOffset: z.int().nullable().describe("Where the next page starts; null at the end"),
      encoding: z.literal("utf-8"),
      data: z.string(),
    }),
  });

const diffStatSchema = () =>
  z.object({
    stat: z.object({
      sessionId: z.string(),
      baseCommit: z.string(),
      headCommit: z.string(),
      changedFiles: z.int(),
      insertions: z.int(),
      deletions: z.int(),
      files: z.array(diffFileSchema),
    }),
  });

const checkSchema = () =>
  z.object({
    check: z.object({
      sessionId: z.string(),
      branch: z.string().nullable().describe("The checkout's branch; null when HEAD is detached"),
      headCommit: z.string().describe("The checkout's HEAD the check was made against"),
      clean: z.boolean().describe("The work merges into HEAD without a conflict"),
      conflicts: z.array(z.string()).describe("Files the merge cannot resolve"),
      bothChanged: z.array(z.string()).describe("Files both sides changed since their merge base"),
      verify: z.object({ configured: z.boolean() }),
    }),
  });

const landedSchema = () =>
  z.object({
    landed: z.object({
      sessionId: z.string(),
      mode: z.enum(LAND_MODES),
      branch: z.string(),
      previousCommit: z.string(),
      landedCommit: z.string(),
      landedAt: z.string(),
      uncommittedCommit: z.string().nullable(),
    }),
  });

const discardedSchema = () =>
  z.object({
    discarded: z.object({
      sessionId: z.string(),
      path: z.string(),
      branch: z.string(),
      branchDeleted: z.boolean(),
    }),
  });

/** The review routes of isolated sessions' worktrees (D27). */
export function worktreeRoutes(deps: WorktreeRouteDeps): Route[] {
  return [
    {
      method: "GET",
      path: "/sessions/:id/worktree/diff",
      summary: "The worktree's diff against its base commit, paged, owner-local only (D27)",
      operationId: "getWorktreeDiff",
      tag: "sessions",
      query: z.object({
        stat: z.literal("1").optional().describe("Counts per file instead of the diff"),
        offset: z.int().min(0).optional().describe("Byte offset in the diff"),
        length: z.int().min(1).max(MAX_DIFF_PAGE_BYTES).optional()
          .describe("Bytes to read (default and most: 4 MiB; fewer when JSON escaping grows them)"),
      }),
      responses: {
        200: {
          description: "A page of the unified diff, or with stat=1 its counts",
          schema: () => z.union([diffPageSchema(), diffStatSchema()]),
        },
        400: errorDoc("A bad query parameter"),
        403: errorDoc("`forbidden` over TCP: a diff cannot be redacted"),
        404: errorDoc("`session_not_found` or `worktree_not_found`"),
        409: errorDoc("`worktree_removed`, `worktree_tampered` or `checkout_moved`"),
        503: errorDoc("`server_busy`: too many large answers at once"),
      },
      ownerOnly: "Reading a worktree's diff",
      handler: async ({ url, params }) => {
        if (url.searchParams.get("stat") === "1") {
          return jsonResponse({ stat: await deps.review.stat(params.id) });
        }
        const offset = integerParam(url, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
        const length = integerParam(url, "length", { min: 1, max: MAX_DIFF_PAGE_BYTES }) ??
          MAX_DIFF_PAGE_BYTES;
        const reservation = await deps.budget.reserve(BUDGET_WAIT_MS);
        if (reservation === null) {
          throw new ServiceError(
            "server_busy",
            503,
            "Too many large answers are being sent right now: retry shortly",
            { retryAfterSeconds: 1 },
          );
        }
        try {
          const page = await deps.review.diff(params.id, offset, length);
          const { data, used } = fitJson(page.bytesRead, MAX_DATA_JSON_BYTES);
          const end = page.offset + used;
          const body = new TextEncoder().encode(JSON.stringify({
            diff: {
              sessionId: page.sessionId,
              baseCommit: page.baseCommit,
              headCommit: page.headCommit,
              bytes: page.bytes,
              offset: page.offset,
              length: used,
              nextOffset: end < page.bytes ? end : null,
              encoding: "utf-8",
              data,
            },
          }));
          return reservation.response(body, {
            status: 200,
            headers: { "content-type": "application/json; charset=utf-8" },
          });
        } catch (error) {
          reservation.release();
          throw error;
        }
      },
    },
    {
      method: "GET",
      path: "/sessions/:id/worktree/check",
      summary:
        "Whether the worktree's work lands cleanly on the checkout's HEAD, computed with git " +
        "merge-tree: the checkout, index, refs and status are not written (D34)",
      operationId: "checkWorktree",
      tag: "sessions",
      responses: {
        200: { description: "The check", schema: checkSchema },
        403: errorDoc("`forbidden` over TCP"),
        404: errorDoc("`session_not_found` or `worktree_not_found`"),
        409: errorDoc("`worktree_removed`, `worktree_tampered` or `checkout_moved`"),
      },
      ownerOnly: "Checking a worktree's land",
      handler: async ({ params }) => jsonResponse({ check: await deps.review.check(params.id) }),
    },
    {
      method: "POST",
      path: "/sessions/:id/worktree/land",
      summary: "Land the worktree's work on the checked-out branch of its repository (D27)",
      operationId: "landWorktree",
      tag: "sessions",
      body: landRequestSchema,
      responses: {
        200: { description: "Landed: the checkout's branch moved", schema: landedSchema },
        400: errorDoc("`invalid_request`"),
        404: errorDoc("`session_not_found` or `worktree_not_found`"),
        409: errorDoc(
          "`land_conflict` (nothing changed; `details.reason`: detached_head, dirty_checkout, " +
            "ignored_files, conflict or checkout_changed; `details.files`), `verify_failed` (nothing " +
            "changed; `details.tail`: the end of the command's output), `nothing_to_land`, `already_landed`, " +
            "`session_live`, `worktree_removed`, `worktree_tampered` or `checkout_moved`",
        ),
      },
      ownerOnly: "Landing a worktree",
      handler: async ({ req, params }) => {
        const request = parseInput(landRequestSchema, await readJsonBody(req));
        return jsonResponse({ landed: await deps.review.land(params.id, request) });
      },
    },
    {
      method: "POST",
      path: "/sessions/:id/worktree/discard",
      summary: "Remove the worktree and delete its branch (D27)",
      operationId: "discardWorktree",
      tag: "sessions",
      body: discardRequestSchema,
      responses: {
        200: { description: "Removed", schema: discardedSchema },
        400: errorDoc("`invalid_request`"),
        404: errorDoc("`session_not_found` or `worktree_not_found`"),
        409: errorDoc(
          "`unlanded_work` or `worktree_tampered` (`force` discards it), `session_live`, " +
            "`worktree_removed` or `checkout_moved`",
        ),
      },
      ownerOnly: "Discarding a worktree",
      handler: async ({ req, params }) => {
        const request = parseInput(discardRequestSchema, await readJsonBody(req));
        return jsonResponse({
          discarded: await deps.review.discard(params.id, request.force === true),
        });
      },
    },
  ];
}
