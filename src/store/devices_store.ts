import type { DatabaseSync } from "node:sqlite";
import type { DeviceScope } from "../policy/device_scopes.ts";

/** One paired device as stored (D30): never its token, only the token's SHA-256. */
export interface DeviceRow {
  readonly id: string;
  readonly name: string;
  readonly scope: DeviceScope;
  /** A device unused this long expires. */
  readonly idleSeconds: number;
  readonly createdAt: string;
  /** The latest a device lives, however often it is used (at most 90 days after pairing). */
  readonly endsAt: string;
  readonly lastSeenAt: string | null;
  readonly lastPeer: string | null;
  readonly revokedAt: string | null;
}

interface Raw {
  id: string;
  name: string;
  scope: string;
  idle_seconds: number;
  created_at: string;
  ends_at: string;
  last_seen_at: string | null;
  last_peer: string | null;
  revoked_at: string | null;
}

const COLUMNS =
  "id, name, scope, idle_seconds, created_at, ends_at, last_seen_at, last_peer, revoked_at";

/** Paired devices (D30) in SQLite. */
export class DevicesStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  insert(row: DeviceRow, tokenSha256: string): void {
    this.#db.prepare(
      `INSERT INTO devices (${COLUMNS}, token_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      row.id,
      row.name,
      row.scope,
      row.idleSeconds,
      row.createdAt,
      row.endsAt,
      row.lastSeenAt,
      row.lastPeer,
      row.revokedAt,
      tokenSha256,
    );
  }

  /** The device whose token hashes to `tokenSha256`, revoked or not; null when none. */
  byToken(tokenSha256: string): DeviceRow | null {
    const raw = this.#db.prepare(`SELECT ${COLUMNS} FROM devices WHERE token_sha256 = ?`)
      .get(tokenSha256) as Raw | undefined;
    return raw === undefined ? null : rowOf(raw);
  }

  /** Every device not revoked, oldest first. */
  list(): DeviceRow[] {
    const rows = this.#db.prepare(
      `SELECT ${COLUMNS} FROM devices WHERE revoked_at IS NULL ORDER BY created_at, id`,
    ).all() as unknown as Raw[];
    return rows.map(rowOf);
  }

  /** Records a use: when and from which peer. */
  touch(id: string, at: string, peer: string): void {
    this.#db.prepare("UPDATE devices SET last_seen_at = ?, last_peer = ? WHERE id = ?")
      .run(at, peer, id);
  }

  /** Revokes the devices named (every live one when `ids` is null); returns those it revoked. */
  revoke(ids: readonly string[] | null, at: string): string[] {
    const live = this.list().map((row) => row.id);
    const chosen = ids === null ? live : live.filter((id) => ids.includes(id));
    const update = this.#db.prepare("UPDATE devices SET revoked_at = ? WHERE id = ?");
    for (const id of chosen) update.run(at, id);
    return chosen;
  }
}

function rowOf(raw: Raw): DeviceRow {
  return {
    id: raw.id,
    name: raw.name,
    scope: raw.scope as DeviceScope,
    idleSeconds: raw.idle_seconds,
    createdAt: raw.created_at,
    endsAt: raw.ends_at,
    lastSeenAt: raw.last_seen_at,
    lastPeer: raw.last_peer,
    revokedAt: raw.revoked_at,
  };
}
