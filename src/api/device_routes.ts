/**
 * Paired devices (D30): the socket makes pairing codes, lists and revokes
 * devices; a page trades a code for its device cookie and asks who it is.
 */
import { z } from "zod";
import { ServiceError } from "../errors.ts";
import { boundedText, parseInput } from "../validate.ts";
import { readJsonBody } from "../policy/body.ts";
import { DEVICE_SCOPES } from "../policy/device_scopes.ts";
import type { Peer } from "../policy/peer.ts";
import {
  checkHostAndOrigin,
  clientAddress,
  DEVICE_COOKIE,
  deviceCookie,
} from "../policy/web_request.ts";
import { MAX_DEVICE_LIFE_MS } from "../web/devices.ts";
import type { Devices } from "../web/devices.ts";
import { jsonResponse } from "./json.ts";
import type { Route } from "./route.ts";
import { errorDoc } from "./schemas.ts";

/** What the device routes need. */
export interface DeviceRouteDeps {
  readonly devices: Devices;
  /**
   * Where a page can be opened: the TCP listener's origin (null without
   * one: pairing then has nowhere to go) and the `web.origins` entries.
   */
  readonly webOrigins: () => { listener: string | null; origins: readonly string[] };
}

const deviceSchema = () =>
  z.object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(z.enum(DEVICE_SCOPES)),
    createdAt: z.string(),
    lastSeenAt: z.string().nullable(),
    lastPeer: z.string().nullable(),
    expiresAt: z.string(),
  });

const pairingCodeRequest = z.strictObject({
  name: boundedText(1, 64).optional(),
  scope: z.enum(DEVICE_SCOPES).optional(),
  /** A device unused this long expires (default 30 days, at most 90). */
  idleSeconds: z.int().min(60).max(MAX_DEVICE_LIFE_MS / 1000).optional(),
});

const pairRequest = z.strictObject({ code: boundedText(1, 256) });

const revokeRequest = z.union([
  z.strictObject({ id: boundedText(1, 96) }),
  z.strictObject({ all: z.literal(true) }),
]);

const notPaired = () =>
  new ServiceError("not_paired", 401, "This request carries no paired device's credential");

/** The device routes of D30. */
export function deviceRoutes(deps: DeviceRouteDeps): Route[] {
  return [
    {
      method: "GET",
      path: "/devices",
      summary: "Paired devices that are neither revoked nor expired (D30)",
      operationId: "listDevices",
      tag: "devices",
      ownerOnly: "Listing paired devices",
      responses: {
        200: {
          description: "The devices, oldest first",
          schema: () => z.object({ devices: z.array(deviceSchema()) }),
        },
      },
      handler: () => jsonResponse({ devices: deps.devices.list() }),
    },
    {
      method: "POST",
      path: "/devices/pairing-codes",
      summary: "A one-use pairing code (5 minutes) and the URLs that carry it (D30)",
      operationId: "createPairingCode",
      tag: "devices",
      ownerOnly: "Pairing a device",
      body: pairingCodeRequest,
      responses: {
        200: {
          description: "The code in each URL's fragment, and when it expires",
          schema: () =>
            z.object({
              url: z.string(),
              urls: z.array(z.string()),
              code: z.string(),
              expiresAt: z.string(),
            }),
        },
        409: errorDoc("`web_unavailable`: the daemon has no TCP listener"),
      },
      handler: async ({ req }) => {
        const request = parseInput(pairingCodeRequest, await readJsonBody(req));
        const { listener, origins } = deps.webOrigins();
        if (listener === null) {
          throw new ServiceError(
            "web_unavailable",
            409,
            "Pairing needs the TCP listener: start the daemon with svc serve --tcp 127.0.0.1:PORT " +
              'or config "tcp"',
          );
        }
        const { code, expiresAt } = deps.devices.createCode(request.name ?? "browser", {
          scope: request.scope ?? "read",
          idleMs: request.idleSeconds === undefined ? undefined : request.idleSeconds * 1000,
        });
        const urls = [listener, ...origins].map((origin) => `${origin}/pair#${code}`);
        return jsonResponse({ url: urls[0], urls, code, expiresAt });
      },
    },
    {
      method: "POST",
      path: "/devices/pair",
      summary: "A page trades a pairing code for its device and the device cookie (D30)",
      operationId: "pairDevice",
      tag: "devices",
      body: pairRequest,
      responses: {
        200: {
          description: "Paired: the `svc_device` cookie is set (HttpOnly, SameSite=Strict)",
          schema: () => z.object({ device: deviceSchema() }),
        },
        401: errorDoc("`pairing_refused`: the code is used, expired or unknown"),
        403: errorDoc("`origin_refused`: no Origin, or not the page's own"),
      },
      handler: async ({ req, peer }) => {
        const { code } = parseInput(pairRequest, await readJsonBody(req));
        const { device, token } = deps.devices.pair(code, peerAddress(req, peer));
        const response = jsonResponse({ device });
        const maxAge = deps.devices.remainingSeconds(device.id);
        response.headers.set("set-cookie", cookie(req, peer, token, maxAge));
        return response;
      },
    },
    {
      method: "GET",
      path: "/devices/me",
      summary: "The device this request's cookie names: its name and scopes (D30)",
      operationId: "getOwnDevice",
      tag: "devices",
      responses: {
        200: {
          description: "The device; its cookie's life is renewed",
          schema: () => z.object({ device: deviceSchema() }),
        },
        401: errorDoc("`not_paired` (or `device_revoked`)"),
      },
      handler: ({ req, peer }) => {
        if (peer.transport !== "tcp" || peer.device === undefined) throw notPaired();
        const device = deps.devices.view(peer.device.id);
        if (device === null) throw notPaired();
        const response = jsonResponse({ device });
        const token = deviceCookie(req.headers.get("cookie"));
        const maxAge = deps.devices.remainingSeconds(device.id);
        if (token !== null) response.headers.set("set-cookie", cookie(req, peer, token, maxAge));
        return response;
      },
    },
    {
      method: "POST",
      path: "/devices/revoke",
      summary: "Revokes one device (`id`) or every one (`all`): its streams end now (D30)",
      operationId: "revokeDevices",
      tag: "devices",
      ownerOnly: "Revoking a device",
      body: revokeRequest,
      responses: {
        200: {
          description: "The ids revoked",
          schema: () => z.object({ revoked: z.array(z.string()) }),
        },
        404: errorDoc("`device_not_found`"),
      },
      handler: async ({ req }) => {
        const request = parseInput(revokeRequest, await readJsonBody(req));
        const revoked = deps.devices.revoke("id" in request ? [request.id] : null);
        return jsonResponse({ revoked });
      },
    },
  ];
}

/** Who is pairing, for the device list and the failed-code limit. */
function peerAddress(req: Request, peer: Peer): string {
  return peer.transport === "tcp" ? clientAddress(req, peer) : peer.transport;
}

/** `svc_device=…; HttpOnly; SameSite=Strict; Path=/; Max-Age=…` (+ `Secure` on https). */
function cookie(req: Request, peer: Peer, token: string, maxAge: number): string {
  const via = peer.transport === "tcp" ? checkHostAndOrigin(req, peer) : null;
  const secure = via !== null && "secure" in via && via.secure;
  return `${DEVICE_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}` +
    (secure ? "; Secure" : "");
}
