/**
 * `deno task agents:install`: installs the pinned agent CLIs of
 * `scripts/agents.json` with npm into a cache directory outside the
 * repository (together they weigh ≈ 700 MB), and prints their bin directory.
 * Does nothing when the installed versions already match.
 *
 * The directory is `$SVC_AGENTS_DIR`, else `$XDG_CACHE_HOME/svc/agents`,
 * else `~/.cache/svc/agents`.
 */
import { join } from "node:path";
import manifest from "./agents.json" with { type: "json" };

/** An agent CLI svc knows how to drive. */
export type Harness = keyof typeof manifest.harnesses;

/** Every harness of `agents.json`, in its order. */
export const HARNESSES = Object.keys(manifest.harnesses) as Harness[];

/** The npm package and bin name of a harness. */
export function agentPackage(harness: Harness): { package: string; bin: string } {
  return manifest.harnesses[harness];
}

/** Where the CLIs are installed (the npm `--prefix`). */
export function agentsDir(env: Pick<Deno.Env, "get"> = Deno.env): string {
  const explicit = env.get("SVC_AGENTS_DIR");
  if (explicit) return explicit;
  const cache = env.get("XDG_CACHE_HOME") || join(homeDir(env), ".cache");
  return join(cache, "svc", "agents");
}

/** The directory holding the installed CLIs' executables. */
export function agentsBinDir(env: Pick<Deno.Env, "get"> = Deno.env): string {
  return join(agentsDir(env), "node_modules", ".bin");
}

function homeDir(env: Pick<Deno.Env, "get">): string {
  const home = env.get("HOME") || env.get("USERPROFILE");
  if (!home) throw new Error("Cannot find the agents cache: set SVC_AGENTS_DIR or HOME");
  return home;
}

/** The pinned packages whose installed version differs from `agents.json` (or that are missing). */
export async function outdatedPackages(dir: string): Promise<string[]> {
  const outdated: string[] = [];
  for (const [name, version] of Object.entries(manifest.packages)) {
    try {
      const text = await Deno.readTextFile(join(dir, "node_modules", name, "package.json"));
      if ((JSON.parse(text) as { version?: unknown }).version !== version) outdated.push(name);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      outdated.push(name);
    }
  }
  return outdated;
}

/** Installs every pinned package into `dir` unless all are already there; throws when npm fails. */
export async function installAgents(dir: string): Promise<"installed" | "up to date"> {
  if ((await outdatedPackages(dir)).length === 0) return "up to date";
  await Deno.mkdir(dir, { recursive: true });
  const specs = Object.entries(manifest.packages).map(([name, version]) => `${name}@${version}`);
  let status: Deno.CommandStatus;
  try {
    status = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--save-exact", "--prefix", dir, ...specs],
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error("Cannot install the agent CLIs: npm is not on PATH");
    }
    throw error;
  }
  if (!status.success) {
    throw new Error(
      `Cannot install the agent CLIs: npm exited with code ${status.code} (is the npm registry reachable?)`,
    );
  }
  const outdated = await outdatedPackages(dir);
  if (outdated.length > 0) {
    throw new Error(
      `Cannot install the agent CLIs: wrong versions after npm install: ${outdated.join(", ")}`,
    );
  }
  return "installed";
}

if (import.meta.main) {
  try {
    const outcome = await installAgents(agentsDir());
    console.error(`Agent CLIs ${outcome}`);
    console.log(agentsBinDir());
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(1);
  }
}
