import { join } from "node:path";
import { ServiceError, sessionNotFound } from "./errors.ts";
import { jsonResponse } from "./json.ts";
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
/** Room for the JSON wrapper and escaping within the 4 MiB response bound. */
const MAX_ARTIFACT_BYTES = MAX_PAGE_BYTES / 2;

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
      let bytes: Uint8Array;
      try {
        const path = join(deps.artifactsDir, sessionId, artifactId);
        const size = (await Deno.stat(path)).size;
        if (size > MAX_ARTIFACT_BYTES) {
          throw new ServiceError(
            "artifact_too_large",
            413,
            `Artifact "${artifactId}" is ${size} bytes, over the ${MAX_ARTIFACT_BYTES} a response may carry: read it from ${path}`,
            { sessionId, artifactId, bytes: size, path },
          );
        }
        bytes = await Deno.readFile(path);
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) throw notFound;
        throw error;
      }
      return jsonResponse({
        artifact: {
          id: artifactId,
          sessionId,
          bytes: bytes.byteLength,
          encoding: "utf-8",
          data: new TextDecoder().decode(bytes),
        },
      });
    },
  }];
}
