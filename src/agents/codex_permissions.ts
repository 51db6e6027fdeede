/**
 * Codex's permissions requests (`item/permissions/requestApproval`, issue 33
 * item 5): the requested `RequestPermissionProfile` as the profile svc shows
 * the owner, and the `GrantedPermissionProfile` that answers exactly it.
 * Shapes: app-server-protocol v2 of codex 0.169.
 */
import type { PermissionProfile } from "../policy/permission_profile.ts";
import { type Json, obj, str } from "./json_fields.ts";

/**
 * A codex `RequestPermissionProfile` as svc shows it (issue 33): the `read`
 * and `write` lists and the read or write `entries` that name a path (the
 * special `root` is `/`, `slash_tmp` is `/tmp`), and the network when
 * `network.enabled` is true. Entries that name no path svc can show (globs,
 * the agent's temp dir, its project roots) are left out, so never granted.
 */
export function codexProfile(permissions: unknown): PermissionProfile {
  const fileSystem = obj(obj(permissions)?.fileSystem) ?? {};
  const listed = (list: unknown) =>
    Array.isArray(list) ? list.filter((path) => typeof path === "string") : [];
  const entries = Array.isArray(fileSystem.entries) ? fileSystem.entries : [];
  const entryPaths = (access: string) =>
    entries.map((entry) => obj(entry))
      .filter((entry) => entry?.access === access)
      .map((entry) => codexEntryPath(entry!))
      .filter((path) => path !== null);
  return {
    network: obj(obj(permissions)?.network)?.enabled === true,
    read: [...new Set([...listed(fileSystem.read), ...entryPaths("read")])],
    write: [...new Set([...listed(fileSystem.write), ...entryPaths("write")])],
  };
}

/** The path a codex `FileSystemSandboxEntry` names, or null when it names none svc can show. */
function codexEntryPath(entry: Json): string | null {
  const path = obj(entry.path);
  if (path?.type === "path") return str(path.path);
  const special = path?.type === "special" ? obj(path.value)?.kind : null;
  return special === "root" ? "/" : special === "slash_tmp" ? "/tmp" : null;
}

/**
 * The `GrantedPermissionProfile` answering a requested profile: its own lists
 * and entries, kept only where `shown` names them (deny entries stay: they only
 * narrow), and the network when shown.
 */
export function codexGrant(requested: unknown, shown: PermissionProfile): Json {
  const network = shown.network ? { network: { enabled: true } } : {};
  const fileSystem = obj(obj(requested)?.fileSystem);
  if (fileSystem === null) return network;
  const keep = (list: unknown, paths: string[]) =>
    Array.isArray(list) ? list.filter((path) => paths.includes(path)) : null;
  const entries = Array.isArray(fileSystem.entries)
    ? fileSystem.entries.filter((entry) => {
      const access = obj(entry)?.access;
      const path = obj(entry) === null ? null : codexEntryPath(obj(entry)!);
      if (access === "deny") return true;
      return path !== null && (access === "write" ? shown.write : shown.read).includes(path);
    })
    : null;
  return {
    ...network,
    fileSystem: {
      read: keep(fileSystem.read, shown.read),
      write: keep(fileSystem.write, shown.write),
      ...(entries === null ? {} : { entries }),
    },
  };
}
