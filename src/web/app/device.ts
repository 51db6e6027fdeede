/**
 * This page's device (D30): paired with a name and scopes, not paired, or
 * revoked, as `GET /devices/me` and the 401s of other calls tell it, and
 * pairing from the code in `/pair#<code>`. Face-free; `fetch` comes in.
 */
import type { Fetch } from "./browser_client.ts";

/** A device's scopes nest: approve holds read, operate holds both. */
export type Scope = "read" | "approve" | "operate";

/** What the page knows of its device. */
export type DeviceState =
  | { status: "checking" }
  | { status: "paired"; name: string; scopes: readonly string[] }
  | { status: "not_paired" }
  | { status: "revoked" }
  /** The daemon did not answer; the sync loop's banner says so. */
  | { status: "unreachable" };

/** Whether `scopes` hold `need`. */
export function allows(scopes: readonly string[], need: Scope): boolean {
  const rank: Record<string, number> = { read: 1, approve: 2, operate: 3 };
  return scopes.some((scope) => (rank[scope] ?? 0) >= rank[need]);
}

type DeviceBody = { device?: { name?: string; scopes?: string[] }; error?: { code?: string } };

/** The device as `GET /api/v1/devices/me` answers. */
export async function readDevice(fetch: Fetch): Promise<DeviceState> {
  let response: Response;
  try {
    response = await fetch("/api/v1/devices/me", { credentials: "same-origin" });
  } catch {
    return { status: "unreachable" };
  }
  const body = await response.json().catch(() => ({})) as DeviceBody;
  if (response.ok && body.device) {
    return { status: "paired", name: body.device.name ?? "", scopes: body.device.scopes ?? [] };
  }
  if (body.error?.code === "device_revoked") return { status: "revoked" };
  if (response.status === 401) return { status: "not_paired" };
  return { status: "unreachable" };
}

/** What pairing came to: the device, or the sentence the page shows. */
export type Pairing =
  | { ok: true; name: string; scopes: readonly string[] }
  | { ok: false; message: string };

/** Posts the fragment's code to `POST /api/v1/devices/pair` (the cookie comes back HttpOnly). */
export async function pairDevice(code: string, fetch: Fetch): Promise<Pairing> {
  let response: Response;
  try {
    response = await fetch("/api/v1/devices/pair", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
  } catch (error) {
    return { ok: false, message: `The daemon does not answer (${String(error)}): try again` };
  }
  const body = await response.json().catch(() => ({})) as DeviceBody & {
    error?: { message?: string };
  };
  if (response.ok && body.device) {
    return { ok: true, name: body.device.name ?? "", scopes: body.device.scopes ?? [] };
  }
  if (body.error?.code === "pairing_refused") {
    return {
      ok: false,
      message:
        "This pairing code was already used, has expired or is unknown: run svc devices pair again",
    };
  }
  return {
    ok: false,
    message: `Pairing failed (${response.status}): ${body.error?.message ?? "no reason given"}`,
  };
}
