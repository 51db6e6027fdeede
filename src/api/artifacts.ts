import { join } from "node:path";
import { ServiceError, sessionNotFound } from "../errors.ts";
import { jsonResponse } from "./json.ts";
import { integerParam } from "./query.ts";
import { readRange } from "../file_range.ts";
import { z } from "zod";
import { artifactSchema, errorDoc } from "./schemas.ts";
import type { Route } from "./route.ts";
import type { SessionsStore } from "../store/sessions_store.ts";
import { MAX_PAGE_BYTES } from "../events/page.ts";

/** What the artifact route needs. */
export interface ArtifactDeps {
  readonly sessions: SessionsStore;
  readonly rawArtifacts: () => boolean;
  readonly artifactsDir: string;
}

/** The artifacts a session can have: its unredacted output (D9). */
const ARTIFACT_IDS = new Set(["output"]);
/** The most bytes of the file one response takes (a page; `offset` reads on). */
const MAX_ARTIFACT_BYTES = 2 * 1024 * 1024;
/** The `data` string as JSON may take this much, leaving room for the wrapper in 4 MiB. */
const MAX_DATA_JSON_BYTES = MAX_PAGE_BYTES - 4096;

/**
 * The longest prefix of `bytes` whose text, JSON-encoded, fits `budget`
 * bytes (control characters take 6 each: 2 MiB of them would be 12 MB),
 * cut at a UTF-8 character boundary. Pure.
 */
export function fitJson(bytes: Uint8Array, budget: number): { data: string; used: number } {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let used = bytes.length;
  for (;;) {
    const data = decoder.decode(bytes.subarray(0, used));
    const size = encoder.encode(JSON.stringify(data)).length;
    if (size <= budget || used === 0) return { data, used };
    used = Math.floor(used * (budget / size) * 0.98);
    while (used > 0 && used < bytes.length && (bytes[used] & 0xc0) === 0x80) used--;
  }
}

/**
 * `GET /sessions/{id}/artifacts/{artifactId}?raw=1` (C4, D9), checked in
 * D9's order: TCP (the route is owner-only, so the app refuses it first),
 * persistence off, no `raw=1`, unknown session, unknown artifact.
 */
export function artifactRoutes(deps: ArtifactDeps): Route[] {
  return [{
    method: "GET",
    path: "/sessions/:sessionId/artifacts/:artifactId",
    summary: "A raw (unredacted) artifact, owner-local only (D9)",
    operationId: "getArtifact",
    tag: "sessions",
    query: z.object({
      raw: z.literal("1"),
      offset: z.int().min(0).optional(),
      length: z.int().min(1).max(MAX_ARTIFACT_BYTES).optional(),
    }),
    responses: {
      200: { description: "A page of the artifact", schema: artifactSchema },
      400: errorDoc("`raw_artifact_requires_raw_flag` or a bad query parameter"),
      403: errorDoc("`raw_artifacts_disabled`, or `forbidden` over TCP"),
      404: errorDoc("`session_not_found` or `artifact_not_found`"),
    },
    ownerOnly: "Reading a raw artifact",
    handler: async ({ url, params }) => {
      if (!deps.rawArtifacts()) {
        throw new ServiceError(
          "raw_artifacts_disabled",
          403,
          "Raw artifact persistence is off: set rawArtifacts in config.json",
        );
      }
      if (url.searchParams.get("raw") !== "1") {
        throw new ServiceError(
          "raw_artifact_requires_raw_flag",
          400,
          "Raw artifacts are returned only with raw=1",
        );
      }
      const { sessionId, artifactId } = params;
      if (!deps.sessions.get(sessionId)) throw sessionNotFound(sessionId);
      const notFound = new ServiceError(
        "artifact_not_found",
        404,
        `Session "${sessionId}" has no artifact "${artifactId}"`,
        { sessionId, artifactId },
      );
      if (!ARTIFACT_IDS.has(artifactId)) throw notFound;
      const offset = integerParam(url, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
      const length = integerParam(url, "length", { min: 1, max: MAX_ARTIFACT_BYTES }) ??
        MAX_ARTIFACT_BYTES;
      let file: Deno.FsFile;
      try {
        file = await Deno.open(join(deps.artifactsDir, sessionId, artifactId), { read: true });
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) throw notFound;
        throw error;
      }
      try {
        const size = (await file.stat()).size;
        const bytes = await readRange(file, Math.min(offset, size), length);
        const { data, used } = fitJson(bytes, MAX_DATA_JSON_BYTES);
        const end = Math.min(offset, size) + used;
        return jsonResponse({
          artifact: {
            id: artifactId,
            sessionId,
            bytes: size,
            offset: Math.min(offset, size),
            length: used,
            nextOffset: end < size ? end : null,
            encoding: "utf-8",
            data,
          },
        });
      } finally {
        file.close();
      }
    },
  }];
}
