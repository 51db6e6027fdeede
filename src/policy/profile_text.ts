/**
 * A permissions request's profile as every face shows it (issue 33), apart
 * from the path logic of permission_profile.ts so that the web app's bundle
 * (D30) needs no `node:path`.
 */

/** The access a permissions request asks for, as shown to the owner. */
export interface PermissionProfile {
  network: boolean;
  /** Paths to read (absolute once the broker has resolved them). */
  read: string[];
  /** Paths to write; writing one includes reading it. */
  write: string[];
}

/** One line for every face: `write /a, /b; read /c; network`, or `nothing`. */
export function profileText(profile: PermissionProfile): string {
  const parts = [
    ...(profile.write.length > 0 ? [`write ${profile.write.join(", ")}`] : []),
    ...(profile.read.length > 0 ? [`read ${profile.read.join(", ")}`] : []),
    ...(profile.network ? ["network"] : []),
  ];
  return parts.length > 0 ? parts.join("; ") : "nothing";
}
