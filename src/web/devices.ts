import { createHash } from "node:crypto";
import { ServiceError } from "../errors.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { newId } from "../ids.ts";
import { type DeviceScope, heldScopes } from "../policy/device_scopes.ts";
import type { CredentialState } from "../policy/web_request.ts";
import type { DeviceRow, DevicesStore } from "../store/devices_store.ts";

/** A pairing code is valid this long (D30). */
export const CODE_LIFE_MS = 5 * 60_000;

/** A device lives at most this long after pairing, however often it is used (D30). */
export const MAX_DEVICE_LIFE_MS = 90 * 86_400_000;

/** Default idle life: a device unused this long expires (D30). */
export const DEFAULT_IDLE_MS = 30 * 86_400_000;

/** This many failed codes from one peer within FAILURE_WINDOW_MS void every open code. */
const MAX_FAILURES = 5;
const FAILURE_WINDOW_MS = 60_000;

/** A device's last use is written at most this often (a request is not a write). */
const TOUCH_EVERY_MS = 60_000;

/** A device as the API shows it (D30). */
export interface DeviceView {
  id: string;
  name: string;
  scopes: DeviceScope[];
  createdAt: string;
  lastSeenAt: string | null;
  lastPeer: string | null;
  expiresAt: string;
}

/** A code waiting for its page: what the device will be. */
interface OpenCode {
  readonly name: string;
  readonly scope: DeviceScope;
  readonly idleMs: number;
  readonly expiresAtMs: number;
}

/**
 * Paired devices (D30): one-use pairing codes (kept in memory, hashed, 5
 * minutes), device tokens (only their SHA-256 is stored), expiry, and
 * revocation, which ends the device's streams through `signal()`. Neither a
 * token nor a code ever reaches the log.
 */
export class Devices {
  readonly #store: DevicesStore;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #codes = new Map<string, OpenCode>();
  readonly #failures = new Map<string, number[]>();
  readonly #touched = new Map<string, number>();
  readonly #signals = new Map<string, AbortController>();

  constructor(options: { store: DevicesStore; clock: Clock; log: Logger }) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#log = options.log;
  }

  /** A new one-use pairing code for a device named `name` with `scope`. */
  createCode(
    name: string,
    options: { scope: DeviceScope; idleMs?: number },
  ): { code: string; expiresAt: string } {
    const now = this.#clock.now();
    this.#dropExpiredCodes(now);
    const code = randomText(16);
    const expiresAtMs = now + CODE_LIFE_MS;
    const idleMs = Math.min(options.idleMs ?? DEFAULT_IDLE_MS, MAX_DEVICE_LIFE_MS);
    this.#codes.set(sha256(code), { name, scope: options.scope, idleMs, expiresAtMs });
    const expiresAt = new Date(expiresAtMs).toISOString();
    this.#log.info("Pairing code created", { name, scope: options.scope, expiresAt });
    return { code, expiresAt };
  }

  /**
   * Trades a code for a device and its token (once). A used, expired or
   * unknown code is 401 `pairing_refused`; the fifth failure from one peer
   * within a minute voids every open code.
   */
  pair(code: string, peer: string): { device: DeviceView; token: string } {
    const now = this.#clock.now();
    this.#dropExpiredCodes(now);
    const key = sha256(code);
    const open = this.#codes.get(key);
    if (open === undefined) {
      this.#failed(peer, now);
      throw new ServiceError(
        "pairing_refused",
        401,
        "This pairing code is used, expired or unknown: run svc devices pair again",
      );
    }
    this.#codes.delete(key);
    const token = randomText(32);
    const createdAt = new Date(now).toISOString();
    const row: DeviceRow = {
      id: newId("dev", now),
      name: open.name,
      scope: open.scope,
      idleSeconds: Math.round(open.idleMs / 1000),
      createdAt,
      endsAt: new Date(now + MAX_DEVICE_LIFE_MS).toISOString(),
      lastSeenAt: createdAt,
      lastPeer: peer,
      revokedAt: null,
    };
    this.#store.insert(row, sha256(token));
    this.#touched.set(row.id, now);
    this.#log.info("Device paired", { deviceId: row.id, name: row.name, scope: row.scope, peer });
    return { device: viewOf(row), token };
  }

  /** What a request's token names: a live device, a revoked one, or nothing (unknown, expired). */
  credential(token: string, peer: string): CredentialState {
    const row = this.#store.byToken(sha256(token));
    if (row === null) {
      this.#log.warn("A device credential was refused", { reason: "unknown", peer });
      return { kind: "none" };
    }
    if (row.revokedAt !== null) {
      this.#log.warn("A device credential was refused", {
        reason: "revoked",
        deviceId: row.id,
        peer,
      });
      return { kind: "revoked", deviceId: row.id };
    }
    const now = this.#clock.now();
    if (Date.parse(expiresAt(row)) <= now) {
      this.#log.warn("A device credential was refused", {
        reason: "expired",
        deviceId: row.id,
        peer,
      });
      return { kind: "none" };
    }
    this.#touch(row, now, peer);
    return { kind: "device", device: { id: row.id, name: row.name, scope: row.scope } };
  }

  /** A live device's view (for `GET /devices/me`), or null once revoked or expired. */
  view(deviceId: string): DeviceView | null {
    const row = this.#store.list().find((candidate) => candidate.id === deviceId);
    if (row === undefined || Date.parse(expiresAt(row)) <= this.#clock.now()) return null;
    return viewOf(row);
  }

  /** Every device neither revoked nor expired, oldest first. */
  list(): DeviceView[] {
    const now = this.#clock.now();
    return this.#store.list().filter((row) => Date.parse(expiresAt(row)) > now).map(viewOf);
  }

  /**
   * Revokes the devices named (every one with `ids` null): their open
   * streams end now, their next request is 401 `device_revoked`. Unknown
   * ids are 404 `device_not_found` and nothing is revoked.
   */
  revoke(ids: readonly string[] | null): string[] {
    const live = new Set(this.#store.list().map((row) => row.id));
    const unknown = ids?.find((id) => !live.has(id));
    if (unknown !== undefined) {
      throw new ServiceError("device_not_found", 404, `Device "${unknown}" is not paired`, {
        deviceId: unknown,
      });
    }
    const revoked = this.#store.revoke(ids, new Date(this.#clock.now()).toISOString());
    for (const id of revoked) {
      this.#signals.get(id)?.abort();
      this.#signals.delete(id);
      this.#touched.delete(id);
      this.#log.info("Device revoked", { deviceId: id });
    }
    return revoked;
  }

  /** Aborted when the device is revoked: what its open streams follow. */
  signal(deviceId: string): AbortSignal {
    let controller = this.#signals.get(deviceId);
    if (controller === undefined) {
      controller = new AbortController();
      this.#signals.set(deviceId, controller);
    }
    return controller.signal;
  }

  /** A device's cookie life in seconds from now (its `Max-Age`). */
  remainingSeconds(deviceId: string): number {
    const view = this.view(deviceId);
    if (view === null) return 0;
    return Math.max(0, Math.floor((Date.parse(view.expiresAt) - this.#clock.now()) / 1000));
  }

  #touch(row: DeviceRow, now: number, peer: string): void {
    const last = this.#touched.get(row.id) ?? 0;
    if (now - last < TOUCH_EVERY_MS && row.lastPeer === peer) return;
    this.#touched.set(row.id, now);
    try {
      this.#store.touch(row.id, new Date(now).toISOString(), peer);
    } catch (error) {
      // A store that refuses writes (D24) does not refuse the device: its last use waits.
      this.#log.warn("Recording a device's last use failed", { deviceId: row.id, error });
    }
  }

  #failed(peer: string, now: number): void {
    const recent = (this.#failures.get(peer) ?? []).filter((at) => now - at < FAILURE_WINDOW_MS);
    recent.push(now);
    this.#failures.set(peer, recent);
    this.#log.warn("A pairing code was refused", { peer, failures: recent.length });
    if (recent.length < MAX_FAILURES) return;
    const voided = this.#codes.size;
    this.#codes.clear();
    this.#failures.delete(peer);
    this.#log.warn("Open pairing codes were voided after repeated failures", { peer, voided });
  }

  #dropExpiredCodes(now: number): void {
    for (const [key, open] of this.#codes) {
      if (open.expiresAtMs <= now) this.#codes.delete(key);
    }
  }
}

/** When a device expires: its idle life after its last use, at most its end. */
function expiresAt(row: DeviceRow): string {
  const lastUse = Date.parse(row.lastSeenAt ?? row.createdAt);
  return new Date(Math.min(lastUse + row.idleSeconds * 1000, Date.parse(row.endsAt)))
    .toISOString();
}

function viewOf(row: DeviceRow): DeviceView {
  return {
    id: row.id,
    name: row.name,
    scopes: heldScopes(row.scope),
    createdAt: row.createdAt,
    lastSeenAt: row.lastSeenAt,
    lastPeer: row.lastPeer,
    expiresAt: expiresAt(row),
  };
}

/** `bytes` random bytes as base64url (a code: 128 bits; a token: 256). */
function randomText(bytes: number): string {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...random)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
