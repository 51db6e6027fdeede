/**
 * The daemon's build identity (`svcVersion`, C2.5): `git describe --tags
 * --dirty --always`, stamped into this file by `scripts/stamp_version.ts`
 * before a release build. Running from source it is "unknown" here, and
 * `resolveSvcVersion` asks the checkout instead (issue 15).
 */
export const SVC_VERSION: string = "unknown";

let resolved = SVC_VERSION;

/** The version to report: stamped, else what `resolveSvcVersion` found, else "unknown". */
export function svcVersion(): string {
  return resolved;
}

/**
 * From a git checkout, the checkout's `git describe --tags --dirty --always`
 * (no tag yet: deno.json's version and the commit, `0.1.0-g67cc68f-dirty`).
 * Runs git at most once, for at most 2 s; never fails (no git: "unknown").
 */
export async function resolveSvcVersion(): Promise<string> {
  if (resolved !== "unknown" || attempted) return resolved;
  attempted = true;
  try {
    const root = await checkoutRoot();
    if (root === null) return resolved;
    const output = await new Deno.Command("git", {
      args: ["describe", "--tags", "--dirty", "--always"],
      cwd: root,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(2000),
    }).output();
    const described = new TextDecoder().decode(output.stdout).trim();
    if (!output.success || described === "") return resolved;
    if (/^[0-9a-f]{4,40}(-dirty)?$/.test(described)) {
      const manifest = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
      resolved = `${manifest.version ?? "0.0.0"}-g${described}`;
    } else {
      resolved = described;
    }
  } catch { /* no git, no checkout: stays "unknown" */ }
  return resolved;
}

let attempted = false;

/**
 * The checkout holding the program run from source: the nearest directory
 * above the main module with svc's deno.json (the main module, not this
 * file's URL, so a bundle refers to no file beside it); null otherwise.
 */
async function checkoutRoot(): Promise<URL | null> {
  if (!Deno.mainModule.startsWith("file:")) return null;
  let dir = new URL(".", Deno.mainModule);
  for (let depth = 0; depth < 6; depth++) {
    try {
      const manifest = JSON.parse(await Deno.readTextFile(new URL("deno.json", dir)));
      if (manifest.name === "@svc/svc") return dir;
    } catch { /* not here */ }
    const parent = new URL("..", dir);
    if (parent.href === dir.href) break;
    dir = parent;
  }
  return null;
}

/** The contract this daemon serves (C1, C9). */
export const API_VERSION = "svc.daemon.v1";

/** The session-policy contract listed over local IPC (C2.5, C9.5). */
export const SESSION_POLICY_CONTRACT = "svc.session-policy.v1";
