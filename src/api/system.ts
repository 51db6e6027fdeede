import { z } from "zod";
import { jsonResponse, jsonTextResponse } from "./json.ts";
import type { Route } from "./route.ts";
import { boundedText, parseInput } from "../validate.ts";
import { ServiceError } from "../errors.ts";
import {
  capabilityRecordSchema,
  errorDoc,
  errorEnvelopeSchema,
  healthSchema,
  restrictedRefusalSchema,
} from "./schemas.ts";
import { readJsonBody } from "../policy/body.ts";
import type { Clock } from "../clock.ts";
import { isoTime } from "../clock.ts";
import { API_VERSION, SESSION_POLICY_CONTRACT, svcVersion } from "../version.ts";
import type { Endpoint } from "../transport/local_endpoint.ts";

/** What the system routes need from the daemon. */
export interface SystemDeps {
  readonly instanceId: string;
  readonly startedAtMs: number;
  readonly clock: Clock;
  readonly endpoint: Endpoint;
  readonly tcp: string | null;
  /** The capability records (C2.4) as JSON text, kept ready: health is the hottest route. */
  readonly capabilitiesJson: () => string;
  /** True while the harnesses' version probes still run. */
  readonly probing: () => boolean;
  readonly liveSessions: () => number;
  /** Sessions waiting out a limit (D33) and the soonest `parkedUntil` among them. */
  readonly parked: () => { count: number; nextUntil: string | null };
  /**
   * `degraded` while the store refuses writes (disk full, read-only), `lost`
   * once `svc.db` was deleted or replaced (D24): health is then not ok.
   */
  readonly storeState: () => "ok" | "degraded" | "lost";
  /** Asks the daemon to stop gracefully (`svc stop`); resolves once accepted. */
  readonly requestShutdown: () => void;
}

const RESTRICTED_BODY_BYTES = 64 * 1024;
const SHA256_DIGEST = /^sha256:[0-9a-f]{64}$/;

const restrictedLaunchSchema = z.strictObject({
  profile: boundedText(1, 64),
  harness: boundedText(1, 64),
  cwd: boundedText(1, 4096),
  prompt: z.string().max(256 * 1024).optional(),
  policyDigest: z.string().regex(SHA256_DIGEST, "must be sha256:<64 lowercase hex>"),
  expiresAt: z.iso.datetime({ offset: true }),
});

/** Handshake and discovery routes: health, capabilities, api-version, session policy (C4, D5, D11). */
export function systemRoutes(deps: SystemDeps): Route[] {
  const staticHealthFields = (contracts: string[]) =>
    JSON.stringify({
      apiVersion: API_VERSION,
      svcVersion: svcVersion(),
      sessionPolicyContracts: contracts,
      pid: Deno.pid,
      startedAt: isoTime(deps.startedAtMs),
      instanceId: deps.instanceId,
      endpoint: deps.endpoint,
      tcp: deps.tcp,
    }).slice(1, -1);
  // C2.5: the session-policy contract is listed over local IPC only. Built on first use.
  let ownerHealthFields: string | undefined;
  let tcpHealthFields: string | undefined;
  return [
    {
      method: "GET",
      path: "/health",
      summary: "The handshake: health, contract version, capabilities (C2.5, D5)",
      operationId: "getHealth",
      tag: "system",
      responses: { 200: { description: "The daemon's health", schema: healthSchema } },
      handler: ({ peer }) => {
        const store = deps.storeState();
        const uptime = Math.max(0, (deps.clock.now() - deps.startedAtMs) / 1000);
        const parked = deps.parked();
        // What never changes is serialised once; the live fields are spliced in.
        return jsonTextResponse(
          `{"ok":${store === "ok"},"uptime":${uptime},"liveSessions":${deps.liveSessions()},` +
            `"parkedSessions":${parked.count},"nextParkedUntil":${
              JSON.stringify(parked.nextUntil)
            },"store":"${store}","probing":${deps.probing()},` +
            (peer.owner
              ? ownerHealthFields ??= staticHealthFields([SESSION_POLICY_CONTRACT])
              : tcpHealthFields ??= staticHealthFields([])) +
            `,"capabilities":${deps.capabilitiesJson()}}`,
        );
      },
    },
    {
      method: "GET",
      path: "/capabilities",
      summary: "Capability records (C2.4, D5)",
      operationId: "getCapabilities",
      tag: "system",
      responses: {
        200: {
          description: "The capability records",
          schema: () => z.object({ capabilities: z.array(capabilityRecordSchema()) }),
        },
      },
      handler: () => jsonTextResponse(`{"capabilities":${deps.capabilitiesJson()}}`),
    },
    {
      method: "GET",
      path: "/api-version",
      summary: 'Legacy route-family diagnostic: {"version":"v1"}',
      operationId: "getApiVersion",
      tag: "system",
      responses: {
        200: {
          description: "The route family",
          schema: () => z.object({ version: z.literal("v1") }),
        },
      },
      handler: () => jsonResponse({ version: "v1" }),
    },
    {
      method: "GET",
      path: "/session-policy",
      summary: "Inert session-policy discovery (D11)",
      operationId: "getSessionPolicy",
      tag: "system",
      responses: {
        200: {
          description: "The session-policy contract, without enforcement",
          schema: () =>
            z.object({
              contract: z.string(),
              enforcement: z.literal("unavailable"),
              supportedProfiles: z.array(z.string()),
            }),
        },
      },
      handler: () =>
        jsonResponse({
          contract: SESSION_POLICY_CONTRACT,
          enforcement: "unavailable",
          supportedProfiles: [],
        }),
    },
    {
      method: "POST",
      path: "/sessions/restricted",
      summary: "Restricted launch: always refused, owner-local only (C4.4, D11)",
      operationId: "launchRestrictedSession",
      tag: "sessions",
      responses: {
        400: errorDoc("The request breaks the schema"),
        409: {
          description: "Always refused (C4.4), or `session_policy_expired` in the envelope",
          schema: () => z.union([restrictedRefusalSchema(), errorEnvelopeSchema()]),
        },
        413: errorDoc("A body over 64 KiB"),
      },
      body: restrictedLaunchSchema,
      ownerOnly: "Restricted launch",
      handler: async ({ req }) => {
        const body = await readJsonBody(req, RESTRICTED_BODY_BYTES);
        const request = parseInput(restrictedLaunchSchema, body);
        if (Date.parse(request.expiresAt) <= deps.clock.now()) {
          throw new ServiceError(
            "session_policy_expired",
            409,
            `Session policy expired at "${request.expiresAt}"`,
            { expiresAt: request.expiresAt },
          );
        }
        // C4.4: the refusal is its own body, not the generic envelope.
        return jsonResponse(
          { decision: "rejected", code: "enforcement_unavailable", admission: "not_started" },
          409,
        );
      },
    },
    {
      method: "POST",
      path: "/shutdown",
      summary: "Graceful daemon stop (first-party, owner-local only)",
      operationId: "shutdown",
      tag: "system",
      responses: {
        202: {
          description: "The stop has begun",
          schema: () => z.object({ ok: z.literal(true), accepted: z.literal(true) }),
        },
      },
      ownerOnly: "Shutting the daemon down",
      handler: () => {
        deps.requestShutdown();
        return jsonResponse({ ok: true, accepted: true }, 202);
      },
    },
  ];
}
